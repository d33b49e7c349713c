"""Importable builders for tests: run the CLI, git and tmux, write files, build lab manifests."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.engine.lab_runner import LabRunner
    from harness.workspace import Workspace
    from tests.claude.hookproject import HookProject

REPO_ROOT = Path(__file__).resolve().parents[1]


@dataclass
class CliResult:
    code: int
    out: str
    err: str

    def __repr__(self) -> str:
        return f"CliResult(code={self.code}, out={self.out[-800:]!r}, err={self.err[-800:]!r})"


@contextlib.contextmanager
def chdir(path: Path) -> Iterator[None]:
    old = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def run_cli(*argv: str, cwd: Path | None = None) -> CliResult:
    """Run ``lab`` in-process, capturing what a user would see."""
    from harness.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with chdir(cwd or Path.cwd()), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return CliResult(code, out.getvalue(), err.getvalue())


def run_lab_process(
    *argv: str,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    timeout: float = 600,
    unset: Iterable[str] = (),
) -> subprocess.CompletedProcess[str]:
    """Run ``lab`` as a real process (a participant's terminal, without a TTY): this
    environment with ``env`` over it and the names in ``unset`` taken out."""
    full_env = {**os.environ, **(env or {})}
    for name in unset:
        full_env.pop(name, None)
    tally = os.environ.get("HOOKLAB_TALLY_LAB")  # a file: one line per `lab` a run starts
    if tally:
        with open(tally, "a", encoding="utf-8") as out:
            out.write(" ".join(argv[:2]) + "\n")
    return subprocess.run(
        [str(REPO_ROOT / ".venv" / "bin" / "python"), "-m", "harness", *argv],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


# What `run_lab` (below) prints to: no colour, and wide, so no sentence a test looks for wraps.
PLAIN_SCREEN = {"NO_COLOR": "1", "COLUMNS": "200"}


def run_lab(
    cwd: Path,
    *argv: str,
    env: Mapping[str, str] | None = None,
    timeout: float = 600,
    unset: Iterable[str] = (),
) -> subprocess.CompletedProcess[str]:
    """``lab ARGV`` typed in ``cwd``, as a real process on a plain 200-column screen
    (``PLAIN_SCREEN``; ``env`` overrides it). The suite's one runner of the CLI as a process:
    tests that need a different screen give ``env``, not a runner of their own."""
    return run_lab_process(
        *argv, cwd=cwd, env={**PLAIN_SCREEN, **(env or {})}, timeout=timeout, unset=unset
    )


def git(cwd: Path, *args: str) -> str:
    __tracebackhide__ = True  # a failure points at the test that called it
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout


def hook_event(
    name: str,
    root: Path,
    *,
    session_id: str = "tests",
    transcript_path: str = "/dev/null",
    **fields: Any,
) -> dict[str, Any]:
    """A hook input as Claude Code sends it: the common fields, then the event's own."""
    return {
        "session_id": session_id,
        "transcript_path": transcript_path,
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": name,
        **fields,
    }


# The fields 2.1.332 gives a Notification hook for a permission prompt left up, in its order.
PERMISSION_NOTIFICATION_KEYS = [
    "session_id",
    "transcript_path",
    "cwd",
    "prompt_id",
    "hook_event_name",
    "message",
    "notification_type",
]


def log_permission_notifications(project: HookProject, log: Path) -> None:
    """A Notification hook, matched on ``permission_prompt``, that appends each input it is
    given to ``log``, one JSON a line (``logged_inputs`` reads them back)."""
    project.hook("Notification", f'cat >> "{log}"; echo >> "{log}"', matcher="permission_prompt")


def logged_inputs(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


# ---- lab manifests as data -----------------------------------------------------------------
# Tests build a manifest with lab(...) and step(...) and change it as data; write_lab turns it
# into lab.toml, so no test keeps a copy of a manifest's TOML text.

Table = dict[str, Any]


def file_check(path: str, **expect: Any) -> Table:
    """A ``file`` check; ``exists = true`` unless other expectations are given."""
    return {"kind": "file", "path": path, **(expect or {"exists": True})}


def write_action(path: str, content: str) -> Table:
    return {"do": "write", "path": path, "content": content}


def step(
    step_id: str,
    *,
    check: Table | list[Table] | None = None,
    solve: Table | list[Table] | None = None,
    setup: Table | list[Table] | None = None,
    title: str | None = None,
    instructions: str | None = None,
    hints: list[str] | None = None,
) -> Table:
    """A ``[[step]]``: by default it checks that ``<id>.txt`` exists and its solve writes it."""
    own_file = f"{step_id}.txt"
    built: Table = {
        "id": step_id,
        "title": title if title is not None else f"Step {step_id}",
        "instructions": instructions if instructions is not None else f"write {own_file}",
        "hints": hints if hints is not None else [f"write {own_file}"],
    }
    if setup is not None:
        built["setup"] = setup if isinstance(setup, list) else [setup]
    built["check"] = [file_check(own_file)] if check is None else _many(check)
    built["solve"] = [write_action(own_file, step_id)] if solve is None else _many(solve)
    return built


def lab(lab_id: str, *steps: Table, title: str = "A test lab", intro: str = "x") -> Table:
    """A lab manifest; with no steps, one honest step ``one``."""
    return {
        "format": 1,
        "id": lab_id,
        "title": title,
        "intro": intro,
        "step": list(steps) or [step("one")],
    }


def tmux(socket: Path | str, *args: str, check: bool = True) -> str:
    """A tmux command against a server of the test's own, at a socket path in its folder.

    Never a shared server: tmux's default one starts each session with the environment of
    whichever test started it (another test's HOOKLAB_LABS), and may be the server of whoever
    runs the suite; a name shared by one worker's tests (-L) met the server the last test had
    just killed. With ``check``, a failure raises with tmux's stderr."""
    __tracebackhide__ = True  # a failure points at the test that called it
    if args[:1] == ("kill-server",):
        _count_panes_cpu(socket)
    done = subprocess.run(
        ["tmux", "-S", str(socket), "-f", "/dev/null", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    if check:
        assert done.returncode == 0, f"tmux {' '.join(args)}: exit {done.returncode}: {done.stderr}"
    return done.stdout


# CPU-seconds the panes of the tests' tmux servers used, summed as each server is killed: the
# server is no child of the test, so the test's own count (tests/conftest.py) misses them. A
# screen test runs its `lab` commands and Maven there: 10-12 CPU-seconds measured where the
# report said 0.1.
PANES_CPU = [0.0]


def _count_panes_cpu(socket: Path | str) -> None:
    """Add what the server's panes used (each pane's process and the children it waited for)
    to PANES_CPU, before the server goes; nothing when it is already gone."""
    listed = subprocess.run(
        ["tmux", "-S", str(socket), "-f", "/dev/null", "list-panes", "-a", "-F", "#{pane_pid}"],
        capture_output=True,
        text=True,
        check=False,
    )
    ticks = os.sysconf("SC_CLK_TCK")
    for pid in listed.stdout.split():
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        # utime, stime, cutime, cstime: fields 14-17 of proc(5), 12-15 after the name.
        PANES_CPU[0] += sum(int(f) for f in fields[11:15]) / ticks


def write_lab(root: Path, lab_id: str, manifest: Table | str) -> Path:
    """``root/lab_id/lab.toml`` from a built manifest (or, for a syntax error, raw text)."""
    folder = root / lab_id
    folder.mkdir(parents=True, exist_ok=True)
    text = manifest if isinstance(manifest, str) else toml_text(manifest)
    (folder / "lab.toml").write_text(text)
    return folder


def _many(tables: Table | list[Table]) -> list[Table]:
    return tables if isinstance(tables, list) else [tables]


def toml_text(table: Mapping[str, Any], prefix: str = "") -> str:
    """A table as TOML: plain values first, then nested tables and arrays of tables."""
    lines, nested = [], []
    for key, value in table.items():
        if isinstance(value, Mapping) or (
            isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value)
        ):
            nested.append((key, value))
        else:
            lines.append(f"{_toml_key(key)} = {_toml_value(value)}")
    for key, value in nested:
        name = prefix + _toml_key(key)
        for item in [value] if isinstance(value, Mapping) else value:
            header = f"[{name}]" if isinstance(value, Mapping) else f"[[{name}]]"
            lines.append(f"\n{header}\n{toml_text(item, name + '.')}".rstrip("\n"))
    return "\n".join(lines) + "\n"


def _toml_key(key: str) -> str:
    return key if key.replace("_", "").replace("-", "").isalnum() else json.dumps(key)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string takes JSON's escapes
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        pairs = ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items())
        return "{ " + pairs + " }" if pairs else "{}"
    raise TypeError(f"no TOML for {value!r}")


HOLD_ONCE = """
input=$(cat)
[ "$(jq -r .stop_hook_active <<<"$input")" = true ] && exit 0
echo "held once: say it again" >&2
exit 2
"""


def project_held_once(root: Path) -> dict[str, Any]:
    """A git project at ``root`` whose one Stop hook holds the first stop of a turn (exit 2,
    "held once: say it again") and lets the second go; its settings, as written."""
    from tests.claude.hookproject import HookProject

    project = HookProject(root)
    project.hook("Stop", HOLD_ONCE, name="once.sh")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return project.data()


@contextlib.contextmanager
def launched(
    socket: Path | str, cwd: Path, command: str, *, width: int = 100, height: int = 50
) -> Iterator[None]:
    """``command`` running in a fresh ``width``-column tmux terminal as in a person's shell
    (no COLUMNS, NO_COLOR, this tree's ``lab`` on the PATH), ``END-42`` printed after it; the
    terminal is gone on leaving."""
    venv = REPO_ROOT / ".venv" / "bin"
    line = (
        f"cd {cwd} && unset COLUMNS LINES; PATH={venv}:$PATH NO_COLOR=1 {command}; "
        "echo END-$((6*7)); sleep 600"
    )
    tmux(socket, "new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height), line)
    try:
        yield
    finally:
        tmux(socket, "kill-server", check=False)


def command_screen(
    socket: Path | str,
    cwd: Path,
    width: int,
    command: str,
    *,
    height: int = 50,
    timeout: float = 300,
    history: bool = True,
    joined: bool = True,
) -> list[str]:
    """What ``command`` printed in a fresh ``width``-column terminal (``launched``), the
    terminal's own wraps joined. ``history``: every line it printed, else only what the screen
    shows at the end. ``joined=False``: the rows as a person sees them, each at most
    ``width`` columns (a text found whole in one is not split by the terminal's wrap either)."""
    with launched(socket, cwd, command, width=width, height=height):
        if history:
            tmux(socket, "set-option", "-t", "t", "history-limit", "5000")
        join = ["-J"] if joined else []
        capture = ["capture-pane", "-p", *join, *(["-S", "-5000"] if history else []), "-t", "t"]
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = tmux(socket, *capture)
            if re.search(r"^END-42", screen, re.MULTILINE):
                return screen.splitlines()
            time.sleep(0.2)
        raise AssertionError(f"never finished at {width} columns:\n{screen}")


def sensor_report(project: Path, sensor: str, *, failure: str | None = None) -> str:
    """A Surefire report of ``sensor`` as a real run of ``project``'s source writes it: its
    <properties>, times, a <testcase> per @Test method (the sensors check wants them all), the
    first one failing with ``failure`` when given."""
    from harness.maven.surefire import SENSOR_PACKAGE, sensor_test_methods

    cls = f"{SENSOR_PACKAGE}.{sensor}"
    methods = sensor_test_methods(project, sensor) or ("t",)
    cases = []
    for i, method in enumerate(methods):
        trace = f"{failure}\n\tat {cls}.{method}({sensor}.java:1)\n"
        body = f'<failure message="{failure}">{trace}</failure>' if failure and i == 0 else ""
        case = f'<testcase name="{method}" classname="{cls}" time="0.005">'
        cases.append(f"  {case}{body}</testcase>")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuite name="{cls}" time="0.05" tests="{len(methods)}" '
        f'failures="{int(bool(failure))}" errors="0" skipped="0">\n  <properties/>\n'
        + "\n".join(cases)
        + "\n</testsuite>\n"
    )


def sensor_summary(project: Path, sensor: str, *, failure: str | None = None) -> str:
    """The plain summary (``<class>.txt``) the same run writes beside sensor_report's XML:
    its counts and time, and the failing case's line (the sensors check reads both)."""
    from harness.maven.surefire import sensor_test_methods

    methods = sensor_test_methods(project, sensor) or ("t",)
    lines = [
        f"Tests run: {len(methods)}, Failures: {int(bool(failure))}, Errors: 0, Skipped: 0, "
        "Time elapsed: 0.05 s"
    ]
    if failure:
        lines.append(f"{methods[0]}  Time elapsed: 0.005 s  <<< FAILURE!")
    return "\n".join(lines) + "\n"


# Workspaces at a step, reached once per worker: (lab, step, the fresh workspace's HEAD) -> root.
_REACHED: dict[tuple[str, str, str], Path] = {}


def reach_step(ws: Workspace, lab: str, step: str) -> LabRunner:
    """``ws``, fresh from the ``workspace`` fixture, at ``lab``'s ``step`` as ``lab start`` and
    ``lab goto`` leave it; its runner. The first test to ask for a step reaches it for real in
    a workspace of the worker's own, and every test then gets a copy of that (times kept, the
    compiler's input lists pointed at the copy, as ``workspace`` copies its template): the
    steps whose setup runs Maven took 4-11 s to reach, a copy a tenth of a second."""
    from harness.engine.lab_runner import LabRunner
    from harness.maven.warm import relocate_compiler_inputs
    from harness.workspace import Workspace

    key = (lab, step, _head_of(ws.root))
    reached = _REACHED.get(key)
    if reached is None:
        scratch = os.environ.get("HOOKLAB_SCRATCH") or None
        reached = Path(tempfile.mkdtemp(prefix="reached-", dir=scratch)) / "ws"
        shutil.copytree(ws.root, reached, symlinks=True)
        relocate_compiler_inputs(reached, str(ws.root), str(reached))
        runner = LabRunner(Workspace(reached))
        runner.start(lab)
        if runner.progress.step != step:
            runner.goto(step)
        _REACHED[key] = reached
    shutil.rmtree(ws.root)
    shutil.copytree(reached, ws.root, symlinks=True)
    relocate_compiler_inputs(ws.root, str(reached), str(ws.root))
    return LabRunner(ws)


def _head_of(root: Path) -> str:
    """The commit HEAD names, read off .git (a workspace of another template is another key)."""
    git_dir = root / ".git"
    head = (git_dir / "HEAD").read_text().strip()
    if not head.startswith("ref: "):
        return head
    ref = head.removeprefix("ref: ")
    if (git_dir / ref).is_file():
        return (git_dir / ref).read_text().strip()
    packed = git_dir / "packed-refs"
    for line in packed.read_text().splitlines() if packed.is_file() else []:
        if line.endswith(" " + ref):
            return line.split()[0]
    return head
