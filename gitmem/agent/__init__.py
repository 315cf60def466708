"""What agents use: the always-on context, saved sessions, and the MCP server (over notes and search)."""
