"""The test suite's Maven memo: an identical ``mvn`` call of an earlier test, restored.

The tests play some lab states again and again: a parametrized test sets up the same labs
once per terminal width, several tests solve the same step before their trick. With
``HOOKLAB_MAVEN_MEMO`` naming a folder (tests/conftest.py sets it for one pytest run; the
product never does), the ``mvn`` shim this file is, first on PATH, keys every call as the dev
check's share does (harness/maven/share.py: its arguments, every file of the project but
``.git`` by path, mode, content and mtime rank), plus the Maven and Java it would start and
the settings they read, and restores an identical earlier call's files (written afresh, as a
run ending now), output and exit status instead of running it again. Any byte, name, mode or
mtime order of the project that differs, another switch or Maven setting, is a real run, so
a test's changed file is never passed by another test's run. It stands in for Maven only:
./mvnw, the hooks and the checks all run for real around it. Without the folder (a jail that
clears the environment) the shim runs the real mvn and keys nothing.

Reports are not deterministic (their test times), and the checks rely on it: reports byte for
byte equal to a run a check read before in that workspace are no new run. So a kept run is
restored only into a project it never served (made in or restored into); a second identical
call there runs Maven. A check's own run on its throwaway copy, whose reports no one notes,
takes it freely (``HOOKLAB_MAVEN_THROWAWAY``).

This file runs as the shim itself (``python memo.py ARGS``), on the standard library and
share.py alone.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import stat
import sys
import time
from collections.abc import Mapping
from pathlib import Path

if __package__:
    from harness.maven import share
else:  # run as the shim: share.py beside this file, as a module of its own
    sys.path.insert(0, str(Path(__file__).parent))
    import share  # type: ignore[import-not-found,no-redef]

MEMO_ENV = "HOOKLAB_MAVEN_MEMO"
# Set by a check for its own run on a throwaway copy (checks/sensors.py), whose reports only
# that check reads. Any other run (a participant's, in their workspace) is restored only into
# a project this entry never served: a real run's reports differ from every earlier run's in
# their test times, and a check takes reports byte for byte equal to a run it read before in
# that workspace as no new run (Lab 01: reports kept aside and copied back).
THROWAWAY_ENV = "HOOKLAB_MAVEN_THROWAWAY"
MEMO_RECORD_ONLY = "record-only"  # a file in the memo's folder: log every key, restore none
# Environment Maven, the JVM or the wrapper's mvn read (by prefix), beside KEYED_ENV.
_MEMO_ENV_PREFIXES = ("MAVEN", "JAVA", "JDK_", "_JAVA", "M2_", "HOOKLAB_MAVEN", "CLASSPATH")
_MEMO_ENV_NAMES = ("LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "TZ", "HOOKLAB_BACKEND")
_NOT_KEYED = (MEMO_ENV, THROWAWAY_ENV, share.STORE_ENV, share.ENGINE_ENV, share.SHIM_ENV)


def memo_shim_dir() -> Path:
    """The memo's ``mvn`` shim, in a folder under ``maven-share`` (which ``lab`` never takes
    for the participant's Maven), made once and kept like the share's."""
    from harness.paths import cache_home

    here = Path(__file__).resolve()
    text = f"#!/bin/sh\nexec '{sys.executable}' -I -S '{here}' \"$@\"\n"
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    folder = cache_home() / share.SHIMS_PARENT / f"memo-{digest}"
    shim = folder / "mvn"
    if not shim.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / f"mvn.{os.getpid()}.tmp"
        partial.write_text(text, encoding="utf-8")
        partial.chmod(0o755)
        partial.replace(shim)
    return folder


def _file_fact(path: Path) -> str:
    """A file's path and content digest, or that it is absent."""
    try:
        return f"{path}={hashlib.sha256(path.read_bytes()).hexdigest()}"
    except OSError:
        return f"{path}=-"


def _maven_identity(mvn: str, env: Mapping[str, str]) -> list[str]:
    """What of the machine a run depends on beside the project: the Maven and Java it starts
    (paths and contents) and the settings files Maven reads."""
    maven = Path(mvn).resolve()
    java = shutil.which("java") or "-"
    home = Path(env.get("HOME", "/nonexistent"))
    facts = [_file_fact(maven), _file_fact(Path(java).resolve())]
    facts.append(_file_fact(Path(java).resolve().parent.parent / "release"))
    for settings in (
        maven.parent.parent / "conf" / "settings.xml",
        Path("/etc/mavenrc"),
        home / ".mavenrc",
        home / ".m2" / "settings.xml",
        home / ".m2" / "toolchains.xml",
    ):
        facts.append(_file_fact(settings))
    return facts


def _links_out(root: Path) -> bool:
    """A symbolic link in the project that leads out of it: what it reaches is no input the
    key sees, so the call runs for real."""
    inside = root.resolve()
    for _rel, info, path in share._walk(root):
        if stat.S_ISLNK(info.st_mode) and not path.resolve().is_relative_to(inside):
            return True
    return False


def _real_mvn() -> str | None:
    """The first ``mvn`` on PATH after the memo's own folder, and in no shim's folder. After
    it: a logging ``mvn`` a test puts before the memo may exec the one it found (this shim)."""
    entries = os.environ.get("PATH", "").split(os.pathsep)
    own = [
        n
        for n, entry in enumerate(entries)
        if Path(entry).parent.name == share.SHIMS_PARENT and Path(entry).name.startswith("memo-")
    ]
    after = entries[own[-1] + 1 :] if own else entries
    for entry in after:
        candidate = Path(entry) / "mvn"
        if Path(entry).parent.name == share.SHIMS_PARENT or not entry:
            continue
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def memo_shim(argv: list[str]) -> int:
    """``mvn ARGS`` through the memo: the project is the folder it runs in."""
    mvn = _real_mvn()
    if mvn is None:
        print("mvn (Hook Lab's test memo): no real mvn on PATH after the shim", file=sys.stderr)
        return 127
    store = Path(os.environ.get(MEMO_ENV) or "/nonexistent")
    root = Path.cwd()
    if not store.is_dir() or _links_out(root):
        os.execv(mvn, [mvn, *argv])
    keyed = sorted(
        name
        for name in os.environ
        if (name.startswith(_MEMO_ENV_PREFIXES) or name in _MEMO_ENV_NAMES)
        and name not in _NOT_KEYED
    )
    key, before = share.inputs_key(
        root, argv, os.environ, keyed_env=keyed, facts=_maven_identity(mvn, os.environ)
    )
    return _memo_run([mvn, *argv], root, key, before, store)


def _memo_run(command: list[str], root: Path, key: str, before: share.Manifest, store: Path) -> int:
    """An identical call's kept run restored, or the real run, kept when it ended on its own
    (a run cut off by a signal is kept for no one). Two identical calls at once: the second
    waits for the first and takes its run."""
    started = time.monotonic()
    folder = store / key
    folder.mkdir(exist_ok=True)
    throwaway = os.environ.get(THROWAWAY_ENV) == "1"
    record_only = (store / MEMO_RECORD_ONLY).exists()
    served = folder / "served"  # the projects this entry's run was made in or restored into
    with share._locked(folder / "run.lock", fcntl.LOCK_EX):
        seen = served.read_text(encoding="utf-8").splitlines() if served.exists() else []
        fresh_to_it = throwaway or str(root) not in seen
        if (folder / "done").exists() and fresh_to_it and not record_only:
            status, how = share._restore(folder, root), "restored"
            with served.open("a", encoding="utf-8") as out:
                out.write(f"{root}\n")
        else:
            kept = (folder / "done").exists()
            if not kept:  # what a run cut off before its end left
                shutil.rmtree(folder / "files", ignore_errors=True)
            status, chunks = share._run_real(command)
            if status >= 0 and not record_only and not kept:
                share._keep(folder, root, before, status, chunks)
                served.write_text(f"{root}\n", encoding="utf-8")
                (folder / "done").touch()
            status, how = (status if status >= 0 else 128 - status), "real"
    test = os.environ.get("PYTEST_CURRENT_TEST", "").removesuffix(" (call)")
    seconds = round(time.monotonic() - started, 3)
    line = {"how": how, "key": key, "argv": command[1:], "test": test, "seconds": seconds}
    line["throwaway"] = throwaway
    with (
        share._locked(store / "ledger.lock", fcntl.LOCK_EX),
        (store / share.LEDGER).open("a") as ledger,
    ):
        ledger.write(json.dumps(line) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(memo_shim(sys.argv[1:]))
