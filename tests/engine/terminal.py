"""A person's terminal, in tmux, 100 columns wide: a shell in which the tests type what a
participant types (``lab start 11``, ``./mvnw test -Dgroups=sensor``, ``claude``, ``lab check``)
and read what the screen shows.

The shell starts from an empty environment holding only what a participant's has: a HOME
(whose ``.claude.json`` says onboarding is done, as after a first run), a PATH with ``lab``
and the pinned ``claude`` on it, the model's address and a key. Two variables are the test
suite's own plumbing, not a participant's: ``HOOKLAB_CACHE`` (where the pinned client and the
shared Maven cache already are, as on a machine that ran ``lab init``) and ``PYTHONPATH``
(this tree's harness as the installed ``lab``).

The shell's prompt is bare (``$ ``). Each time it is drawn, the shell writes the last exit
code to a file and signals a tmux channel, so a test waits for a command's end without
reading the screen or sleeping; nothing of that shows on screen.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from harness.claude.client.install import find_client
from tests.builders import tmux

WIDTH, HEIGHT = 100, 50


def fresh_home(parent: Path) -> Path:
    """A HOME as a first run leaves it: only ``.claude.json`` saying onboarding is done."""
    home = parent / "home"
    home.mkdir()
    (home / ".claude.json").write_text('{"hasCompletedOnboarding": true}')
    return home


class Terminal:
    """A bash in tmux at ``cwd``; ``run`` types a command and waits for the prompt again."""

    def __init__(self, cwd: Path, home: Path, folder: Path, base_url: str) -> None:
        client = find_client()
        assert client is not None
        self.socket = folder / "tmux.sock"
        self.rc_file = folder / "last-exit"
        self.log: list[tuple[str, str]] = []  # (what was typed, the screen after it)
        path = os.pathsep.join(
            [str(Path(sys.executable).parent), str(client.path.parent), "/usr/bin", "/bin"]
        )
        signal = f"echo $? > {self.rc_file}; tmux -S {self.socket} -f /dev/null wait-for -S ready"
        env = {
            "HOME": str(home),
            "PATH": path,
            "TERM": "xterm-256color",
            "LANG": "C.UTF-8",
            "ANTHROPIC_BASE_URL": base_url,
            "ANTHROPIC_API_KEY": "hooklab-dummy-key",
            "HOOKLAB_CACHE": os.environ["HOOKLAB_CACHE"],
            "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
            "PS1": "$ ",
            "PROMPT_COMMAND": signal,
        }
        for name in ("HOOKLAB_LABS", "HOOKLAB_SCRATCH"):
            if name in os.environ:
                env[name] = os.environ[name]
        shell = ["env", "-i", *(f"{k}={v}" for k, v in env.items()), "bash", "--norc"]
        command = " ".join(_quote(part) for part in shell)
        tmux(self.socket, "new-session", "-d", "-s", "p", "-x", str(WIDTH), "-y", str(HEIGHT))
        tmux(self.socket, "send-keys", "-t", "p", "-l", f"cd {_quote(str(cwd))} && exec {command}")
        tmux(self.socket, "send-keys", "-t", "p", "Enter")
        self._ready(60)  # the first prompt of the bare shell
        tmux(self.socket, "send-keys", "-t", "p", "-l", "clear")
        tmux(self.socket, "send-keys", "-t", "p", "Enter")
        self._ready(10)

    def _ready(self, timeout: float) -> None:
        """Wait until the shell draws its prompt again (its command has ended)."""
        try:
            subprocess.run(
                ["tmux", "-S", str(self.socket), "-f", "/dev/null", "wait-for", "ready"],
                timeout=timeout,
                check=True,
            )
        except subprocess.TimeoutExpired:
            raise AssertionError(
                f"the shell did not come back within {timeout:.0f} s; the screen:\n{self.screen()}"
            ) from None

    def screen(self) -> str:
        """What the pane shows now."""
        return tmux(self.socket, "capture-pane", "-p", "-t", "p", check=False)

    def history(self) -> str:
        """Everything the pane has shown since it was last cleared."""
        return tmux(self.socket, "capture-pane", "-p", "-S", "-", "-t", "p", check=False)

    def type(self, text: str) -> None:
        tmux(self.socket, "send-keys", "-t", "p", "-l", text)

    def key(self, key: str) -> None:
        tmux(self.socket, "send-keys", "-t", "p", key)

    def run(self, command: str, timeout: float = 600) -> tuple[int, str]:
        """Type ``command`` at a clear screen, wait for it to end: (exit code, the screen)."""
        self.type("clear")
        self.key("Enter")
        self._ready(10)
        self.type(command)
        self.key("Enter")
        self._ready(timeout)
        shown = self.history().rstrip()
        self.log.append((command, shown))
        return int(self.rc_file.read_text().strip() or "0"), shown

    def wait(self, text: str, timeout: float = 60.0, enter_on: tuple[str, ...] = ()) -> str:
        """Wait until ``text`` shows on screen; the screen then. A notice on the way that
        shows one of ``enter_on`` is answered with Enter (again while it stays)."""
        deadline = time.monotonic() + timeout
        shown = ""
        while time.monotonic() < deadline:
            shown = self.screen()
            if text in shown:
                return shown
            if any(notice in shown for notice in enter_on):
                self.log.append(("(notice: Enter)", shown.rstrip()))
                self.key("Enter")
                time.sleep(0.5)
            time.sleep(0.2)
        raise AssertionError(f"{text!r} did not appear; the screen:\n{shown}")

    def choose(self, option: str, timeout: float = 30.0) -> None:
        """Move a dialog's cursor (❯) to the line holding ``option`` and press Enter. A dialog
        takes keys a moment after it is drawn: a key sent before is lost, so the cursor is
        moved one line at a time and each move is seen on screen before the next."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            lines = self.screen().splitlines()
            at = [i for i, line in enumerate(lines) if option in line]
            cursor = [i for i, line in enumerate(lines) if line.lstrip().startswith("❯")]
            if at and cursor:
                target = at[-1]
                near = min(cursor, key=lambda i: abs(i - target))
                if near == target:
                    self.log.append((f"(dialog: {option})", self.screen().rstrip()))
                    self.key("Enter")
                    self._gone(option, deadline)
                    return
                self.key("Down" if near < target else "Up")
            time.sleep(0.3)
        raise AssertionError(f"could not choose {option!r}; the screen:\n{self.screen()}")

    def _gone(self, option: str, deadline: float) -> None:
        """Enter sent too early is lost too: send it again until the dialog is gone."""
        while time.monotonic() < deadline:
            time.sleep(0.5)
            if option not in self.screen():
                return
            if any(option in line and "❯" in line for line in self.screen().splitlines()):
                self.key("Enter")
        raise AssertionError(f"the dialog with {option!r} stayed; the screen:\n{self.screen()}")

    def claude(self, prompt: str, *, ready: str | None = None) -> None:
        """``claude`` typed at the prompt, as the step says: trust the folder when asked, use
        the key, type the step's prompt. With ``ready``, a slash command the session must
        offer first: typed, seen in the menu, deleted (the workspace's plugin loads a few
        seconds after the box is drawn: a prompt sent before met "Agent type … not found",
        seen on 2.1.332 under load)."""
        self.type("clear")
        self.key("Enter")
        self._ready(10)
        self.type("claude")
        self.key("Enter")
        self.choose("Yes, I trust this folder")
        self.wait("Do you want to use this API key?")
        self.choose("Yes")
        self.wait("auto mode on")
        if ready is not None:
            self._offered(ready)
        self._type_into_box(prompt)
        self.key("Enter")

    def _type_into_box(self, text: str, timeout: float = 30.0) -> None:
        """The prompt box takes keys a moment after it is drawn: type, and type again only
        if after a while the box is still empty."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.type(text)
            until = time.monotonic() + 5
            while time.monotonic() < until:
                shown = self.screen()
                if text[:40] in shown:
                    return
                time.sleep(0.2)
            if any(
                line.strip() != "❯" and line.lstrip().startswith("❯ ")
                for line in shown.splitlines()[-6:]
            ):
                break  # something was typed but not all of it: do not type over it
        raise AssertionError(f"the prompt box took no {text!r}:\n{self.screen()}")

    def _offered(self, command: str, timeout: float = 60.0) -> None:
        """Type ``command`` until the menu lists it, then delete what was typed."""
        typed = command[: command.index(":")] if ":" in command else command
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.type(typed)
            until = time.monotonic() + 3
            listed = False
            while time.monotonic() < until and not listed:
                listed = command in self.screen()
                time.sleep(0.2)
            for _ in typed:
                self.key("BSpace")
            self._gone_from_box(typed)
            if listed:
                return
        raise AssertionError(f"the session never offered {command}:\n{self.screen()}")

    def _gone_from_box(self, typed: str) -> None:
        until = time.monotonic() + 10
        while time.monotonic() < until:
            if not any(
                line.lstrip().startswith(f"❯ {typed}") for line in self.screen().splitlines()
            ):
                return
            time.sleep(0.2)
        raise AssertionError(f"{typed!r} stayed in the prompt box:\n{self.screen()}")

    def quit_claude(self) -> str:
        """``/exit`` in the client once its turn is over (its status line no longer offers
        "esc to interrupt": the last Stop hook has answered); the screen the session left."""
        deadline = time.monotonic() + 300
        while "esc to interrupt" in self.screen():
            assert time.monotonic() < deadline, f"the turn never ended:\n{self.screen()}"
            time.sleep(0.3)
        shown = self.history().rstrip()
        self.type("/exit")
        time.sleep(0.5)  # the command menu opens as /exit is typed; Enter picks it
        self.key("Enter")
        self._ready(60)
        self.log.append(("claude", shown))
        return shown

    def close(self) -> None:
        tmux(self.socket, "kill-server", check=False)

    def transcript(self) -> str:
        """Every command typed and the screen after it, for a failure's message or a note."""
        return "\n\n".join(f"### {typed}\n{shown}" for typed, shown in self.log)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"
