"""A contract line that takes back what it says is named with the words that take it back and
the clause they sit in, never with a cut-off copy of the line (issue 51: Lab 07 step 1 read
"your Claim: line mentions nothing at all; that the se… but denies it", Lab 12 "your Success:
line mentions exit 2, not exit 0 but denies it"). Real: the labs' own contract checks on a
provisioned workspace."""

from __future__ import annotations

from harness.engine.context import CheckContext
from harness.engine.manifest import find_lab
from harness.results import CheckResult, Status
from harness.workspace import Workspace

CONTRACT = "docs/stop-hook-contract.md"


def _judged(ws: Workspace, lab: str, step: str, text: str) -> list[str]:
    (ws.root / "docs").mkdir(exist_ok=True)
    (ws.root / CONTRACT).write_text(text)
    found = find_lab(lab)
    spec = next(c for c in found.step(step).checks if c.name == "contract")
    result: CheckResult = spec.kind.run(CheckContext(ws, found.dir), spec.params)
    assert result.status is Status.FAIL
    return (result.found or "").splitlines()


def test_lab07_a_claim_that_takes_itself_back_names_the_word_and_its_clause(
    workspace: Workspace,
) -> None:
    lines = _judged(
        workspace,
        "07",
        "contract",
        "Claim: nothing at all; that the sensors ran green is exactly what it does not claim.\n"
        "Check: target/surefire-reports/*.xml: tests > 0, no failures, newer than src/.\n"
        "Success: exit 0.\nBlock: exit 2, one line on stderr.\n",
    )
    claim = next(line for line in lines if line.startswith("✘ Claim:"))
    assert "your Claim: line takes itself back with “nothing”: “nothing at all”" in claim
    assert "says sensor, but “not” takes it back" in claim
    assert "mentions" not in claim and "that the se…" not in claim


def test_lab12_a_success_line_that_names_two_codes_says_which_words_deny_which(
    workspace: Workspace,
) -> None:
    lines = _judged(
        workspace,
        "12",
        "four-lines",
        "Claim: the build is ready: the tests pass and dist/app.js is built\n"
        "Check: npm test and test -s dist/app.js\nSuccess: exit 2, not exit 0\n"
        "Block: exit 2, a short reason on stderr\n",
    )
    success = next(line for line in lines if line.startswith("✘ Success:"))
    assert "your Success: line says exit 0, but “not” takes it back: “not exit 0”" in success
    assert "Success is exit 0, no other code" in success
    assert "exit 2, not exit 0 but" not in success
