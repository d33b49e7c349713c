"""``contract``: a participant's contract, labelled lines such as ``Claim:`` and ``Block:``,
judged on what each line says rather than on a keyword somewhere in it.

Each rule names a part (the line's label) and either a pattern the line must have (``has``) or
one it must not have (``lacks``, e.g. ``exit 1``, which does not block), with what to tell the
participant when the rule does not hold:

    [[step.check]]
    kind = "contract"
    path = "docs/stop-hook-contract.md"
    rules = [
        { part = "Block", has = '\\bexit\\s*2\\b', say = "only exit 2 blocks: say exit 2" },
        { part = "Block", lacks = '\\bexit\\s*1\\b', say = "exit 1 does not block" },
    ]

Patterns are case-insensitive and read the line after its label. What a ``has`` finds must be
said positively: a clause that denies it ("does not exit 2", "never on stderr", "we skip npm
test") or a hedge later in its sentence ("exit 0, or not", "exit 2 (not really)") does not hold
(``may_deny = true`` for a rule whose words are fine denied: "no failures"). A part without a
line is "no line starts with Block: yet"; every part gets a verdict line, so the participant
sees them all at once, and a part that does not hold shows the line it judged.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.engine.checks.contract_clauses import clause_problem
from harness.engine.checks.contract_own import comment_said, commented_label, copied_script
from harness.engine.checks.denial_words import denial
from harness.engine.context import CheckContext
from harness.engine.kinds import check_kind
from harness.results import CheckResult
from harness.schema import param


@dataclass(frozen=True, kw_only=True)
class ContractParams:
    """A ``contract`` check's parameters, typed (``KIND.params`` is derived from them)."""

    path: str = param(doc="the contract file", inside="the workspace")
    rules: list[Any] = param(
        doc="tables { part, has | lacks (regex, case-insensitive), say }: what a part's "
        "line must or must not say, and what to tell the participant; what has finds must "
        "not be denied in its clause (not, never, no, skip …) nor hedged after it (or not, "
        "maybe, unlikely …) unless the rule sets may_deny = true"
    )
    message: str | None = param(default=None, doc="the headline when a rule does not hold")
    pass_message: str | None = param(default=None, doc="the headline when every rule holds")


def _validate(p: ContractParams) -> str | None:
    if not p.rules:
        return 'give the rules, e.g. rules = [{ part = "Claim", has = ".{10,}", say = "..." }]'
    for i, rule in enumerate(p.rules):
        if not isinstance(rule, dict) or not isinstance(rule.get("part"), str):
            return f"rules[{i + 1}] must be a table with a part (the line's label)"
        given = [k for k in ("has", "lacks") if k in rule]
        if len(given) != 1:
            return f"rules[{i + 1}] must give exactly one of has or lacks"
        if not isinstance(rule.get("say"), str):
            return f"rules[{i + 1}] must say what to tell the participant (say = ...)"
        try:
            re.compile(str(rule[given[0]]))
        except re.error as exc:
            return f"rules[{i + 1}].{given[0]} is no regular expression: {exc}"
        if set(rule) - {"part", "has", "lacks", "say", "may_deny"}:
            return f"rules[{i + 1}] has keys beyond part, has, lacks, say and may_deny"
    return None


def _parts(rules: list[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(str(r["part"]) for r in rules))


def _line(text: str, part: str) -> tuple[str, str] | None:
    """The first line labelled ``part:`` (list marks and bold allowed before it, not a ``#``:
    a script's comment is no contract line, walk-p), whole and what it says after its label;
    None without such a line."""
    label = re.compile(rf"^[^\w#]*{re.escape(part)}\W*:\**\s*(.*)$", re.IGNORECASE)
    for line in text.splitlines():
        found = label.match(line)
        if found:
            return line.strip(), found.group(1).strip()
    return None


# What a reader of the page does not read as said: an HTML comment, struck-through text
# (walk-m: "Check: ~~every sensor's report …~~", "<del>…</del>").
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)|~~.*?~~|<(del|s|strike)>.*?</\1>", re.S | re.I)


def _labelled(text: str, part: str) -> int:
    """How many lines are labelled ``part:``."""
    return sum(_line(line, part) is not None for line in text.splitlines())


def _not_your_own(ctx: CheckContext, rel: str, name: str) -> CheckResult | None:
    """The failure for a contract that is a link to another file (walk-l: to the hook, whose
    header comment has the four labels), or None for a file of its own."""
    ctx.path(rel)  # inside the workspace (it resolves links: the link itself is read below)
    path = ctx.root / rel
    if not path.is_symlink():
        script = _a_script(path, rel, name)
        return script if script is not None else _copied(ctx.root, rel, name)
    target = os.readlink(path)
    return _not_a_contract(
        rel, name, f"is a link to {target}", found=f"a symbolic link to {target}"
    )


def _a_script(path: Path, rel: str, name: str) -> CheckResult | None:
    """The failure for a contract that is a script (walk-n: a copy or hard link of the hook,
    whose header comment has the four labels), or None."""
    try:
        head = path.read_bytes()[:2]
    except OSError:
        return None
    if head != b"#!":
        return None
    first = path.read_text(errors="replace").splitlines()[0][:60]
    return _not_a_contract(
        rel,
        name,
        "is a script (it starts with #!), not a contract",
        found=f"{rel}: {first}",
        words="words, four lines, one a part",
    )


def _copied(root: Path, rel: str, name: str) -> CheckResult | None:
    """The failure for a contract that is (most of) a script's text (walk-p: the hook without
    its #! line, or its comment lines), or None."""
    try:
        copied = copied_script(root, rel, (root / rel).read_text(errors="replace"))
    except OSError:
        return None
    if copied is None:
        return None
    script, same = copied
    return _not_a_contract(
        rel,
        name,
        f"is the text of {script} ({len(same)} of its lines), not a contract",
        found="\n".join(same[:4] + (["…"] if len(same) > 4 else [])),
        words="words, four lines, one a part",
    )


def _not_a_contract(
    rel: str, name: str, why: str, found: str, words: str = "words, in a file of its own"
) -> CheckResult:
    """The one failure for a contract file that is not the person's own words: what it is
    (``why``), what was found, and the fix (remove it, write the four lines anew)."""
    return CheckResult.failed(
        f"{rel} {why}: the contract is your own {words}",
        name=name,
        expected="a file you wrote, a line a part",
        found=found,
        details={"fix": f"rm {rel}, then write the four lines into a new {rel}"},
    )


# What each part of a contract is for, said when a line denies it (the labels Labs 07 and 12 use).
ROLES = {
    "claim": "says what Claude asserts when it says done",
    "check": "names what confirms the claim, and it is run every time",
    "success": "says the hook exits 0 when the check holds",
    "block": "says the hook blocks (exit 2, the reason on stderr) when it does not",
}


def _judge(part: str, said: str | None, rules: list[dict[str, Any]]) -> list[str]:
    if said is None:
        return [f"no line starts with {part}: yet"]
    if not said:
        return [f"the {part}: line is empty"]
    denied = denial(said)
    if denied:
        role = f" the {part}: {ROLES[part.lower()]}" if part.lower() in ROLES else ""
        return [
            f"your {part}: line takes itself back (“{denied.words}”): it {denied.means};"
            f"{role or ' say it plainly'}"
        ]
    wrong, says = [], []
    for rule in rules:
        found = re.search(str(rule["has"]), said, re.IGNORECASE) if "has" in rule else None
        if "has" in rule and found is None:
            says.append(str(rule["say"]))
        elif found is not None and not rule.get("may_deny") and (doubt := _doubted(said, found)):
            wrong.append(_taken_back(part, str(rule["has"]), found, *doubt))
        if "lacks" in rule and re.search(str(rule["lacks"]), said, re.IGNORECASE):
            says.append(str(rule["say"]))
    # Words taken back are each named (they are the person's); of the rules, only the first
    # that does not hold (walk-s: five joined into one run-on, two saying the same): a lab
    # orders a part's rules so that the first says what to write.
    wrong += says[:1]
    hung = None if wrong else clause_problem(part, said)  # a condition, Claude's word, …
    return [hung] if hung else wrong


# A part is stated plainly: "does not exit 2", "we skip npm test" or "exit 2 is wrong" has the
# words a rule looks for and says the opposite. A clause ends at , ; : ( ) —, at a . that ends a
# sentence (not the one of ./mvnw) and at "and",
# "but", "or", "then".
_CLAUSE_END = re.compile(r"[,;:()—]|\.(?=\s|$)|\b(?:and|but|or|then)\b", re.IGNORECASE)
_NEGATION = re.compile(
    r"\b(?:not|never|cannot|nor|neither|nothing|nobody|skip\w*|omit\w*|instead of|wrong"
    r"|false|untrue|maybe|perhaps|possibly|probably|unlikely|hardly|rarely|optional\w*)\b"
    r"|n't\b",
    re.IGNORECASE,
)
# "no" and "without" deny only what follows them closely: "exit 2, no log" negates no exit.
_DENIAL = re.compile(r"\b(?:no|without|none)\W+(?:\w+\W+){0,2}$", re.IGNORECASE)
# A hedge after the words, in a clause of its own, takes them back: "exit 0, or not",
# "exit 2 (not really)". It reaches to the end of the sentence (; or . or the line's end).
_HEDGE = re.compile(
    r"\bor\s+not\b|\bnot\s+really\b|\bunlikely\b|\bmaybe\b|\bperhaps\b|\bpossibly\b"
    r"|\bor\s+whatever\b|\bjust\s+kidding\b|\bif\s+at\s+all\b|\bsometimes\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[;.](?:\s|$)|$")


def _doubted(said: str, found: re.Match[str]) -> tuple[str, str] | None:
    """(words, clause) when the clause around what a ``has`` rule found denies it ("not" in
    "does not exit 2"), or a hedge later in its sentence takes it back ("or not", clause "");
    else None."""
    start = max((m.end() for m in _CLAUSE_END.finditer(said, 0, found.start())), default=0)
    after = _CLAUSE_END.search(said, found.end())
    clause = said[start : after.start() if after else len(said)].strip()
    denied = _NEGATION.search(clause) or _DENIAL.search(said[start : found.start()])
    if denied:
        return denied.group(0).split()[0], clause
    stop = _SENTENCE_END.search(said, found.end())
    hedge = _HEDGE.search(said, found.end(), stop.start() if stop else len(said))
    return (hedge.group(0), "") if hedge else None


def _taken_back(part: str, rule: str, found: re.Match[str], words: str, clause: str) -> str:
    """Which words take back which part, plainly: "your Success: line says exit 0, but “not”
    takes it back: “the hook does not exit 0”". What the rule found is named from its last
    clause on ("exit 2, not exit 0" says exit 0); a rule on the line's shape alone (``\\S.{19,}``)
    names no words, only the clause that takes the line back."""
    what = _CLAUSE_END.split(found.group(0))[-1].strip()
    what = re.sub(rf"^(?:{_NEGATION.pattern}|\b(?:no|without|none)\b)\W*", "", what, flags=re.I)
    if clause:
        clause = _clause_of(clause, words)
    if clause.strip(" .").lower() == words.lower():
        clause = ""  # the clause is the word itself: “nothing”, not “nothing”: “nothing”
    where = f": “{clause if len(clause) <= 60 else clause[:59] + '…'}”" if clause else ""
    if re.search(r"[a-z]", re.sub(r"\\[a-zA-Z]", "", rule), re.I) and 0 < len(what) <= 30:
        return f"your {part}: line says {what}, but “{words}” takes it back{where}"
    return f"your {part}: line takes itself back with “{words}”{where}"


def _clause_of(text: str, words: str) -> str:
    """The clause of ``text`` that holds ``words``."""
    at = re.search(rf"\b{re.escape(words)}", text, re.IGNORECASE)
    if at is None:
        return text
    start = max((m.end() for m in _CLAUSE_END.finditer(text, 0, at.start())), default=0)
    after = _CLAUSE_END.search(text, at.end())
    return text[start : after.start() if after else len(text)].strip()


def run(ctx: CheckContext, p: ContractParams) -> CheckResult:
    name = f"contract {p.path}"
    path = ctx.path(p.path)
    if not path.is_file():
        return CheckResult.missing_file(
            p.path, name=name, expected="your contract, a line a part", root=ctx.root
        )
    unread = _not_your_own(ctx, p.path, name)
    if unread is not None:
        return unread
    # What a reader of the page sees: an HTML comment is not there (walk-l).
    text = _COMMENT.sub("", path.read_text(errors="replace"))
    twice = [part for part in _parts(p.rules) if _labelled(text, part) > 1]
    if twice:
        return CheckResult.failed(
            f"{', '.join(f'{part}:' for part in twice)} stands on more than one line: a contract "
            "says each part once, so keep one line of each",
            name=name,
            expected="one line a part",
            found="\n".join(
                line.strip() for line in text.splitlines() for part in twice if _line(line, part)
            ),
        )
    shown: list[str] = []
    first: str | None = None
    failing: list[str] = []
    for part in _parts(p.rules):
        line = _line(text, part)
        said = None if line is None else line[1]
        wrong = _judge(part, said, [r for r in p.rules if r["part"] == part])
        comment = commented_label(text, part) if line is None else None
        wrong = [comment_said(part, comment)] if comment else wrong
        shown.append(f"✔ {part}" if not wrong else f"✘ {part}: {'; '.join(wrong)}")
        if wrong and line is not None and said:
            shown.append(f"  your line: {line[0]}")  # the line judged, as the person wrote it
        first = first or (wrong[0] if wrong else None)
        failing += [f"{part}:"] if wrong else []
    if first is not None:
        bad = sum(shown_line.startswith("✘") for shown_line in shown)
        parts = sum(shown_line.startswith(("✘", "✔")) for shown_line in shown)
        # With one part wrong its sentence is the headline; with more, each ✘ says its own
        # (the first one said twice, in the headline and below, read as a repeat).
        said = first if bad == 1 else "each ✘ below says what is wrong and what to write"
        return CheckResult.failed(
            p.message
            or f"{bad} of {parts} parts of the contract do not hold yet "
            f"({', '.join(failing)}): {said}",
            name=name,
            expected="each part says what the contract needs (see each ✘)",
            found="\n".join(shown),
        )
    return CheckResult.passed(
        p.pass_message or "every part of the contract says what it must",
        name=name,
        details={"evidence": "\n".join(shown)},
    )


KIND = check_kind(
    "contract",
    "labelled lines (Claim:, Block:, …) each say what they must, and not the opposite",
    run,
    rules=_validate,
)
