"""A builder for project directories with real bash hooks registered in .claude/settings.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.claude import EmulatedSession, Settings, load_settings


class HookProject:
    """A project root under construction: write hook scripts, register them, open a session."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.hooks_dir = self.root / ".claude" / "hooks"
        self.hooks_dir.mkdir(parents=True, exist_ok=True)
        self.hooks: dict[str, list[dict[str, Any]]] = {}
        self.permissions: dict[str, list[str]] = {}
        self._count = 0
        self.save()

    def __repr__(self) -> str:
        return f"<HookProject {self.root} events={sorted(self.hooks)}>"

    def script(self, body: str, name: str | None = None) -> str:
        """Write an executable bash hook; return the command that runs it."""
        self._count += 1
        name = name or f"hook{self._count}.sh"
        path = self.hooks_dir / name
        path.write_text("#!/usr/bin/env bash\n" + body.strip() + "\n")
        path.chmod(0o755)
        return f'"$CLAUDE_PROJECT_DIR/.claude/hooks/{name}"'

    def register(
        self, event: str, command: str, *, matcher: str | None = None, timeout: float | None = None
    ) -> str:
        entry: dict[str, Any] = {"type": "command", "command": command}
        if timeout is not None:
            entry["timeout"] = timeout
        group: dict[str, Any] = {"hooks": [entry]}
        if matcher is not None:
            group["matcher"] = matcher
        self.hooks.setdefault(event, []).append(group)
        self.save()
        return command

    def hook(
        self,
        event: str,
        body: str,
        *,
        matcher: str | None = None,
        timeout: float | None = None,
        name: str | None = None,
    ) -> str:
        return self.register(event, self.script(body, name), matcher=matcher, timeout=timeout)

    def permit(self, kind: str, *rules: str) -> None:
        self.permissions.setdefault(kind, []).extend(rules)
        self.save()

    def save(self) -> None:
        data: dict[str, Any] = {"hooks": self.hooks}
        if self.permissions:
            data["permissions"] = self.permissions
        (self.root / ".claude" / "settings.json").write_text(json.dumps(data, indent=2))

    def settings(self) -> Settings:
        return load_settings(self.root)

    def session(self, **kw: Any) -> EmulatedSession:
        return EmulatedSession(self.root, transcript_dir=self.root.parent / "transcripts", **kw)

    def file(self, rel: str, text: str) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path
