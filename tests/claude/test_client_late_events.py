"""A hook's answer read after the client's next request, on the real client.

The client prints a hook's answer (``hook_response``) on stdout about when it sends the model
its next request. The two reach Hook Lab on different paths (a pipe, a loopback socket), so on
a loaded machine the answer of a blocking Stop hook was once read after the request, counted
in the next stop, and turned that stop's allowed into blocked (seen in CI's differential run);
later even the line saying the hook started was read after the request, and the step that
blocked came back with no hook runs (seen in CI).
Here the real client and the real hook run as always; only the order in which our reader
takes them is the loaded machine's: the start and the answer of the first Stop run are held
back until the request that follows them has been taken. The step that blocked waits for the
run of the hook it surely fired, and the next step never counts it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.claude import parse_settings
from harness.claude.client import launch
from harness.claude.client.driver import ClaudeCodeSession
from harness.claude.client.process import Inbox
from harness.claude.vocabulary import Outcome
from tests.builders import project_held_once
from tests.conftest import require_real_client


class LateHookAnswers(Inbox):
    """Hands the first Stop run's start and blocking answer over only after the next request."""

    def __init__(self) -> None:
        super().__init__()
        self.late: list[tuple[str, Any]] = []
        self.delayed = 0

    def put(self, kind: str, item: Any) -> None:
        first_stop = (
            kind == "event"
            and item.get("hook_event") == "Stop"
            and item.get("subtype") in ("hook_started", "hook_response")
            and self.delayed < 2
        )
        if first_stop:
            self.late.append((kind, item))
            self.delayed += 1
            return
        super().put(kind, item)
        if kind == "request" and self.late:
            late, self.late = self.late, []
            for held in late:
                super().put(*held)


def test_a_late_hook_answer_counts_for_the_step_that_started_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_real_client()
    root = tmp_path / "project"
    settings = project_held_once(root)
    inboxes: list[LateHookAnswers] = []

    def late_inbox() -> LateHookAnswers:
        inboxes.append(LateHookAnswers())
        return inboxes[-1]

    monkeypatch.setattr(launch, "Inbox", late_inbox)
    with ClaudeCodeSession(
        root,
        parse_settings(settings, "test settings"),
        transcript_dir=tmp_path / "transcripts",
        env={"HOME": str(tmp_path / "home")},
    ) as session:
        session.session_start()
        session.prompt("Finish up.")
        first = session.stop("Done.")
        second = session.stop("Done now.")
    assert inboxes and inboxes[0].delayed == 2, "the blocking Stop run never started"
    assert first.outcome == Outcome.BLOCKED and "held once" in first.feedback
    # The step waits for the answer it saw start, so the run that blocked is in its record.
    assert [run.exit_code for run in first.hook_runs] == [2], first.hook_runs
    assert second.outcome == Outcome.ALLOWED and second.turn_ended, second
    assert all(run.exit_code == 0 for run in second.hook_runs), second.hook_runs
