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
# ends during a 3 s command. They start in the background as the module starts, so each wait
# overlaps the cases played before theirs (the suite is one xdist group, on one worker, in
# this order); their test then takes the result.
WAIT_BOUND = (
    "userpromptsubmit-default-timeout-30s",
    "notification-permission-prompt",
    "hook-timeout-renders-no-decision",
    "async-hook-output-next-turn",
    "async-rewake-next-turn",
)


@pytest.fixture(scope="module")
def _started_early(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Future[CaseResult]]]:
    from harness.claude.client.install import find_client

    here = request.node.nodeid
    selected = {
        item.callspec.params["case"].name
        for item in request.session.items
        if item.nodeid.startswith(here) and hasattr(item, "callspec")
    }
    early = [c for c in CASES if c.name in WAIT_BOUND and c.name in selected]
    if not early or find_client() is None:  # the test itself skips or fails as it says
        yield {}
        return
    with ThreadPoolExecutor(max_workers=len(early)) as pool:
        yield {c.name: pool.submit(compare, c, tmp_path_factory.mktemp(c.name)) for c in early}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_both_engines_agree(  # type: ignore[no-untyped-def]
    case, tmp_path: Path, _started_early: dict[str, Future[CaseResult]]
) -> None:
    require_real_client()
    started = _started_early.get(case.name)
    result = started.result() if started is not None else compare(case, tmp_path)
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
