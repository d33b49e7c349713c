"""Replay verdicts, step kinds, outcomes and engines are declared once, in
``harness/claude/vocabulary.py``; no other file in harness/ spells one of them as a literal
where it means that word (checked by reading the code, as test_architecture does).

Some of the words are also ordinary words ("error" in a JSON body, "prompt" as a hook
input's key, "bash" as a program), so a literal counts only where it is used as the word: in
a comparison, as a step or row a call makes, as the value of a ``do``/``outcome``/``verdict``/
``engine``/``kind`` key or keyword, as what a function returns, or as a key of a table keyed
by step kind. The verdicts that name hooks ("refused by …") and the engine names count
anywhere.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from harness.claude.vocabulary import (
    AUTO,
    BOTH,
    ENGINES,
    OUTCOMES,
    STEP_KINDS,
    BlockDecision,
    DevPhase,
    MemberState,
    PermissionDecision,
    Provenance,
    Verdict,
    VerifyState,
    read_verdict,
    verdict,
)
from tests.builders import REPO_ROOT

PACKAGE = REPO_ROOT / "harness"
DECLARATION = PACKAGE / "claude" / "vocabulary.py"
# The trainer's, the hooks' and lab dev check's words, declared beside the session's.
DECLARED = (PermissionDecision, BlockDecision, DevPhase, VerifyState, MemberState, Provenance)
WORDS = {
    *STEP_KINDS,
    *OUTCOMES,
    *(v.value for v in Verdict),
    *ENGINES,
    AUTO,
    BOTH,
    *(w.value for words in DECLARED for w in words),
}
ANYWHERE = {*ENGINES, Verdict.NO_RESULT.value, Provenance.PLAYED.value, MemberState.ABSENT.value}
PREFIXES = tuple(
    f"{w.value} " for w in (Verdict.REFUSED_BY, Verdict.REPORTED_BY, Verdict.BLOCKED_BY)
)
KEYS = {
    *("do", "outcome", "verdict", "engine", "engines", "kind", "expect", "choices"),
    *("decision", "permission_decision", "behavior", "rule", "state", "phase", "verification"),
    "evidence_kind",
}
MAKERS = {
    *("_step", "step", "ScenarioStep", "ReplayRow", "StepOutcome", "StepView"),
    *("phase", "results", "Attention", "EvidenceMark", "ParticipantVerdict", "HookSay"),
}
# Literals that are not the word: (file under harness/, the literal, why).
NOT_THE_WORD = {
    ("claude/client/install.py", "claude-code"),  # the npm package's folder in the cache
    ("trainer/remote.py", "error"),  # a thread's result box: its exception
    ("cli/cmd_watch.py", "stopped"),  # an event of the file watcher
    ("maven/surefire.py", "error"),  # a Surefire report's <error> element
    ("maven/broker.py", "error"),  # a key of the broker's JSON lines
    ("claude/client/reading.py", "blocked by PreCompact hook"),  # the client's own status text
    ("claude/client/reading.py", "failed"),  # the client's compact_result
    ("claude/client/driver.py", "idle"),  # the client process's state
    ("maven/warm.py", "failed"),  # how a warm-up went
    ("engine/checks/live_failures.py", "ask"),  # an expectation's key
    ("claude/settings.py", "bash"),  # the shell a hook command may start with
    ("engine/reverify.py", "write"),  # a solve action (lab.toml), not a session step
    ("engine/reverify.py", "copy"),  # a solve action (lab.toml)
}


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _key(node: ast.AST) -> object:
    """``"outcome"`` of ``view["outcome"]``."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return node.slice.value
    return None


def _used_as_the_word(node: ast.Constant, parents: dict[ast.AST, ast.AST]) -> bool:
    up = parents.get(node)
    while isinstance(up, ast.Tuple | ast.List | ast.Set | ast.IfExp | ast.BoolOp):
        node, up = up, parents.get(up)  # type: ignore[assignment]
    if isinstance(up, ast.Compare | ast.Return):
        return True
    if isinstance(up, ast.Call) and node in up.args:
        return _name(up.func) in MAKERS
    if isinstance(up, ast.keyword):
        return up.arg in KEYS
    if isinstance(up, ast.Assign):
        return any(_name(t) in KEYS or _key(t) in KEYS for t in up.targets)
    if isinstance(up, ast.Dict):
        if node in up.values:
            key = up.keys[up.values.index(node)]
            return isinstance(key, ast.Constant) and key.value in KEYS
        keys = [k.value for k in up.keys if isinstance(k, ast.Constant)]
        return sum(k in STEP_KINDS for k in keys) >= 2
    return False


def literals(path: Path) -> Iterator[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    parents = _parents(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
            continue
        text = node.value
        if (
            text in ANYWHERE
            or text.startswith(PREFIXES)
            or (text in WORDS and _used_as_the_word(node, parents))
        ):
            yield node.lineno, text


def test_no_vocabulary_literal_outside_its_declaration() -> None:
    found = [
        f"{path.relative_to(REPO_ROOT)}:{line}: {text!r}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != DECLARATION
        for line, text in literals(path)
        if (path.relative_to(PACKAGE).as_posix(), text) not in NOT_THE_WORD
    ]
    assert not found, "use harness.claude.vocabulary instead:\n" + "\n".join(found)


def test_the_scan_finds_a_literal(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        'def f(o):\n    if o.do == "stop":\n        return f"refused by {o.hook}"\n'
        '    x = {"do": "prompt"}\n    return "emulator"\n',
        encoding="utf-8",
    )
    found = sorted(literals(sample))
    assert [text for _, text in found] == ["stop", "refused by ", "prompt", "emulator"]


def test_a_verdict_reads_back_as_written() -> None:
    text = verdict(Verdict.REFUSED_BY, ["b.sh", "a.sh", "b.sh"])
    assert text == "refused by a.sh, b.sh"
    assert read_verdict(text) == (Verdict.REFUSED_BY, ["a.sh", "b.sh"])
    assert verdict(Verdict.BLOCKED_BY) == "blocked by a hook"
    assert read_verdict("ran") == (Verdict.RAN, [])
    assert read_verdict("something else") == (None, [])


def test_the_scan_finds_the_trainers_and_the_hooks_words(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        'def f(out, m, obs, step):\n    if out.permission_decision == "deny":\n'
        '        obs.phase(step, "hollow")\n    if m.verification == "stale":\n'
        '        return "not arrived"\n    return {"kind": "played by Hook Lab"}\n',
        encoding="utf-8",
    )
    found = sorted(literals(sample))
    assert [text for _, text in found] == [
        "deny",
        "hollow",
        "stale",
        "not arrived",
        "played by Hook Lab",
    ]


def test_the_words_keep_their_values() -> None:
    """Progress documents, verdict files and status --json hold these words: they stay."""
    assert [str(w) for w in VerifyState] == [
        *("verified", "failed", "not judged", "unverified", "stale", "verifying"),
    ]
    assert [str(p) for p in Provenance] == ["live", "scripted", "played by Hook Lab"]
    assert MemberState.PROBLEM.urgency == 0 and MemberState.ABSENT.urgency == 7
    assert [str(d) for d in PermissionDecision] == ["allow", "deny", "ask", "defer"]


def class_names(root: Path) -> dict[str, list[str]]:
    """Every class defined under ``root``, by name: where each is."""
    found: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_no_two_classes_share_a_name() -> None:
    """One name, one meaning: a ``Verdict`` is the replay's word, not also a record."""
    twice = {name: where for name, where in class_names(PACKAGE).items() if len(where) > 1}
    assert not twice, "classes that share a name:\n" + "\n".join(
        f"{name}: {', '.join(where)}" for name, where in sorted(twice.items())
    )


def test_the_class_scan_finds_a_shared_name(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("class Verdict:\n    pass\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("import enum\nclass Verdict(enum.Enum):\n    X = 1\n")
    assert class_names(tmp_path)["Verdict"] == ["a.py:1", "b.py:2"]
