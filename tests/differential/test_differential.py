"""The differential suite: every case on the emulator and on the real, pinned Claude Code.

Each case (``cases/*.toml``) is a small project and a scenario; both engines run it in
directories of the same shape and must agree, step by step, on outcome, tool_ran, turn_ended
and the normalised feedback. A disagreement fails and shows both sides. The real client is the
authority: fix the emulator, not the case. Every result is also written to
build/differential.json, from which docs/claude-code-semantics.md is generated.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from harness.claude.differential import CaseResult, compare, load_cases
from harness.claude.events import Event
from tests.builders import REPO_ROOT
from tests.conftest import require_real_client

CASES = load_cases(Path(__file__).parent / "cases")
# The upgrade check points this elsewhere, to keep the pinned client's results apart.
RESULTS = Path(
    os.environ.get("HOOKLAB_DIFFERENTIAL_RESULTS") or REPO_ROOT / "build/differential.json"
)
_collected: list[CaseResult] = []


@pytest.fixture(scope="module", autouse=True)
def _write_results() -> Iterator[None]:
    yield
    if _collected:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        from harness.claude.client.install import find_client

        client = find_client()
        RESULTS.write_text(
            json.dumps(
                {
                    "claude_code": client.version if client else None,
                    "cases": [r.to_json() for r in _collected],
                },
                indent=2,
            )
            + "\n"
        )


# Cases that wait out real time on both engines and use next to no CPU: the 30 s
# UserPromptSubmit default is only proven by a hook that outlives it, a Notification by a
# prompt left 6 s, a timeout by a hook that outlives it, an async hook's output by a hook that
# ends during a 3 s command. Each starts on a thread of its own as the module starts, so its
# wait overlaps the cases played before its test; the test then takes the result.
WAIT_BOUND = (
    "userpromptsubmit-default-timeout-30s",
    "notification-permission-prompt",
    "hook-timeout-renders-no-decision",
    "async-hook-output-next-turn",
    "async-rewake-next-turn",
)
# Every other case waits too: on its client's start, its turns, a hook. They are played this
# many at a time, in the order their tests run (the suite is one xdist group, on one worker),
# each test taking its own case's result; each case keeps its own client, project, folder and
# assertions. Measured side by side here (-n 0, a busy machine): 94 tests in 404 s one at a
# time, 246 s two at a time, for the same CPU-seconds (128 and 126).
AT_ONCE = int(os.environ.get("HOOKLAB_DIFFERENTIAL_AT_ONCE") or 2)


@pytest.fixture(scope="module")
def _started_early(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, tuple[Future[CaseResult], Path]]]:
    """Each selected case's result to come, and the folder it is played in."""
    from harness.claude.client.install import find_client

    here = request.node.nodeid
    order = [
        item.callspec.params["case"].name
        for item in request.session.items
        if item.nodeid.startswith(here) and hasattr(item, "callspec")
    ]
    cases = {c.name: c for c in CASES}
    if not order or find_client() is None:  # the tests themselves skip or fail as they say
        yield {}
        return
    waiting = [name for name in order if name in WAIT_BOUND]
    rest = [name for name in order if name not in WAIT_BOUND]
    early = ThreadPoolExecutor(max_workers=max(1, len(waiting)))
    pool = ThreadPoolExecutor(max_workers=max(1, AT_ONCE))
    folders = {name: tmp_path_factory.mktemp(name) for name in order}
    try:
        yield {
            name: (executor.submit(compare, cases[name], folders[name]), folders[name])
            for executor, names in ((early, waiting), (pool, rest))
            for name in names
        }
    finally:  # a run stopped early (-x, Ctrl-C) plays no case it has not started
        for executor in (pool, early):
            executor.shutdown(wait=True, cancel_futures=True)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_both_engines_agree(  # type: ignore[no-untyped-def]
    case, tmp_path: Path, _started_early: dict[str, tuple[Future[CaseResult], Path]]
) -> None:
    require_real_client()
    started, folder = _started_early.get(case.name) or (None, tmp_path)
    result = started.result() if started is not None else compare(case, folder)
    _collected.append(result)
    assert result.agrees, result.explain()
    for step in result.steps:  # a case's own expectations hold on the real client too
        expected = case.scenario.steps[step.number - 1].expect
        if expected is not None:
            assert step.sides["claude-code"]["outcome"] == expected, result.explain()
    # An http hook: the emulator posts what the client posts (the same event JSON keys, as
    # JSON), as often.
    real, emulated = (result.posts.get(e, []) for e in ("claude-code", "emulator"))
    assert [list(json.loads(p["body"])) for p in emulated] == [
        list(json.loads(p["body"])) for p in real
    ]
    assert {p["headers"].get("Content-Type") for p in real + emulated} <= {"application/json"}
    # Passed: its two projects go now, as a passed test's tmp_path does (a failed one's stay).
    shutil.rmtree(folder, ignore_errors=True)


def test_every_hook_type_the_client_runs_has_a_case() -> None:
    from harness.claude.settings import PLAYED_TYPES

    used = {
        hook.get("type")
        for case in CASES
        for groups in case.settings.get("hooks", {}).values()
        for group in groups
        for hook in group.get("hooks", [])
    }
    assert set(PLAYED_TYPES) <= used, set(PLAYED_TYPES) - used


def test_the_cases_cover_every_event_and_are_enough() -> None:
    """At least 40 cases, and every event the workshop relies on is exercised: SessionStart in
    each source it matches, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure,
    Stop and SubagentStop."""
    assert len(CASES) >= 40
    registered: set[str] = set()
    sources: set[str] = set()
    for case in CASES:
        registered |= set(case.settings.get("hooks", {}))
        sources |= {
            str(step.args.get("source", "startup"))
            for step in case.scenario.steps
            if step.do == "session_start"
        }
    every = {e.value for e in Event}
    assert every <= registered, every - registered
    assert {"startup", "resume", "clear"} <= sources
