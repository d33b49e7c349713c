"""Hook Lab: a workshop harness for Claude Code guard hooks on a real Maven fixture."""

from __future__ import annotations

__version__ = "0.1.0"
