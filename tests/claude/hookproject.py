"""The tests' one builder of project directories with real bash hooks registered in
.claude/settings.json (tests/builders.py and the guard tests build theirs with it)."""

from __future__ import annotations

import json
import shutil
import subprocess
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
        shebang = "" if body.startswith("#!") else "#!/usr/bin/env bash\n"  # a body's own stays
        path.write_text(shebang + body.strip() + "\n")
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

    def group(self, event: str, hooks: list[dict[str, Any]], *, matcher: str | None = None) -> None:
        """Register one group of several hooks (any type: command, prompt, agent, http), as
        written in settings.json."""
        group: dict[str, Any] = {"hooks": hooks}
        if matcher is not None:
            group["matcher"] = matcher
        self.hooks.setdefault(event, []).append(group)
        self.save()

    def install(self, script: Path, name: str | None = None) -> str:
        """Copy an existing hook script (a plugin's, a fixture's) in as it is; return the
        command that runs it."""
        path = self.hooks_dir / (name or script.name)
        shutil.copy2(script, path)
        path.chmod(0o755)
        return f'"$CLAUDE_PROJECT_DIR/.claude/hooks/{path.name}"'

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

    def data(self) -> dict[str, Any]:
        """The settings as written to .claude/settings.json."""
        return json.loads((self.root / ".claude" / "settings.json").read_text())

    def commit(self, message: str = "project") -> Path:
        """Everything committed in a git repository at the root (made if need be), as a hook
        author's own repository is."""
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-C", str(self.root)]
        if not (self.root / ".git").exists():
            subprocess.run(["git", "init", "-q", str(self.root)], check=True)
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-qm", message], check=True)
        return self.root

    def settings(self) -> Settings:
        return load_settings(self.root)

    def session(self, **kw: Any) -> EmulatedSession:
        return EmulatedSession(self.root, transcript_dir=self.root.parent / "transcripts", **kw)

    def file(self, rel: str, text: str) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path
