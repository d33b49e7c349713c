"""A person's terminal in tmux, 100 columns wide: a bare shell into which Hook Lab types what
a participant types (``claude``, the step's prompt, ``/exit``) and from which it reads what
the screen shows. ``lab dev check`` proves a live step in one, and the tests walk labs in one.

The shell starts from an empty environment holding only what the caller gives it (a
participant's HOME, PATH, the model's address and a key). Its prompt is bare (``$ ``); each
time the prompt is drawn, the shell writes the last exit code to a file and signals a tmux
channel, so the end of a command is waited for without reading the screen or sleeping.

Every tmux command goes to a server of this terminal's own, at a socket in its folder: the
default server would start the shell with the environment of whoever started that server.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from harness.errors import HarnessError

WIDTH, HEIGHT = 100, 50


class TerminalError(HarnessError):
    """The screen did not show what was waited for; the message holds the screen."""


def tmux_missing() -> bool:
    return shutil.which("tmux") is None


def fresh_home(parent: Path) -> Path:
    """A HOME as a first run of the client leaves it: only ``.claude.json`` saying that
    onboarding is done (its theme and login screens are a person's first minute, not a lab's)."""
    home = parent / "home"
    home.mkdir(parents=True, exist_ok=True)
    (home / ".claude.json").write_text('{"hasCompletedOnboarding": true}')
    return home


def quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


class Terminal:
    """A bash in tmux at ``cwd`` with exactly ``env``; ``run`` types a command and waits for
    the prompt again. ``folder`` holds the server's socket and the exit-code file."""

    def __init__(self, cwd: Path, env: Mapping[str, str], folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.socket = folder / "tmux.sock"
        self.rc_file = folder / "last-exit"
        self.log: list[tuple[str, str]] = []  # (what was typed, the screen after it)
        signal = f"echo $? > {self.rc_file}; tmux -S {self.socket} -f /dev/null wait-for -S ready"
        shell_env = {**env, "PS1": "$ ", "PROMPT_COMMAND": signal}
        shell = ["env", "-i", *(f"{k}={v}" for k, v in shell_env.items()), "bash", "--norc"]
        command = " ".join(quote(part) for part in shell)
        self._tmux("new-session", "-d", "-s", "p", "-x", str(WIDTH), "-y", str(HEIGHT))
        self.type(f"cd {quote(str(cwd))} && exec {command}")
        self.key("Enter")
        self._ready(60)  # the first prompt of the bare shell
        self.type("clear")
        self.key("Enter")
        self._ready(10)

    def _tmux(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(
            ["tmux", "-S", str(self.socket), "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            check=False,
        )
        if check and done.returncode != 0:
            raise TerminalError(f"tmux {' '.join(args)}: exit {done.returncode}: {done.stderr}")
        return done.stdout

    def _ready(self, timeout: float) -> None:
        """Wait until the shell draws its prompt again (its command has ended)."""
        try:
            subprocess.run(
                ["tmux", "-S", str(self.socket), "-f", "/dev/null", "wait-for", "ready"],
                timeout=timeout,
                check=True,
            )
        except subprocess.TimeoutExpired:
            raise TerminalError(
                f"the shell did not come back within {timeout:.0f} s; the screen:\n{self.screen()}"
            ) from None

    def screen(self) -> str:
        """What the pane shows now."""
        return self._tmux("capture-pane", "-p", "-t", "p", check=False)

    def history(self) -> str:
        """Everything the pane has shown since it was last cleared."""
        return self._tmux("capture-pane", "-p", "-S", "-", "-t", "p", check=False)

    def type(self, text: str) -> None:
        self._tmux("send-keys", "-t", "p", "-l", text)

    def key(self, key: str) -> None:
        self._tmux("send-keys", "-t", "p", key)

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
        return self.wait_until(lambda shown: text in shown, repr(text), timeout, enter_on)

    def wait_until(
        self,
        done: Callable[[str], bool],
        what: str,
        timeout: float = 60.0,
        enter_on: tuple[str, ...] = (),
    ) -> str:
        """Wait until ``done(screen)``; notices showing one of ``enter_on`` get an Enter."""
        deadline = time.monotonic() + timeout
        shown = ""
        while time.monotonic() < deadline:
            shown = self.screen()
            if done(shown):
                return shown
            if any(notice in shown for notice in enter_on):
                self.log.append(("(notice: Enter)", shown.rstrip()))
                self.key("Enter")
                time.sleep(0.5)
            time.sleep(0.2)
        raise TerminalError(f"{what} did not appear within {timeout:.0f} s; the screen:\n{shown}")

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
        raise TerminalError(f"could not choose {option!r}; the screen:\n{self.screen()}")

    def _gone(self, option: str, deadline: float) -> None:
        """Enter sent too early is lost too: send it again until the dialog is gone."""
        while time.monotonic() < deadline:
            time.sleep(0.5)
            if option not in self.screen():
                return
            if any(option in line and "❯" in line for line in self.screen().splitlines()):
                self.key("Enter")
        raise TerminalError(f"the dialog with {option!r} stayed; the screen:\n{self.screen()}")

    def claude(self, prompt: str, *, ready: str | None = None) -> None:
        """``claude`` typed at the prompt, as a live step says: trust the folder when asked,
        use the key, type the step's prompt. With ``ready``, a slash command the session must
        offer first: typed, seen in the menu, deleted (the workspace's plugin loads a few
        seconds after the box is drawn: a prompt sent before met "Agent type … not found",
        seen on 2.1.332 under load)."""
        self.type("clear")
        self.key("Enter")
        self._ready(10)
        self.type("claude")
        self.key("Enter")
        self._through_first_run_dialogs()
        if ready is not None:
            self._offered(ready)
        self._type_into_box(prompt)
        self.key("Enter")

    def _through_first_run_dialogs(self, timeout: float = 60.0) -> None:
        """Answer what the client asks in a folder and a HOME it has not seen (the folder's
        trust, then the key), until its prompt box is up; a person back in the same folder
        is asked neither."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = self.screen()
            if "auto mode on" in shown:
                return
            if "Yes, I trust this folder" in shown:
                self.choose("Yes, I trust this folder")
            elif "Do you want to use this API key?" in shown:
                self.choose("Yes")
            else:
                time.sleep(0.2)
        raise TerminalError(f"the client's prompt box never came up:\n{self.screen()}")

    def _type_into_box(self, text: str, timeout: float = 30.0) -> None:
        """The prompt box takes keys a moment after it is drawn: type, and type again only
        if after a while the box is still empty."""
        deadline = time.monotonic() + timeout
        shown = ""
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
        raise TerminalError(f"the prompt box took no {text!r}:\n{self.screen()}")

    def _offered(self, command: str, timeout: float = 60.0) -> None:
        """Type ``command`` (up to a colon) until the menu lists it, then delete the typing."""
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
        raise TerminalError(f"the session never offered {command}:\n{self.screen()}")

    def _gone_from_box(self, typed: str) -> None:
        until = time.monotonic() + 10
        while time.monotonic() < until:
            if not any(
                line.lstrip().startswith(f"❯ {typed}") for line in self.screen().splitlines()
            ):
                return
            time.sleep(0.2)
        raise TerminalError(f"{typed!r} stayed in the prompt box:\n{self.screen()}")

    def quit_claude(self, timeout: float = 300.0) -> str:
        """``/exit`` in the client once its turn is over (its status line no longer offers
        "esc to interrupt": the last Stop hook has answered); the screen the session left."""
        deadline = time.monotonic() + timeout
        while "esc to interrupt" in self.screen():
            if time.monotonic() > deadline:
                raise TerminalError(f"the turn never ended:\n{self.screen()}")
            time.sleep(0.3)
        shown = self.history().rstrip()
        self.type("/exit")
        time.sleep(0.5)  # the command menu opens as /exit is typed; Enter picks it
        self.key("Enter")
        self._ready(60)
        self.log.append(("claude", shown))
        return shown

    def close(self) -> None:
        self._tmux("kill-server", check=False)

    def transcript(self) -> str:
        """Every command typed and the screen after it, for a failure's message or a note."""
        return "\n\n".join(f"### {typed}\n{shown}" for typed, shown in self.log)
