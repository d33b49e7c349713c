"""verify-hook in the participant's own repository (a plain git repository with the Russian
seed's Stop hook, never provisioned by Hook Lab): the timeout its settings register, the
explanation of the seed's `--runInBand` failure, and a repository left as it was."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.builders import REPO_ROOT, git, run_cli

pytestmark = [pytest.mark.slow]


def own_node_project(where: Path) -> Path:
    """The seed's Node project as a person has it: their own git repository, one commit."""
    root = where / "shop"
    shutil.copytree(REPO_ROOT / "node_fixture", root, ignore=shutil.ignore_patterns("dist"))
    (root / "fixture.toml").unlink()
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "my project")
    return root


def grade(root: Path, *extra: str) -> tuple[int, dict[str, object], str]:
    done = run_cli(
        "verify-hook",
        "scripts/check-before-stop.sh",
        "--break",
        "rm -f dist/app.js",
        "--fix",
        "npm run build",
        "--json",
        *extra,
        cwd=root,
    )
    return done.code, json.loads(done.out), done.err


def test_the_registered_timeout_and_the_failing_command_not_a_loop(tmp_path: Path) -> None:
    root = own_node_project(tmp_path)
    code, report, err = grade(root)
    assert code == 1
    assert report["timeout"] == 30
    assert report["timeout_source"] == ".claude/settings.json: hooks.Stop[0].hooks[0]"
    assert report["copy"] is True and "works on a throwaway copy" in " ".join(err.split())
    checks = {c["name"]: c for c in report["checks"]}  # type: ignore[attr-defined]
    passes = checks["passes-when-fixed"]
    assert passes["status"] == "fail"
    assert passes["problem"] == "blocks although fixed"
    assert passes["found"].endswith("; `npm test -- --runInBand` fails")
    assert "node: bad option: --runInBand" in passes["detail"]
    assert "lets go on stop_hook_active" in passes["detail"]
    assert "cap" not in passes["detail"] and "loop" not in passes["detail"]
    assert checks["lets-go-when-active"]["status"] == "pass"
    # The repository is as it was: no dist/, nothing changed, nothing new.
    assert git(root, "status", "--porcelain", "--ignored") == ""


def test_a_given_timeout_wins_and_the_fixed_hook_passes(tmp_path: Path) -> None:
    root = own_node_project(tmp_path)
    hook = root / "scripts" / "check-before-stop.sh"
    hook.write_text(hook.read_text().replace("npm test -- --runInBand", "npm test"))
    code, report, _err = grade(root, "--timeout", "25")
    assert code == 0, report["summary"]
    assert report["timeout"] == 25 and report["timeout_source"] == "given (--timeout)"


def test_a_hook_that_ignores_stop_hook_active_is_told_about_the_cap(tmp_path: Path) -> None:
    root = own_node_project(tmp_path)
    hook = root / "scripts" / "check-before-stop.sh"
    hook.write_text(hook.read_text().replace('if [ "$active" = "true" ]; then', "if false; then"))
    _code, report, _err = grade(root)
    checks = {c["name"]: c for c in report["checks"]}  # type: ignore[attr-defined]
    assert "cap of 9" in checks["passes-when-fixed"]["detail"]
    assert "`npm test -- --runInBand`" in checks["passes-when-fixed"]["detail"]


def test_simulate_in_a_repository_without_settings_is_refused_with_the_fix(
    tmp_path: Path,
) -> None:
    root = own_node_project(tmp_path)
    shutil.rmtree(root / ".claude")
    (root / "s.toml").write_text('[[step]]\ndo = "stop"\n')
    done = run_cli("simulate", "s.toml", "--project", str(root), cwd=root)
    assert done.code == 1
    assert "has no .claude/settings.json" in done.err and "lab init DIR" in done.err


@pytest.fixture
def recorded_in_own_repository(tmp_path: Path) -> tuple[Path, Path]:
    """A real Claude Code session (the pinned client, scripted model) in a plain git repository
    with the seed's hook: Claude says done, the hook holds the turn (its --runInBand check
    fails), Claude stops again and the hook lets go. The transcript lands in ``config``."""
    from harness.claude.engines import open_session
    from tests.conftest import require_real_client

    require_real_client()
    root = own_node_project(tmp_path)
    config = tmp_path / "claude-home"
    with open_session("claude-code", root, transcript_dir=config) as session:
        session.session_start()
        session.prompt("Say done.")
        session.stop("Done.")
        session.stop("The hook still fails; stopping.")
    return root, config


def replay_json(root: Path, config: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, dict]:  # type: ignore[type-arg]
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    done = run_cli("replay", "--latest", "--engine", "both", "--json", cwd=root)
    assert "works on a throwaway copy" in done.err
    return done.code, json.loads(done.out)


def test_replay_of_a_held_session_in_a_plain_repository_on_both_engines(
    recorded_in_own_repository: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, config = recorded_in_own_repository
    code, report = replay_json(root, config, monkeypatch)
    assert code == 0, report
    stops = [row for row in report["rows"] if row["kind"] == "stop"]
    assert [row["recorded"] for row in stops][:2] == ["blocked by check-before-stop.sh", "allowed"]
    assert git(root, "status", "--porcelain", "--ignored") == ""


def test_an_uncommitted_change_of_the_hook_to_exit_1_is_named_as_a_divergence(
    recorded_in_own_repository: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, config = recorded_in_own_repository
    hook = root / "scripts" / "check-before-stop.sh"
    hook.write_text("#!/bin/sh\nexit 1\n")
    code, report = replay_json(root, config, monkeypatch)
    assert code == 1
    differs = [r for r in report["rows"] if r["kind"] == "stop" and False in r["agrees"].values()]
    assert differs, report["rows"]
    assert hook.read_text() == "#!/bin/sh\nexit 1\n"  # the change is the person's: kept


def test_simulate_in_a_plain_repository_plays_on_a_copy(tmp_path: Path) -> None:
    root = own_node_project(tmp_path)
    scenario = tmp_path / "held.toml"
    scenario.write_text(
        '[[step]]\ndo = "write"\nfile = "NOTES.md"\ncontent = "a note"\n'
        '[[step]]\ndo = "stop"\nexpect = "blocked"\n'
    )
    done = run_cli("simulate", str(scenario), "--json", cwd=root)
    assert done.code == 0, done
    assert "lab simulate works on a throwaway copy of it." in done.err
    steps = [json.loads(line) for line in done.out.splitlines()]
    assert "Stop check blocked" in steps[-1]["feedback"]
    assert not (root / "NOTES.md").exists()
    assert git(root, "status", "--porcelain", "--ignored") == ""


def test_a_command_of_a_pipeline_is_never_named_as_the_failing_check() -> None:
    """bash -x traces a pipeline's commands in the order they started; under load Lab 07's
    solution once had its report-reading grep traced last, and run alone (no input) it
    failed, so the grader blamed it. A part of a pipeline is no check to run alone."""
    from harness.grading.registration import _last_check

    source = (
        "attribute() {\n"
        "    tr '\\n' ' ' <\"$1\" | grep -o '<testsuite [^>]*>' | head -n 1 |\n"
        '        sed -n "s/.* $2=\\"\\([0-9]*\\)\\".*/\\1/p"\n'
        "}\n"
        "test -s target/report.xml\n"
    )
    trace = (
        "+ test -s target/report.xml\n"
        "+ attribute target/report.xml failures\n"
        "+ head -n 1\n"
        "+ tr '\\n' ' '\n"
        "+ grep -o '<testsuite [^>]*>'\n"
        "+ failures=1\n"
        "+ echo 'Stop check blocked: red'\n"
        "+ exit 2\n"
    )
    assert _last_check(trace, {"attribute"}, source) == "test -s target/report.xml"
    # Written on its own somewhere, the same command is a check again.
    alone = source + "grep -o '<testsuite [^>]*>' target/report.xml\n"
    assert _last_check(trace, {"attribute"}, alone) == "grep -o '<testsuite [^>]*>'"
