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
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

STORE_ENV = "HOOKLAB_MAVEN_SHARE"  # the share's folder
ENGINE_ENV = "HOOKLAB_MAVEN_SHARE_AS"  # the engine this session plays on
SHIM_ENV = "HOOKLAB_MAVEN_SHARE_BIN"  # the shim's folder, skipped when looking for the real mvn
# Environment Maven's result depends on.
KEYED_ENV = ("MAVEN_OPTS", "MAVEN_ARGS", "JAVA_HOME", "JAVA_TOOL_OPTIONS", "HOOKLAB_MAVEN_ONLINE")
ROOT_MARK = b"\x00hooklab-maven-share-root\x00"  # the producer's project path, in kept files
LEDGER = "ledger.jsonl"  # one line per call: what ran for real and what was restored


@dataclass(frozen=True)
class Call:
    """One line of the ledger."""

    engine: str
    how: str  # "real" or "restored"
    key: str
    argv: tuple[str, ...]
    seconds: float

    def to_json(self) -> dict[str, object]:
        return {
            "engine": self.engine,
            "how": self.how,
            "argv": list(self.argv),
            "seconds": self.seconds,
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
                Call(raw["engine"], raw["how"], raw["key"], tuple(raw["argv"]), raw["seconds"])
            )
        return calls


def shim_dir() -> Path:
    """The folder of the ``mvn`` shim, made once per Python and Hook Lab install and kept: a
    shared session finds it in place instead of writing a new one."""
    from harness.paths import cache_home

    text = f"#!/bin/sh\nexec '{sys.executable}' -I -S '{Path(__file__).resolve()}' \"$@\"\n"
    folder = cache_home() / "maven-share" / hashlib.sha256(text.encode()).hexdigest()[:16]
    shim = folder / "mvn"
    if not shim.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        # -I -S: the standard library only, whatever the caller's environment holds.
        partial = folder / f"mvn.{os.getpid()}.tmp"
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


def _walk(root: Path) -> Iterator[tuple[str, os.stat_result, Path]]:
    """Every regular file and symlink under ``root`` except ``.git``, sorted by path."""
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
    yield from sorted(found, key=lambda item: item[0])


def inputs_key(root: Path, argv: list[str], env: Mapping[str, str]) -> tuple[str, Manifest]:
    """The call's key, and the project's files as they are before it."""
    digest = hashlib.sha256()
    digest.update(json.dumps(argv).encode())
    for name in KEYED_ENV:
        digest.update(f"\0{name}={env.get(name, '')}".encode())
    manifest: Manifest = {}
    # The project's own path is marked, as in kept runs: two copies that differ only in where
    # they are (the compiler's input lists name it) are the same inputs.
    mark = str(root).encode()
    files = list(_walk(root))
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


def _real_mvn(shim_dir: Path) -> str | None:
    """The first ``mvn`` on PATH after the shim's own."""
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if not entry or Path(entry).resolve() == shim_dir.resolve():
            continue
        candidate = Path(entry) / "mvn"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def _run_real(mvn: str, argv: list[str]) -> tuple[int, list[tuple[int, bytes]]]:
    """Maven itself, its output passed through as it comes and kept in order."""
    chunks: list[tuple[int, bytes]] = []
    lock = threading.Lock()
    child = subprocess.Popen([mvn, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE)

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
    entry: Path, root: Path, before: Manifest, status: int, chunks: list[tuple[int, bytes]]
) -> None:
    """What the run changed in ``root``, with the project's path marked, into ``entry``."""
    mark = str(root).encode()
    files = entry / "files"
    after: set[str] = set()
    for rel, info, path in _walk(root):
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


def _log(store: Path, engine: str, how: str, key: str, argv: list[str], seconds: float) -> None:
    line = json.dumps(
        {"engine": engine, "how": how, "key": key, "argv": argv, "seconds": round(seconds, 3)}
    )
    with _locked(store / "ledger.lock", fcntl.LOCK_EX), (store / LEDGER).open("a") as ledger:
        ledger.write(line + "\n")


def shim(argv: list[str]) -> int:
    started = time.monotonic()
    store = Path(os.environ[STORE_ENV])
    engine = os.environ[ENGINE_ENV]
    mvn = _real_mvn(Path(os.environ[SHIM_ENV]))
    if mvn is None:
        print("mvn (Hook Lab's shared run): no real mvn on PATH after the shim", file=sys.stderr)
        return 127
    root = Path.cwd()
    key, before = inputs_key(root, argv, os.environ)
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
            status, chunks = _run_real(mvn, argv)
            _keep(mine, root, before, status, chunks)
            (mine / "done").touch()
        _log(store, engine, "real", key, argv, time.monotonic() - started)
        return status
    producer = theirs[0]
    with _locked(folder / f"{producer.name}.lock", fcntl.LOCK_SH):
        ready = (producer / "done").exists()
    if not ready:  # the other engine's run was cut off before it kept anything: run for real
        status, _chunks = _run_real(mvn, argv)
        _log(store, engine, "real", key, argv, time.monotonic() - started)
        return status
    status = _restore(producer, root)
    _log(store, engine, "restored", key, argv, time.monotonic() - started)
    return status


if __name__ == "__main__":
    sys.exit(shim(sys.argv[1:]))
