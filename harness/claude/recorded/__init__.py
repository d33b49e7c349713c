"""Recorded sessions: what the real Claude Code client wrote, read into one typed timeline.

``entries`` holds what a timeline holds (prompts, tool calls, stops, hook decisions), ``model``
the timeline and its extract; ``reader`` reads a transcript into it, ``extract`` an extract,
``finder`` finds a workspace's sessions. The client's own
words, which the reader decodes, live in ``harness.claude.client_words``.
"""

from __future__ import annotations

from harness.claude.client_words import hook_name, hooks_in_feedback
from harness.claude.recorded.entries import (
    AUTO_MODE_CHECK,
    CHANGING_TOOLS,
    HANDBACK,
    TEXT_CAP,
    UNNAMED_HOOK,
    USER,
    Prompt,
    RecordedDecision,
    StopAttempt,
    SubagentRun,
    ToolCall,
    parse_time,
)
from harness.claude.recorded.extract import from_extract
from harness.claude.recorded.finder import SessionFile, config_root, find_sessions
from harness.claude.recorded.model import (
    EXTRACT_ENTRY_CAP,
    FORMATS,
    RecordedSessionError,
    Timeline,
    TranscriptFormat,
    extract_digest,
    left_out_warning,
    transcript_format,
)
from harness.claude.recorded.reader import read_session

__all__ = [
    "AUTO_MODE_CHECK",
    "CHANGING_TOOLS",
    "EXTRACT_ENTRY_CAP",
    "FORMATS",
    "HANDBACK",
    "TEXT_CAP",
    "UNNAMED_HOOK",
    "USER",
    "Prompt",
    "RecordedDecision",
    "RecordedSessionError",
    "SessionFile",
    "StopAttempt",
    "SubagentRun",
    "Timeline",
    "ToolCall",
    "TranscriptFormat",
    "config_root",
    "extract_digest",
    "find_sessions",
    "from_extract",
    "hook_name",
    "hooks_in_feedback",
    "left_out_warning",
    "parse_time",
    "read_session",
    "transcript_format",
]
