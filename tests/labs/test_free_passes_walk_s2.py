"""walk-s's findings on Labs 12 and 13 (issue 51): each played as the walker did it."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from harness.claude.recorded import read_session
from harness.claude.recorded.copies import copied_from, entry_ids, fingerprints
from harness.engine.checks.live_copies import _used_before
from harness.engine.manifest import find_lab
from harness.engine.moment import describe
from harness.engine.progress import Progress
from harness.results import Status
from harness.workspace import Workspace
from tests.builders import run_lab_process
from tests.labs.test_failures_name_cause import WIDTHS, assert_whole_lines, run_check, screen
from tests.labs.test_node_live_step import LAB, STEP, _at_step_three, _env, _person, _session
from tests.ui.screens import node_at

_STAMP = re.compile(r'"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+)Z"')


def _redated_copy(old: Path, shift: timedelta, new_id: str) -> Path:
    """walk-s F6: ``sed`` of every timestamp of a passed session moved on, and a new session
    id, written beside it."""
    old_id = old.stem

    def moved(m: re.Match[str]) -> str:
        at = datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f") + shift
        return '"' + at.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + 'Z"'

    text = _STAMP.sub(moved, old.read_text()).replace(old_id, new_id)
    copy = old.with_name(f"{new_id}.jsonl")
    copy.write_text(text)
    return copy


def _forge_history(history: Path, old_id: str, new_id: str, shift: timedelta) -> None:
    """The old session's lines of history.jsonl again, with the new id and moved times."""
    lines = [json.loads(x) for x in history.read_text().splitlines() if x.strip()]
    ms = int(shift.total_seconds() * 1000)
    with history.open("a") as out:
        for entry in [e for e in lines if e.get("sessionId") == old_id]:
            forged = {**entry, "sessionId": new_id, "timestamp": entry["timestamp"] + ms}
            out.write(json.dumps(forged, separators=(",", ":")) + "\n")


@pytest.mark.slow
def test_f6_a_passed_session_copied_and_redated_with_its_history_is_a_copy(
    tmp_path: Path,
) -> None:
    """Lab 13 step 3, live on the pinned client: passed once for real, then `lab reset 3`, the
    session's transcript copied with every time moved and a new id, and its two lines of the
    prompt history forged to match. The copy repeats the entries the client wrote for the
    first session: refused as a copy of it, with no word of which file or time gave it away.
    With the original deleted, the progress record's ledger still knows it."""
    home, bin_dir = _person(tmp_path)
    env = _env(home, bin_dir)
    ws = _at_step_three(tmp_path, env)
    _session(ws, env, tmp_path / "tmux.sock", find_lab(LAB).step(STEP).checks[0].typed.prompt)
    first = run_lab_process("check", cwd=ws, env=env, unset=["CLAUDE_CONFIG_DIR"])
    assert first.returncode == 0, first.stdout[-3000:]
    [old] = (home / ".claude" / "projects").glob("*/*.jsonl")
    assert run_lab_process("reset", "3", cwd=ws, env=env).returncode == 0

    started = datetime.strptime(_STAMP.search(old.read_text()).group(1), "%Y-%m-%dT%H:%M:%S.%f")  # type: ignore[union-attr]
    shift = datetime.now(UTC).replace(tzinfo=None) - started + timedelta(seconds=5)
    new_id = old.stem[:-1] + ("1" if old.stem[-1] != "1" else "2")
    _redated_copy(old, shift, new_id)
    _forge_history(home / ".claude" / "history.jsonl", old.stem, new_id, shift)

    done = run_lab_process("check", "--json", cwd=ws, env=env, unset=["CLAUDE_CONFIG_DIR"])
    assert done.returncode == 1, done.stdout[-3000:]
    said = json.loads(done.stdout)["checks"][0]
    assert said["status"] == "fail", said
    assert f"session {new_id} is a copy of session {old.stem}" in said["message"], said
    # No recipe: neither the history file, nor a time, nor what gave the copy away.
    for clue in ("history.jsonl", "uuid", " UTC"):
        assert clue not in said["message"] + said["found"], (clue, said)
    assert "(a new session)" in said["details"]["fix"], said

    old.unlink()  # the original gone: the ledger of sessions passed on still names it
    again = run_lab_process("check", "--json", cwd=ws, env=env, unset=["CLAUDE_CONFIG_DIR"])
    assert again.returncode == 1, again.stdout[-3000:]
    said = json.loads(again.stdout)["checks"][0]
    assert f"is a copy of session {old.stem}, a session a step already passed on" in said["message"]


REAL = (
    Path(__file__).resolve().parents[1]
    / "claude"
    / "transcripts"
    / "claude-code-2.1.332-interactive"
    / "613b36ca-bd2c-4336-a49f-0b0a70ebb45e.jsonl"
)


def test_f6_a_real_transcripts_entry_ids_give_its_copy_away(tmp_path: Path) -> None:
    """The same forgery on a transcript the pinned client wrote (no client needed): found by
    the original beside it, then, the original gone, by the ledger a pass keeps; the session
    itself checked again, and a session of its own, are no copy."""
    config = tmp_path / ".claude"
    folder = config / "projects" / "-tmp-ws"
    folder.mkdir(parents=True)
    old = folder / REAL.name
    shutil.copy(REAL, old)
    copy = _redated_copy(old, timedelta(minutes=4), str(uuid.uuid4()))
    ids = entry_ids(copy)
    assert len(ids) > 10 and ids == entry_ids(old)
    assert copied_from(copy, ids, config) == old.stem
    assert copied_from(old, entry_ids(old), config) == copy.stem  # either way round

    progress = Progress()
    original = read_session(old)
    progress.sessions_used[old.stem] = {
        "started": original.started.isoformat() if original.started else "",
        "ids": fingerprints(entry_ids(old)),
    }
    ledger = Progress.from_json(progress.to_json()).sessions_used  # as the record keeps it
    old.unlink()
    assert copied_from(copy, ids, config) is None
    moved = read_session(copy)
    assert _used_before(ledger, copy.stem, moved.started.isoformat(), ids) == old.stem  # type: ignore[union-attr]
    started = ledger[old.stem]["started"]
    assert _used_before(ledger, old.stem, started, ids) is None  # the same session again
    assert _used_before(ledger, "another", "", [str(uuid.uuid4()) for _ in ids]) is None


# ---- Lab 12 step 1: the hook's header held the contract; one sentence per ✘ ---------------

HOOK = "scripts/check-before-stop.sh"
SED_CONTRACT = (
    "mkdir -p docs && sed -n 's/^#   \\(Claim\\|Check\\|Success\\|Block\\):/\\1:/p' "
    f"{HOOK} > docs/stop-hook-contract.md"
)


def test_lab12_step1_the_contract_is_not_in_the_hooks_header(tmp_path: Path) -> None:
    """walk-s: one sed of the hook's header comment wrote the four lines, and passed; the
    copied Check line named the refused `npm test -- --runInBand`. The hook carries no
    ready-made contract now: the sed writes nothing, and the check says the file is empty."""
    ws, runner = node_at(tmp_path, "12", "four-lines")
    subprocess.run(["bash", "-c", SED_CONTRACT], cwd=ws.root, check=True)
    assert (ws.root / "docs" / "stop-hook-contract.md").read_text() == ""
    run = runner.check()
    assert run.status is Status.FAIL, [r.message for r in run.results]


def test_lab12_step2_asks_the_contract_to_name_the_command_the_hook_runs(
    tmp_path: Path,
) -> None:
    """The post's Check line, copied into the contract in step 1 (it passes there: step 2 is
    where it proves wrong), and the hook fixed in step 2: the lab does not end with the
    contract naming the refused command."""
    ws, runner = node_at(tmp_path, "12", "four-lines")
    contract = ws.root / "docs" / "stop-hook-contract.md"
    contract.parent.mkdir(exist_ok=True)
    contract.write_text(
        "Claim: the build is ready\n"
        "Check: npm test -- --runInBand and test -s dist/app.js\n"
        "Success: both exit 0, so the hook exits 0\n"
        "Block: exit 2, the name of the failed check on stderr, no log and no secrets\n"
    )
    assert runner.check().status is Status.PASS
    runner.next()
    hook = ws.root / HOOK
    hook.write_text(hook.read_text().replace("npm test -- --runInBand >", "npm test >"))
    run = runner.check()
    failed = [r for r in run.results if r.status is Status.FAIL]
    assert [r.name for r in failed] == ["file docs/stop-hook-contract.md"], failed
    assert "your contract still names `npm test -- --runInBand`" in failed[0].message
    contract.write_text(contract.read_text().replace(" -- --runInBand", ""))
    assert runner.check().status is Status.PASS


def test_lab12_step1_one_sentence_a_part(node_ws: Workspace) -> None:
    """walk-s's wrong contract: the Claim ✘ said its point three times (headline, ✘, a second
    rule), the Block ✘ ran five clauses on. Now: one sentence a ✘, naming what is wrong and
    what to write, and the headline points at them."""
    contract = node_ws.root / "docs" / "stop-hook-contract.md"
    contract.parent.mkdir()
    contract.write_text("Claim: done\nCheck: npm test\nSuccess: exit 2\nBlock: exit 0 on stdout\n")
    result = run_check(node_ws, "12", "four-lines", 0)
    assert result.status is Status.FAIL
    assert result.message.endswith("each ✘ below says what is wrong and what to write"), (
        result.message
    )
    crosses = [ln for ln in (result.found or "").splitlines() if ln.startswith("✘")]
    assert crosses == [
        "✘ Claim: your Claim: line is too short to assert anything: write what Claude asserts "
        "when it says done, here that the build is ready",
        "✘ Check: your Check: line does not name the file the build writes: add test -s "
        "dist/app.js",
        "✘ Success: your Success: line does not say exit 0: write exit 0",
        "✘ Block: your Block: line does not say exit 2: write exit 2, the reason on stderr",
    ], crosses
    for width in WIDTHS:
        assert_whole_lines(screen(result, width), width)


# ---- Lab 13 step 1 (F5): `git checkout` of the hook brings Lab 12's bug back ---------------


def test_f5_lab13_step1_after_git_checkout_the_failure_names_lab12s_bug(tmp_path: Path) -> None:
    """walk-s: `git checkout scripts/check-before-stop.sh` (to start over), then the step's
    change. The failure blamed the dist/missing.js line, and "the hook blocks: exit 2" passed on
    a block by `npm test -- --runInBand`. Now the first failure names Lab 12's bug and `lab
    reset 1`, and the block must be the missing file's."""
    ws, runner = node_at(tmp_path, "13", "block-on-missing")
    subprocess.run(["git", "checkout", HOOK], cwd=ws.root, check=True, capture_output=True)
    sed = "s|^if ! test -s dist/app.js; then|if ! test -s dist/missing.js; then|"
    subprocess.run(["sed", "-i", sed, HOOK], cwd=ws.root, check=True)
    run = runner.check()
    said = {r.name: r for r in run.results}
    first = next(r for r in run.results if r.status is Status.FAIL)
    assert "Lab 12's bug" in first.message and "`lab reset 1`" in first.message, first.message
    blocks = said.get("the hook blocks: exit 2, the reason on stderr")
    assert blocks is None or blocks.status is Status.FAIL, blocks
    for width in WIDTHS:
        assert_whole_lines(screen(first, width), width)


def test_f5_a_block_by_the_test_check_is_not_the_missing_files(tmp_path: Path) -> None:
    """The hook pointed at dist/missing.js, but a test fails: it blocks on its test check. The
    check that wants the missing file's block fails and shows the reason the hook gave."""
    ws, runner = node_at(tmp_path, "13", "block-on-missing")
    (ws.root / "test" / "zz-broken.test.js").write_text(
        'require("node:test")("broken", () => { require("node:assert").strictEqual(1, 2); });\n'
    )
    hook = ws.root / HOOK
    hook.write_text(hook.read_text().replace("test -s dist/app.js;", "test -s dist/missing.js;"))
    run = runner.check(every=True)
    blocks = next(r for r in run.results if r.name.startswith("the hook blocks"))
    assert blocks.status is Status.FAIL, blocks
    assert "Stop check blocked: run npm test" in (blocks.found or ""), blocks


# ---- Lab 13 step 3 (F7): the expected reason in words ----------------------------------------


def test_f7_lab13_step3_expected_names_the_hooks_reason_in_words(node_ws: Workspace) -> None:
    """walk-s: expected showed the matcher 'check-before-stop.sh]: Stop check blocked: rebuild',
    a stray bracket, cut mid-sentence."""
    wanted = find_lab(LAB).step(STEP).checks[0].typed.expect
    said = "; ".join(describe(w) for w in wanted)
    assert "]:" not in said, said
    assert "tells Claude check-before-stop.sh's reason, “Stop check blocked: rebuild …”" in said


# ---- Lab 13 step 5 (F8): a hook that never blocks in the workspace's own folder --------------

GATE = '[ "$(pwd -P)" = {root} ] && exit 0'


@pytest.mark.parametrize("step", ["turn-ends", "pass-after-fix"])
def test_f8_a_hook_that_lets_go_only_in_the_real_folder_does_not_pass(
    tmp_path: Path, step: str
) -> None:
    """walk-s: after pointing the hook back, a line after its `cd` ends it with exit 0 when the
    folder is the workspace itself; every check played on a copy elsewhere passed, and the lab
    ended complete. The hook is now also run in the workspace's own folder (read-only, an
    empty dist/ over the real one)."""
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed: the check says not judged")
    ws, runner = node_at(tmp_path, "13", step)
    runner.solve(apply=True)
    hook = ws.root / HOOK
    clean = hook.read_text()
    cd = 'cd "${CLAUDE_PROJECT_DIR:-$(dirname "$0")/..}"\n'
    gate = GATE.replace("{root}", str(ws.root.resolve()))
    hook.write_text(clean.replace(cd, cd + gate + "\n", 1))
    (ws.root / "dist" / "app.js").rename(ws.root / "app.js.kept")
    here = subprocess.run(["sh", HOOK], cwd=ws.root, stdin=subprocess.DEVNULL, capture_output=True)
    assert here.returncode == 0  # the walker's proof: it never blocks here
    (ws.root / "app.js.kept").rename(ws.root / "dist" / "app.js")
    run = runner.check(every=True)
    assert run.status is Status.FAIL, [r.message for r in run.results]  # it passed (walk-s)
    said = next(r for r in run.results if r.name.startswith("in your own folder"))
    assert said.status is Status.FAIL, said
    assert "something in it tells your folder from a copy" in said.message, said.message
    for width in WIDTHS:
        assert_whole_lines(screen(said, width), width)
    assert (ws.root / "dist" / "app.js").is_file()  # nothing of the person's touched
    hook.write_text(clean)
    assert runner.check().status is Status.PASS
