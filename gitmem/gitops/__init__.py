"""The only code that runs git: the gateway (git.py) and what is built on it (commits, plumbing,
git's index.lock, identity, the git log reader), file locks, the hooks, their background runner
and the merge driver."""
