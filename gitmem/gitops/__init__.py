"""The only code that runs git: the gateway, file locks, the hooks, their background runner and the merge driver."""
