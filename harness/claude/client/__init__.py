"""The real Claude Code client, pinned, installed, driven and read."""
