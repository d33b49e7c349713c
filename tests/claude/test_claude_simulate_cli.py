"""`lab simulate` end to end: in-process through main() and as a real process."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.builders import run_cli, run_lab_process
from tests.claude.hookproject import HookProject


def flat(text: str) -> str:
    """The console wraps long error lines; compare words, not line breaks."""
    return " ".join(text.split())


SCENARIO = """
[[step]]
do = "session_start"

[[step]]
do = "prompt"
text = "set UC-003 to Done"

[[step]]
name = "the guard refuses"
do = "edit"
file = "docs/uc.md"
old = "Approved"
new = "Done"
expect = "blocked"

[[step]]
do = "bash"
command = "echo sensors green"
expect = "allowed"

[[step]]
do = "stop"
last_message = "done"
expect = "blocked"

[[step]]
do = "stop"
expect = "allowed"
"""


def setup(project: HookProject) -> None:
    project.file("docs/uc.md", "**Status:** Approved\n")
    project.hook("PreToolUse", 'echo "audit UC-003 first" >&2; exit 2', matcher="Edit|Write")
    project.hook(
        "Stop",
        """
        grep -q '"stop_hook_active":true' && exit 0  # compact JSON, as the client sends
        echo "run the sensors" >&2; exit 2
    """,
    )


def test_json_lines_one_object_per_step(project: HookProject) -> None:
    setup(project)
    scenario = project.root / "scenario.toml"
    scenario.write_text(SCENARIO)
    result = run_cli("simulate", str(scenario), "--json", cwd=project.root / "docs")
    assert result.code == 0, result
    steps = [json.loads(line) for line in result.out.splitlines()]
    assert [s["do"] for s in steps] == ["session_start", "prompt", "edit", "bash", "stop", "stop"]
    edit = steps[2]
    assert edit["outcome"] == "blocked" and edit["tool_ran"] is False
    assert edit["feedback"] == (
        'PreToolUse:Edit hook error: ["$CLAUDE_PROJECT_DIR/.claude/hooks/hook1.sh"]: '
        "audit UC-003 first\n"
    )
    assert edit["expect_met"] is True
    assert edit["name"] == "the guard refuses"
    assert edit["hooks"][0]["event"] == "PreToolUse" and edit["hooks"][0]["exit_code"] == 2
    assert edit["hooks"][0]["timed_out"] is False
    assert steps[4]["stop_hook_active"] is False and steps[4]["turn_ended"] is False
    assert steps[5]["stop_hook_active"] is True and steps[5]["turn_ended"] is True
    for key in ("system_message", "feedback", "tool_ran", "outcome"):
        assert all(key in s for s in steps)
    assert (project.root / "docs" / "uc.md").read_text() == "**Status:** Approved\n"


def test_unmet_expectation_exits_1_naming_the_step(project: HookProject) -> None:
    setup(project)
    scenario = project.root / "scenario.toml"
    scenario.write_text(
        SCENARIO.replace(
            'expect = "blocked"\n\n[[step]]\ndo = "bash"',
            'expect = "allowed"\n\n[[step]]\ndo = "bash"',
        )
    )
    result = run_cli("simulate", str(scenario), cwd=project.root)
    assert result.code == 1, result
    assert "step 3 (edit 'the guard refuses'): expected allowed, got blocked" in flat(result.err)
    assert "Traceback" not in result.err
    assert "BLOCKED" in result.out and "audit UC-003 first" in result.out


def test_bad_scenario_is_a_clear_error(project: HookProject) -> None:
    bad = project.root / "bad.toml"
    bad.write_text('[[step]]\ndo = "edit"\nfile = "x"\nold = "a"\nnew = "b"\nexpect = "maybe"\n')
    result = run_cli("simulate", str(bad), cwd=project.root)
    assert result.code == 1
    assert f'{bad}: step[1].expect: unknown value "maybe"' in flat(result.err)
    assert "fix: use one of: allowed, blocked, asked, stopped, error" in result.err

    bad.write_text('[[step]]\ndo = "edit"\nfile = "x"\nold = "a"\nnew = "b"\nreplace = true\n')
    result = run_cli("simulate", str(bad), cwd=project.root)
    assert f'{bad}: step[1].replace: unknown field (did you mean "replace_all"?)' in flat(
        result.err
    )

    bad.write_text('[[step]]\ndo = "jump"\n')
    result = run_cli("simulate", str(bad), cwd=project.root)
    assert 'step[1].do: unknown value "jump"' in flat(result.err)

    bad.write_text('[[step\ndo = "stop"\n')
    result = run_cli("simulate", str(bad), cwd=project.root)
    assert result.code == 1 and "invalid TOML" in result.err


def test_settings_error_surfaces_through_the_cli(project: HookProject) -> None:
    (project.root / ".claude" / "settings.json").write_text(
        '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 0}]}]}}'
    )
    scenario = project.root / "s.toml"
    scenario.write_text('[[step]]\ndo = "stop"\n')
    result = run_cli("simulate", str(scenario), cwd=project.root)
    assert result.code == 1
    assert ".claude/settings.json: hooks.Stop[0].hooks[0].timeout: must be a positive number" in (
        flat(result.err)
    )


def test_outside_a_workspace(tmp_path: Path) -> None:
    scenario = tmp_path / "s.toml"
    scenario.write_text('[[step]]\ndo = "stop"\n')
    result = run_cli("simulate", str(scenario), cwd=tmp_path)
    assert result.code == 1 and "no .claude/settings.json" in result.err


def test_as_a_real_process(project: HookProject) -> None:
    setup(project)
    (project.root / "scenario.toml").write_text(SCENARIO)
    done = run_lab_process("simulate", "scenario.toml", "--json", cwd=project.root, timeout=120)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 6
    human = run_lab_process(
        "simulate", "scenario.toml", cwd=project.root, env={"NO_COLOR": "1"}, timeout=120
    )
    assert human.returncode == 0, human.stderr
    assert "Claude sees: Stop hook feedback:" in human.stdout
    assert "]: run the sensors" in human.stdout
    assert "all 4 expectations met" in human.stdout


def test_the_same_scenario_on_either_engine_as_a_real_process(
    project: HookProject, engine: str
) -> None:
    """`lab simulate --engine claude-code` plays the scenario on the real client; the JSON
    lines carry the same outcomes and what Claude was sent as on the emulator."""
    setup(project)
    (project.root / "scenario.toml").write_text(SCENARIO)
    done = run_lab_process(
        "simulate", "scenario.toml", "--json", "--engine", engine, cwd=project.root, timeout=180
    )
    assert done.returncode == 0, done.stderr
    steps = [json.loads(line) for line in done.stdout.splitlines()]
    assert [s["outcome"] for s in steps] == [
        "allowed",
        "allowed",
        "blocked",
        "allowed",
        "blocked",
        "allowed",
    ]
    assert steps[2]["feedback"].startswith("PreToolUse:Edit hook error: ")
    assert steps[4]["feedback"].startswith("Stop hook feedback:\n")
    assert all(s["expect_met"] in (True, None) for s in steps)
    assert [h["event"] for h in steps[4]["hooks"]] == ["Stop"]
    # The transcript the engine played is named, and kept: on the real client, the client's own
    transcript = Path(steps[-1]["transcript"])
    assert transcript.is_file() and "set UC-003 to Done" in transcript.read_text()


def test_a_scenario_no_hook_answers_tested_nothing_and_exits_1(project: HookProject) -> None:
    project.hook("PreToolUse", "exit 2", matcher="Edit")
    scenario = project.root / "scenario.toml"
    scenario.write_text('[[step]]\ndo = "bash"\ncommand = "echo hi"\nexpect = "allowed"\n')
    result = run_cli("simulate", str(scenario), "--json", cwd=project.root)
    assert result.code == 1, result
    assert "no hook of the project ran in any of its 1 steps" in flat(result.err)
    assert json.loads(result.out)["outcome"] == "allowed"  # the step is still reported


def test_the_transcript_it_names_is_there_to_read_and_nothing_else_is_left(
    project: HookProject, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("HOOKLAB_SCRATCH", str(scratch))
    monkeypatch.setenv("COLUMNS", "400")  # the path on one line
    setup(project)
    scenario = project.root / "scenario.toml"
    scenario.write_text(SCENARIO)
    shown = run_cli("simulate", str(scenario), cwd=project.root)
    assert shown.code == 0, shown
    named = re.search(r"transcript: (\S+)", shown.out)
    assert named is not None, shown.out
    transcript = Path(named[1])
    assert transcript.is_file() and '"type":"user"' in transcript.read_text().replace(" ", "")
    assert [p.parent for p in scratch.glob("*/*.jsonl")] == [transcript.parent]

    machine = run_cli("simulate", str(scenario), "--json", cwd=project.root)
    assert machine.code == 0, machine
    steps = [json.loads(line) for line in machine.out.splitlines()]
    kept = {Path(step["transcript"]) for step in steps}  # each line names the one transcript
    assert len(kept) == 1 and next(iter(kept)).is_file()
    assert sorted(p.parent for p in scratch.glob("*/*.jsonl")) == sorted(
        [transcript.parent, next(iter(kept)).parent]
    )


def test_simulate_acts_on_a_throwaway_copy_never_on_the_workspace(project: HookProject) -> None:
    """A scenario's write and its shell command (here one that wipes the reports, as a Maven run
    of a scenario did) change the copy only: the participant's files and reports stay."""
    setup(project)
    reports = project.root / "target" / "surefire-reports"
    reports.mkdir(parents=True)
    (reports / "TEST-x.xml").write_text("<testsuite/>")
    scenario = project.root / "scenario.toml"
    scenario.write_text(
        '[[step]]\ndo = "session_start"\n\n[[step]]\ndo = "write"\nfile = "docs/new.md"\n'
        'content = "from the scenario"\n\n[[step]]\ndo = "bash"\n'
        'command = "rm -rf target/surefire-reports"\n'
    )
    before = sorted(str(p.relative_to(project.root)) for p in project.root.rglob("*"))
    result = run_cli("simulate", str(scenario), cwd=project.root)
    assert result.code == 0, result
    assert (
        "Played on a throwaway copy of the workspace. Tool calls ran confined (bubblewrap): only "
        "the folder played in was writable, HOME and TMPDIR were throwaway folders, there was "
        "no network, and the environment held only an allow-list of yours." in flat(result.out)
    )
    assert (reports / "TEST-x.xml").read_text() == "<testsuite/>"
    assert not (project.root / "docs" / "new.md").exists()
    assert sorted(str(p.relative_to(project.root)) for p in project.root.rglob("*")) == before


def test_a_failing_command_is_the_tools_failure_not_a_hook_error(
    project: HookProject, engine: str
) -> None:
    """`rm` of a missing file fails by itself while every hook exits 0: the step shows the
    command's own failure as its result (the client puts the exit code first), no hook error."""
    project.hook("PostToolUseFailure", "cat >/dev/null; exit 0", matcher="Bash")
    (project.root / "scenario.toml").write_text(
        '[[step]]\ndo = "bash"\ncommand = "rm missing-file"\nexpect = "allowed"\n'
    )
    done = run_lab_process(
        "simulate", "scenario.toml", "--json", "--engine", engine, cwd=project.root, timeout=180
    )
    assert done.returncode == 0, done.stderr
    (step,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert step["tool_ran"] is True and step["errors"] == []
    assert step["tool_result"].startswith("Exit code 1\nrm: cannot remove 'missing-file'")
    assert [(h["event"], h["exit_code"]) for h in step["hooks"]] == [("PostToolUseFailure", 0)]


def test_a_result_for_a_tool_that_answers_for_itself_is_refused(project: HookProject) -> None:
    scenario = project.root / "scenario.toml"
    scenario.write_text(
        '[[step]]\ndo = "tool"\ntool = "WebFetch"\nresult = "<html>"\n'
        'input = { url = "https://example.com/", prompt = "x" }\n'
    )
    result = run_cli("simulate", str(scenario), cwd=project.root)
    assert result.code == 1 and "Traceback" not in result.err
    assert f"{scenario}: step[1].result: WebFetch answers for itself" in flat(result.err)
    assert "fix: remove result" in flat(result.err)
