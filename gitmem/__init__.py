"""gitmem: long-term memory for AI agents, kept as a markdown notebook in git."""

__version__ = "0.1.0"
