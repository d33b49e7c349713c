"""One Maven run for two engines: the dev check's build cache for a session played on both.

``lab dev check --engine both`` plays a step's session on the emulator and on the real client,
side by side, each on its own copy of the workspace. Where both sessions run Maven on the same
inputs, the second run would only repeat the first. ``MavenShare`` puts an ``mvn`` of its own
first on the sessions' PATH (``./mvnw`` calls ``mvn`` after clearing the old reports); it keys
each call by its arguments, the options Maven reads from the environment and every file of the
project but ``.git`` (path, size, content, and its mtime's rank among the others). The first
engine to make a call runs the real Maven and keeps what the run changed in the project
(reports, classes, Maven's status lists), its exit status and its output; the other engine's
identical call waits for that run and writes the same files afresh in its own copy (mtime: now,
as a run finishing now leaves them), prints the same output and exits with the same status.

Only equivalent inputs share. Maven and ./mvnw decide from file times by comparing them with
each other (a source newer than its class, the pom newer than the sources' record) and with
the run's own start, never by their distance, so a key holds each file's rank among the
project's mtimes (ties kept), not the mtime itself: the same edit made by both engines at two
moments leaves the same order, and the run after it is shared. An edit that lands in another
order, or with other bytes, is a real run on each engine. An engine never takes its own earlier
run: its n-th call of a key pairs with the other engine's n-th, so the two engines together run
Maven as often as one.

The fixture's ``smoke.sh`` shares the same way. It proves the hooks against throwaway projects
of its own (some 190 hook runs, about 20 CPU-seconds here), and the project sees only its output
and ``.git/aiup-smoke-ran``, the content hashes of what it proved. It starts through
``#!/usr/bin/env bash``, so a ``bash`` shim first on PATH receives it; every other ``bash``
goes straight to the real one. Its key adds the ``AIUP_`` settings, HEAD, the index by
content, the session's base commit and which ``jq``, ``git``, ``perl`` and ``timeout`` it would
find: a session that hides jq, or stages a file, is another run.

This file runs as the shim itself (``python share.py ARGS``), so it imports only the standard
library.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

STORE_ENV = "HOOKLAB_MAVEN_SHARE"  # the share's folder
ENGINE_ENV = "HOOKLAB_MAVEN_SHARE_AS"  # the engine this session plays on
SHIM_ENV = "HOOKLAB_MAVEN_SHARE_BIN"  # the shim's folder, skipped when looking for the real mvn
# Environment Maven's result depends on.
KEYED_ENV = ("MAVEN_OPTS", "MAVEN_ARGS", "JAVA_HOME", "JAVA_TOOL_OPTIONS", "HOOKLAB_MAVEN_ONLINE")
ROOT_MARK = b"\x00hooklab-maven-share-root\x00"  # the producer's project path, in kept files
LEDGER = "ledger.jsonl"  # one line per call: what ran for real and what was restored
SMOKE_SCRIPT = ".claude/hooks/smoke.sh"
SMOKE_FLAG = "--smoke"  # how the bash shim hands a smoke.sh run to this file
# What smoke.sh leaves in the project's git dir, kept and restored with the run.
SMOKE_GIT_FILES = ("aiup-smoke-ran",)
# The programs smoke.sh and the hooks it fires look up on PATH.
SMOKE_TOOLS = ("jq", "git", "perl", "timeout")
SHIMS_PARENT = "maven-share"  # every shim folder's parent: never the real Maven


@dataclass(frozen=True)
class Call:
    """One line of the ledger."""

    engine: str
    how: str  # "real" or "restored"
    key: str
    argv: tuple[str, ...]
    seconds: float
    program: str = "mvn"  # or "smoke.sh"

    def to_json(self) -> dict[str, object]:
        return {
            "engine": self.engine,
            "how": self.how,
            "argv": list(self.argv),
            "seconds": self.seconds,
            "program": self.program,
        }


class MavenShare:
    """The share of one step's session: a folder for the kept runs, and the ``mvn`` shim."""

    def __init__(self, folder: Path, bin_dir: Path) -> None:
        self.store = folder
        self.bin_dir = bin_dir

    def environment(self, engine: str, env: Mapping[str, str]) -> dict[str, str]:
        """``env`` (a session's extra environment) with the shim first on PATH."""
        path = env.get("PATH", os.environ.get("PATH", ""))
        return {
            **env,
            "PATH": f"{self.bin_dir}{os.pathsep}{path}",
            STORE_ENV: str(self.store),
            SHIM_ENV: str(self.bin_dir),
            ENGINE_ENV: engine,
        }

    def calls(self) -> list[Call]:
        ledger = self.store / LEDGER
        if not ledger.is_file():
            return []
        calls = []
        for line in ledger.read_text(encoding="utf-8").splitlines():
            raw = json.loads(line)
            calls.append(
                Call(
                    raw["engine"],
                    raw["how"],
                    raw["key"],
                    tuple(raw["argv"]),
                    raw["seconds"],
                    raw.get("program", "mvn"),
                )
            )
        return calls


def _shim_texts() -> dict[str, str]:
    """The shims by name. -I -S: the standard library only, whatever the caller's environment
    holds. ``bash`` hands smoke.sh (its first argument, as ``env bash`` passes a script) to
    the share and execs the real bash, found now, for anything else."""
    share = f"'{sys.executable}' -I -S '{Path(__file__).resolve()}'"
    texts = {"mvn": f'#!/bin/sh\nexec {share} "$@"\n'}
    # Never a shim of an earlier share: a `lab` started inside a shared session has one on PATH.
    path = os.pathsep.join(
        entry
        for entry in os.environ.get("PATH", "").split(os.pathsep)
        if entry and Path(entry).parent.name != "maven-share"
    )
    real_bash = shutil.which("bash", path=path)
    if real_bash:
        texts["bash"] = (
            "#!/bin/sh\n"
            'case "${1-}" in\n'
            f"  */{SMOKE_SCRIPT} | {SMOKE_SCRIPT})\n"
            f"    exec {share} {SMOKE_FLAG} '{real_bash}' \"$@\" ;;\n"
            "esac\n"
            f"exec '{real_bash}' \"$@\"\n"
        )
    return texts


def shim_dir() -> Path:
    """The folder of the shims, made once per Python, Hook Lab install and bash, and kept: a
    shared session finds them in place instead of writing new ones."""
    from harness.paths import cache_home

    texts = _shim_texts()
    digest = hashlib.sha256(json.dumps(texts, sort_keys=True).encode()).hexdigest()[:16]
    folder = cache_home() / "maven-share" / digest
    for name, text in texts.items():
        shim = folder / name
        if shim.is_file():
            continue
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / f"{name}.{os.getpid()}.tmp"
        partial.write_text(text, encoding="utf-8")
        partial.chmod(0o755)
        partial.replace(shim)  # whole or not at all: a session beside this one may call it
    return folder


@contextlib.contextmanager
def maven_share() -> Iterator[MavenShare]:
    """A share for one step's session, its kept runs removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="hooklab-maven-share-"))
    try:
        yield MavenShare(folder, shim_dir())
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# -- the shim ---------------------------------------------------------------------------------

Manifest = dict[str, tuple[int, int]]  # relative path -> (size, mtime_ns)


def _walk(root: Path, git_files: Iterable[str] = ()) -> Iterator[tuple[str, os.stat_result, Path]]:
    """Every regular file and symlink under ``root`` except ``.git``, and those of
    ``git_files`` (names in ``root/.git``) that exist, sorted by path."""
    stack = [root]
    found = []
    while stack:
        folder = stack.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                path = Path(entry.path)
                if folder == root and entry.name == ".git":
                    continue
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISDIR(info.st_mode):
                    stack.append(path)
                elif stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode):
                    found.append((path.relative_to(root).as_posix(), info, path))
    for name in git_files:
        path = root / ".git" / name
        with contextlib.suppress(OSError):
            info = path.lstat()
            if stat.S_ISREG(info.st_mode):
                found.append((f".git/{name}", info, path))
    yield from sorted(found, key=lambda item: item[0])


def inputs_key(
    root: Path,
    argv: list[str],
    env: Mapping[str, str],
    *,
    keyed_env: Iterable[str] = KEYED_ENV,
    facts: Iterable[str] = (),
    git_files: Iterable[str] = (),
) -> tuple[str, Manifest]:
    """The call's key, and the project's files as they are before it (with ``git_files``,
    which the run may write, in the manifest but not in the key). ``facts``: more of what
    the run depends on."""
    digest = hashlib.sha256()
    # The project's own path is marked, as in kept runs: two copies that differ only in where
    # they are (the compiler's input lists name it) are the same inputs.
    root_text = str(root)
    mark = root_text.encode()
    digest.update(json.dumps([arg.replace(root_text, "\0") for arg in argv]).encode())
    for name in keyed_env:
        digest.update(f"\0{name}={env.get(name, '').replace(root_text, '')}".encode())
    for fact in facts:
        digest.update(f"\0{fact}".encode())
    manifest: Manifest = {}
    files = []
    for rel, info, path in _walk(root, git_files):  # git files: in the manifest, not the key
        if rel.startswith(".git/"):
            manifest[rel] = (info.st_size, info.st_mtime_ns)
        else:
            files.append((rel, info, path))
    # Dense ranks: equal mtimes share one, so "newer than" answers the same in two copies
    # exactly when their ranks are equal file by file.
    times = sorted({info.st_mtime_ns for _, info, _ in files})
    ranks = {ns: rank for rank, ns in enumerate(times)}
    for rel, info, path in files:
        manifest[rel] = (info.st_size, info.st_mtime_ns)
        rank = ranks[info.st_mtime_ns]
        digest.update(f"\0{rel}\0{info.st_mode:o}\0{info.st_size}\0{rank}\0".encode())
        if stat.S_ISLNK(info.st_mode):
            digest.update(os.readlink(path).encode())
        else:
            digest.update(hashlib.sha256(path.read_bytes().replace(mark, ROOT_MARK)).digest())
    return digest.hexdigest()[:32], manifest


def _real_program(name: str, shim_dir: Path) -> str | None:
    """The first ``name`` on PATH after the shim's own."""
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if not entry or Path(entry).resolve() == shim_dir.resolve():
            continue
        candidate = Path(entry) / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def _run_real(command: list[str]) -> tuple[int, list[tuple[int, bytes]]]:
    """The real program, its output passed through as it comes and kept in order. A SIGTERM
    or SIGINT for the shim (./mvnw passes its own on) goes on to the program."""
    chunks: list[tuple[int, bytes]] = []
    lock = threading.Lock()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda signum, _frame: child.send_signal(signum))

    def pump(stream: int, source: object) -> None:
        sink = (sys.stdout if stream == 1 else sys.stderr).buffer
        for chunk in iter(lambda: source.read1(65536), b""):  # type: ignore[attr-defined]
            with lock:
                chunks.append((stream, chunk))
                sink.write(chunk)
                sink.flush()

    pumps = [
        threading.Thread(target=pump, args=(1, child.stdout)),
        threading.Thread(target=pump, args=(2, child.stderr)),
    ]
    for thread in pumps:
        thread.start()
    for thread in pumps:
        thread.join()
    return child.wait(), chunks


def _keep(
    entry: Path,
    root: Path,
    before: Manifest,
    status: int,
    chunks: list[tuple[int, bytes]],
    git_files: Iterable[str] = (),
) -> None:
    """What the run changed in ``root``, with the project's path marked, into ``entry``."""
    mark = str(root).encode()
    files = entry / "files"
    after: set[str] = set()
    for rel, info, path in _walk(root, git_files):
        after.add(rel)
        if before.get(rel) == (info.st_size, info.st_mtime_ns) or stat.S_ISLNK(info.st_mode):
            continue
        kept = files / rel
        kept.parent.mkdir(parents=True, exist_ok=True)
        kept.write_bytes(path.read_bytes().replace(mark, ROOT_MARK))
        kept.chmod(stat.S_IMODE(info.st_mode))
    outcome = {
        "status": status,
        "deleted": sorted(set(before) - after),
        "output": [[stream, chunk.replace(mark, ROOT_MARK).hex()] for stream, chunk in chunks],
    }
    (entry / "outcome.json").write_text(json.dumps(outcome), encoding="utf-8")


def _restore(entry: Path, root: Path) -> int:
    """Write the kept run's files afresh into ``root``, print its output; its exit status."""
    mark = str(root).encode()
    outcome = json.loads((entry / "outcome.json").read_text(encoding="utf-8"))
    for rel in outcome["deleted"]:
        with contextlib.suppress(FileNotFoundError):
            (root / rel).unlink()
    files = entry / "files"
    if files.is_dir():
        for kept in sorted(p for p in files.rglob("*") if p.is_file()):
            target = root / kept.relative_to(files)
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.is_symlink():
                target.unlink()
            target.write_bytes(kept.read_bytes().replace(ROOT_MARK, mark))
            target.chmod(stat.S_IMODE(kept.stat().st_mode))
    for stream, chunk in outcome["output"]:
        sink = (sys.stdout if stream == 1 else sys.stderr).buffer
        sink.write(bytes.fromhex(chunk).replace(ROOT_MARK, mark))
        sink.flush()
    return int(outcome["status"])


@contextlib.contextmanager
def _locked(path: Path, mode: int) -> Iterator[None]:
    with path.open("a") as handle:
        fcntl.flock(handle, mode)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _log(
    store: Path,
    engine: str,
    how: str,
    key: str,
    argv: list[str],
    seconds: float,
    program: str,
) -> None:
    line = json.dumps(
        {
            "engine": engine,
            "how": how,
            "key": key,
            "argv": argv,
            "seconds": round(seconds, 3),
            "program": program,
        }
    )
    with _locked(store / "ledger.lock", fcntl.LOCK_EX), (store / LEDGER).open("a") as ledger:
        ledger.write(line + "\n")


def _shared_run(
    program: str,
    command: list[str],
    root: Path,
    key: str,
    before: Manifest,
    git_files: Iterable[str] = (),
) -> int:
    """Run ``command`` for real, or take the other engine's run of the same key (the n-th
    call of each engine pairs with the other's n-th); its exit status."""
    started = time.monotonic()
    store = Path(os.environ[STORE_ENV])
    engine = os.environ[ENGINE_ENV]
    argv = command[1:]
    folder = store / key
    folder.mkdir(exist_ok=True)
    with _locked(folder / "claim.lock", fcntl.LOCK_EX):
        counter = folder / f"{engine}.count"
        nth = int(counter.read_text()) + 1 if counter.exists() else 1
        counter.write_text(str(nth))
        theirs = sorted(
            p for p in folder.glob(f"*-{nth}") if p.is_dir() and p.name != f"{engine}-{nth}"
        )
        if not theirs:
            mine = folder / f"{engine}-{nth}"
            mine.mkdir()
            # Taken before the claim is visible and held to the end of the run: the other
            # engine's identical call waits on it.
            run_lock = (folder / f"{mine.name}.lock").open("a")
            fcntl.flock(run_lock, fcntl.LOCK_EX)
    if not theirs:
        with run_lock:
            status, chunks = _run_real(command)
            if status >= 0:  # a run cut off by a signal is kept for no one
                _keep(mine, root, before, status, chunks, git_files)
                (mine / "done").touch()
        _log(store, engine, "real", key, argv, time.monotonic() - started, program)
        return status if status >= 0 else 128 - status
    producer = theirs[0]
    with _locked(folder / f"{producer.name}.lock", fcntl.LOCK_SH):
        ready = (producer / "done").exists()
    if not ready:  # the other engine's run was cut off before it kept anything: run for real
        status, _chunks = _run_real(command)
        _log(store, engine, "real", key, argv, time.monotonic() - started, program)
        return status
    status = _restore(producer, root)
    _log(store, engine, "restored", key, argv, time.monotonic() - started, program)
    return status


def shim(argv: list[str]) -> int:
    """``mvn ARGS``: the project is the folder it runs in (./mvnw changes into it)."""
    mvn = _real_program("mvn", Path(os.environ[SHIM_ENV]))
    if mvn is None:
        print("mvn (Hook Lab's shared run): no real mvn on PATH after the shim", file=sys.stderr)
        return 127
    root = Path.cwd()
    key, before = inputs_key(root, argv, os.environ)
    return _shared_run("mvn", [mvn, *argv], root, key, before)


def smoke_shim(bash: str, argv: list[str]) -> int:
    """``bash .../.claude/hooks/smoke.sh ARGS``: the project is the one the script belongs to,
    as smoke.sh itself finds it."""
    script = Path(argv[0])
    root = (Path.cwd() / script).resolve().parent.parent.parent
    named = os.environ.get("CLAUDE_PROJECT_DIR")
    if not (root / ".git").is_dir() or (named and Path(named).resolve() != root):
        # Its record lands where this share keeps nothing (a worktree's git dir, another
        # project): no share.
        os.execv(bash, [bash, *argv])
    shims = Path(os.environ[SHIM_ENV])

    def git(*args: str) -> str:
        # Not harness.proc: this file runs as the shim, on the standard library alone.
        return subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True
        ).stdout.strip()

    base = root / ".git" / "aiup-session-base"
    # What the record reads of git besides the files: the commits it compares with and the
    # index by content (its stat fields differ between two copies of one project).
    index = hashlib.sha256(git("ls-files", "--stage").encode()).hexdigest()
    facts = [
        f"cwd={os.path.relpath(Path.cwd(), root)}",
        f"head={git('rev-parse', '-q', '--verify', 'HEAD')}",
        f"index={index}",
        f"session-base={base.read_text() if base.is_file() else '-'}",
        *(f"{tool}={_real_program(tool, shims)}" for tool in SMOKE_TOOLS),
    ]
    keyed = sorted(
        {name for name in os.environ if name.startswith("AIUP_")} | {"CLAUDE_PROJECT_DIR"}
    )
    key, before = inputs_key(
        root, argv, os.environ, keyed_env=keyed, facts=facts, git_files=SMOKE_GIT_FILES
    )
    return _shared_run("smoke.sh", [bash, *argv], root, key, before, SMOKE_GIT_FILES)


def main(argv: list[str]) -> int:
    if argv[:1] == [SMOKE_FLAG]:
        return smoke_shim(argv[1], argv[2:])
    return shim(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
