"""The top-level hooks/ folder, installed as gitmem.hookscripts: post-hook.sh (what git runs after a
commit, merge, checkout or rewrite) and the recipes for agents and nightly work (see README.md).
No code: gitmem.gitops.hooks reads the script with importlib.resources."""
