"""Shared fixtures. Workspaces are real: the fixture copied and committed with dulwich."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import signal
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.builders import REPO_ROOT
from tests.recorded_sessions import Played

if TYPE_CHECKING:  # for the annotation only: this file imports harness inside its fixtures
    from harness.workspace import Workspace

# A shell starts a background job (`cmd &` without job control) with SIGINT ignored, and an
# ignored signal stays ignored across exec: every process a test started would then shrug off
# the Ctrl-C the interruption tests send. A participant's terminal never ignores it, so the
# suite restores the terminal's disposition (a handler, unlike SIG_IGN, is reset on exec).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# Tests that share something machine-wide, so no two may run at once: each group runs on one
# pytest-xdist worker (--dist loadgroup), beside the independent tests on the others.
SHARED_RESOURCES = {
    "docker": "the Docker engine, the local image and the hooklab-m2 volume",
    "differential": "build/differential.json, written whole from every case of the suite",
}
# Fixtures wider than one test are built once per worker. The users of each such fixture are
# grouped onto one worker (so a package build, a bootstrapped checkout or a real-client
# session is made once per run, not once per worker), except for these: cheap enough, or used
# by so much of the suite that every worker builds its own.
PER_WORKER_FIXTURES = {
    "_isolated_home": "every test's fake HOME",
    "fixture_root": "a path",
    "_compiled_template": "the provisioned, compiled workspace nearly every test copies",
    "_participant_template": "a copy of that workspace with a few edits",
    "_provisioned_template": "a provisioned, uncompiled workspace (fresh_workspace copies it)",
}
# The previous run's JUnit report: its durations order the work longest first (see below).
PREVIOUS_RESULTS = REPO_ROOT / "build" / "test-results" / "pytest.xml"


def _shared_fixtures(item: pytest.Item) -> list[str]:
    """The fixtures wider than a test that ``item`` uses (directly or through another), each
    named with the module or folder that defines it; plugins' own fixtures left out."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return []
    shared = []
    for name in getattr(item, "fixturenames", ()):
        definitions = info.name2fixturedefs.get(name)
        if not definitions or name in PER_WORKER_FIXTURES:
            continue
        definition = definitions[-1]
        if definition.scope != "function" and definition.baseid:
            shared.append(f"{name} of {definition.baseid}")
    return shared


def _groups(items: list[pytest.Item]) -> dict[str, str]:
    """Each item's xdist group by nodeid: a shared resource, a serial mark, or the union of the
    tests that share a wider fixture (transitively, so one group holds all who share)."""
    parent: dict[str, str] = {}

    def find(label: str) -> str:
        while parent.setdefault(label, label) != label:
            label = parent[label]
        return label

    def union(first: str, second: str) -> None:
        a, b = find(first), find(second)
        if a != b:
            # A named group (a resource, a serial mark) keeps its name.
            keep, drop = (a, b) if not a.startswith("fixture:") else (b, a)
            parent[drop] = keep

    labels: dict[str, list[str]] = {}
    for item in items:
        own = []
        if item.get_closest_marker("docker"):
            own.append("docker")
        elif item.nodeid.startswith("tests/differential/test_differential.py"):
            own.append("differential")
        elif (serial := item.get_closest_marker("serial")) is not None:
            own.append(str(serial.args[0]) if serial.args else "serial")
        own += [str(m.args[0] if m.args else "default") for m in item.iter_markers("xdist_group")]
        own += [f"fixture:{name}" for name in _shared_fixtures(item)]
        for label in own[1:]:
            union(own[0], label)
        labels[item.nodeid] = own
    return {nodeid: find(own[0]) for nodeid, own in labels.items() if own}


def _previous_durations() -> dict[str, float]:
    """Seconds per test from the last run's report (empty on a first run or a bad file)."""
    import xml.etree.ElementTree as ElementTree

    try:
        root = ElementTree.parse(PREVIOUS_RESULTS).getroot()
    except (OSError, ElementTree.ParseError):
        return {}
    return {
        f"{case.get('classname')}::{case.get('name')}": float(case.get("time") or 0)
        for case in root.iter("testcase")
    }


def _report_key(item: pytest.Item) -> str:
    """The item as the JUnit report names it: dotted module (and class), then the test."""
    module, *rest = item.nodeid.split("::")
    return ".".join([module.removesuffix(".py").replace("/", "."), *rest[:-1]]) + "::" + rest[-1]


def _longest_first(items: list[pytest.Item], groups: dict[str, str]) -> None:
    """Order the work units (a group, or a test on its own) by their seconds in the previous
    run, longest first, so no worker is left alone with a long one at the end; a unit's tests
    keep their order. Without a previous run, a unit's size stands in for its time."""
    durations = _previous_durations()
    units: dict[str, list[pytest.Item]] = {}
    for item in items:
        units.setdefault(groups.get(item.nodeid, item.nodeid), []).append(item)

    def cost(unit: list[pytest.Item]) -> float:
        return sum(durations.get(_report_key(item), 1.0) for item in unit)

    items[:] = [item for unit in sorted(units.values(), key=cost, reverse=True) for item in unit]


# Where the workers leave each test's group for the controller's scheduler (see below).
GROUPS_FILE = "HOOKLAB_TEST_GROUPS"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    groups = _groups(items)
    for item in items:
        if item.nodeid in groups:
            item.add_marker(pytest.mark.xdist_group(groups[item.nodeid]))
    # Only on xdist's workers (they all read the same report, so they agree on the order): a
    # plain run keeps the order the files are written in.
    if os.environ.get("PYTEST_XDIST_WORKER"):
        _longest_first(items, groups)
        if path := os.environ.get(GROUPS_FILE):
            # Every worker computes the same; each replaces the file whole.
            partial = f"{path}.{os.environ['PYTEST_XDIST_WORKER']}"
            Path(partial).write_text(json.dumps(groups))
            os.replace(partial, path)


def pytest_configure(config: pytest.Config) -> None:
    # The controller of a --dist loadgroup run: its workers inherit where to leave the groups.
    if _groups_by_conftest(config):
        handle, path = tempfile.mkstemp(prefix="hooklab-test-groups-", suffix=".json")
        os.close(handle)
        os.environ[GROUPS_FILE] = path
    if not hasattr(config, "workerinput"):
        _maven_memo(config)


# The whole run's Maven memo (harness/maven/memo.py): HOOKLAB_TEST_MAVEN_MEMO=0 runs every
# Maven call for real; a HOOKLAB_MAVEN_MEMO set before the run is used and kept (its ledger
# lists each call, real or restored, and the test that made it).
MEMO_OFF = "HOOKLAB_TEST_MAVEN_MEMO"
MEMO_MADE: pytest.StashKey[Path] = pytest.StashKey()


def _maven_memo(config: pytest.Config) -> None:
    """One memo for the run, its workers and every process they start: its folder in the
    environment, its mvn shim first on PATH. Made here, in the process that starts the
    workers, so that they inherit both."""
    from harness.maven.memo import MEMO_ENV, memo_shim_dir
    from harness.paths import memory_backed_tmp

    if os.environ.get(MEMO_OFF) == "0":
        return
    if not os.environ.get(MEMO_ENV):
        memory = memory_backed_tmp(min_free=TEST_MEMO_MIN_FREE)
        made = Path(tempfile.mkdtemp(prefix="hooklab-maven-memo-", dir=memory))
        config.stash[MEMO_MADE] = made
        os.environ[MEMO_ENV] = str(made)
    os.environ["PATH"] = f"{memo_shim_dir()}{os.pathsep}{os.environ.get('PATH', '')}"


TEST_MEMO_MIN_FREE = 2 * 1024**3  # its kept runs: about 0.3 MB each, some hundreds a run


def pytest_unconfigure(config: pytest.Config) -> None:
    if _groups_by_conftest(config) and (path := os.environ.pop(GROUPS_FILE, None)):
        Path(path).unlink(missing_ok=True)
    if made := config.stash.get(MEMO_MADE, None):
        shutil.rmtree(made, ignore_errors=True)


def _groups_by_conftest(config: pytest.Config) -> bool:
    worker = hasattr(config, "workerinput")
    return not worker and getattr(config.option, "dist", "no") == "loadgroup"


@pytest.hookimpl(optionalhook=True)  # a hook of xdist's: without it, never called
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """--dist loadgroup with the groups above. xdist 3.8 tells its scheduler a test's group by
    renaming the test (``nodeid@group``), which pytest 9 no longer lets a plugin do: so the
    workers write the groups to a file and this scheduler reads them from there."""
    if not _groups_by_conftest(config):
        return None
    from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

    path = Path(os.environ[GROUPS_FILE])

    class GroupScheduling(LoadScopeScheduling):  # type: ignore[misc]
        groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:
                # Read once every worker has collected (the scheduler splits only then).
                text = path.read_text() if path.is_file() else ""
                self.groups = json.loads(text) if text else {}
            return self.groups.get(nodeid, nodeid)

    return GroupScheduling(config, log)


def _cpu_seconds() -> float:
    """CPU-seconds so far of this process, of the children it has waited for, and of the
    panes of the tmux servers its tests killed (tests/builders.py: PANES_CPU)."""
    import resource

    from tests.builders import PANES_CPU

    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime + PANES_CPU[0]


CPU_AT_SETUP = pytest.StashKey[float]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    item.stash[CPU_AT_SETUP] = _cpu_seconds()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Each test's CPU-seconds, its fixtures' included, beside its time in the JUnit report
    (property cpu_seconds): on two busy cores a test's time says little of its cost, and a
    test that mostly waits (on a client, a timeout) is one to overlap, not one to cut. Only
    processes the test's own process waited for count, and the panes of the tmux servers it
    killed through tests/builders.tmux: not what Docker or the client's own terminal ran."""
    if call.when == "teardown" and CPU_AT_SETUP in item.stash:
        spent = _cpu_seconds() - item.stash[CPU_AT_SETUP]
        item.user_properties.append(("cpu_seconds", f"{spent:.2f}"))
    yield


@pytest.fixture(autouse=True, scope="session")
def _isolated_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Keep tests away from the real $HOME (git config, ~/.m2, docker config)."""
    real_home = os.environ.get("HOME")
    # The pinned Claude Code client lives in the user's cache; keep finding it there.
    from harness.paths import cache_home

    os.environ.setdefault("HOOKLAB_CACHE", str(cache_home()))
    # Throwaway copies and the transcripts `lab simulate` keeps land among the tests' own
    # folders (in memory under nox), not in the machine's /dev/shm, where they would outlast
    # the run.
    own_scratch = "HOOKLAB_SCRATCH" not in os.environ
    os.environ.setdefault("HOOKLAB_SCRATCH", str(tmp_path_factory.mktemp("scratch")))
    fake_home = tmp_path_factory.mktemp("home")
    os.environ["HOME"] = str(fake_home)
    # Claude Code's own state (sessions, settings, login) of whoever runs the tests is never
    # read or written: the client's config root points into the fake home too.
    real_claude_config = os.environ.get("CLAUDE_CONFIG_DIR")
    os.environ["CLAUDE_CONFIG_DIR"] = str(fake_home / ".claude")
    # Tests commit with git; give them an identity that never leaks into the real config.
    os.environ.setdefault("GIT_AUTHOR_NAME", "Hook Lab Tests")
    os.environ.setdefault("GIT_AUTHOR_EMAIL", "tests@hooklab.invalid")
    os.environ.setdefault("GIT_COMMITTER_NAME", "Hook Lab Tests")
    os.environ.setdefault("GIT_COMMITTER_EMAIL", "tests@hooklab.invalid")
    os.environ.pop("NO_COLOR", None)
    # pytest-xdist's workers inherit COLUMNS=80 and LINES=24 from execnet; a plain run has
    # neither. Tests that care about the width set COLUMNS themselves, so every run sees the
    # same terminal whatever the runner.
    os.environ.pop("COLUMNS", None)
    os.environ.pop("LINES", None)
    yield
    if own_scratch:
        os.environ.pop("HOOKLAB_SCRATCH", None)
    if real_home is not None:
        os.environ["HOME"] = real_home
    if real_claude_config is None:
        os.environ.pop("CLAUDE_CONFIG_DIR", None)
    else:
        os.environ["CLAUDE_CONFIG_DIR"] = real_claude_config


def real_home_in_use() -> str | None:
    """What of HOME and CLAUDE_CONFIG_DIR points at the real home of whoever runs the tests
    (None: neither): there a session would read or write their own ~/.claude."""
    home = Path(os.environ["HOME"])
    config = Path(os.environ.get("CLAUDE_CONFIG_DIR", home / ".claude"))
    real = Path(pwd.getpwuid(os.getuid()).pw_dir)
    if home.resolve() == real.resolve():
        return f"HOME={home}"
    if config.resolve() == (real / ".claude").resolve():
        return f"CLAUDE_CONFIG_DIR={config}"
    return None


@pytest.fixture(autouse=True)
def _no_real_claude_config() -> Iterator[None]:
    """Each test runs with HOME and CLAUDE_CONFIG_DIR in temporary directories, never the
    real ones. A test that leaves them pointing home fails, loudly, by name (the fake ones
    are put back for the tests after it); a test that starts so fails too."""
    before = {name: os.environ.get(name) for name in ("HOME", "CLAUDE_CONFIG_DIR")}
    found = real_home_in_use()
    if found:
        fake = Path(tempfile.mkdtemp(prefix="hooklab-home-"))  # the tests after this one
        os.environ["HOME"], os.environ["CLAUDE_CONFIG_DIR"] = str(fake), str(fake / ".claude")
        pytest.fail(f"{found} points at the real home before this test: a test or plugin set it")
    yield
    found = real_home_in_use()
    if found:
        for name, value in before.items():
            if value is not None:
                os.environ[name] = value
        pytest.fail(f"this test left {found} pointing at the real home; the tests never do")


@pytest.fixture(scope="session")
def fixture_root() -> Path:
    root = REPO_ROOT / "petclinic_fixture"
    if not (root / "pom.xml").is_file():
        pytest.fail("petclinic_fixture/pom.xml is missing")
    return root


@pytest.fixture(scope="session")
def _compiled_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from harness.maven import get_backend
    from harness.maven.warm import warm_workspace
    from harness.workspace import provision

    root = provision(tmp_path_factory.mktemp("template") / "ws").workspace.root
    # Compiled as `lab init` leaves a workspace (from the shared cache after the first time).
    warm_workspace(root, get_backend("local"))
    return root


@pytest.fixture(scope="session")
def _provisioned_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from harness.workspace import provision

    return provision(tmp_path_factory.mktemp("provisioned") / "ws").workspace.root


@pytest.fixture
def fresh_workspace(tmp_path: Path, _provisioned_template: Path) -> Callable[[str], Workspace]:
    """``fresh_workspace(name)``: a PetClinic workspace as ``lab init`` leaves it before any
    compile, at ``tmp_path/name``: a copy of one provisioned per worker (provision's git
    commit and pack take 20-30 times a copy's time), each copy a workspace of its own."""
    from harness.workspace import Workspace

    def fresh(name: str) -> Workspace:
        root = tmp_path / name
        shutil.copytree(_provisioned_template, root, symlinks=True)
        return Workspace(root)

    return fresh


@pytest.fixture
def workspace(tmp_path: Path, _compiled_template: Path) -> Workspace:
    """A fresh provisioned workspace (a copy of one provisioned per session, .git included)."""
    from harness.workspace import Workspace

    root = tmp_path / "ws"
    shutil.copytree(_compiled_template, root, symlinks=True)
    return Workspace(root)


def require_real_client() -> None:
    """Skip a test that needs the real Claude Code client when it is not installed here, but
    fail in CI, where .ci/run installs it: a skipped real-client test proves nothing."""
    from harness.claude.client.install import find_client, wanted_version

    if find_client() is not None:
        return
    message = f"Claude Code {wanted_version()} is not installed (lab doctor --fix installs it)"
    if os.environ.get("CI"):
        pytest.fail(message + "; CI must install it")
    pytest.skip(message)


@pytest.fixture(scope="session")
def recorded(
    tmp_path_factory: pytest.TempPathFactory, _compiled_template: Path
) -> Callable[[str], Played]:
    """Sessions played on the real client (tests/recorded_sessions.py), each once per run, in
    a workspace of its own; the transcript stays in that session's own config directory."""
    from tests.recorded_sessions import play

    require_real_client()
    played: dict[str, Played] = {}

    def get(name: str) -> Played:
        if name not in played:
            base = tmp_path_factory.mktemp(f"recorded-{name}")
            root = base / "ws"
            shutil.copytree(_compiled_template, root, symlinks=True)
            played[name] = play(name, root, base / "claude-config")
        return played[name]

    return get


@pytest.fixture(params=["emulator", "claude-code"])
def engine(request: pytest.FixtureRequest) -> str:
    """Both engines: the emulator and the real client, for tests that must hold on each."""
    name = str(request.param)
    if name == "claude-code":
        require_real_client()
    return name


@pytest.fixture(autouse=True)
def _own_quiz_record(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Each test its own state folder (harness/engine/quiz_record.py): a wrong quiz try of one
    test never makes another wait."""
    before = os.environ.get("HOOKLAB_STATE")
    os.environ["HOOKLAB_STATE"] = str(tmp_path_factory.mktemp("state"))
    yield
    if before is None:
        os.environ.pop("HOOKLAB_STATE", None)
    else:
        os.environ["HOOKLAB_STATE"] = before
