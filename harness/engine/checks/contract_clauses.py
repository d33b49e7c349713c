"""What every clause of a contract line must do: speak of the evidence or of what the hook does.

The denial words (denial_words.py) catch a line that takes its own words back. A line can also
keep its words and hang something else on them (walk-i, walk-j): a condition that is not the
evidence ("exit 0 whenever Claude says done", "exit 2 …, on Sundays only", "only in theory"),
Claude's own word as the evidence ("Check: Claude's own word that the reports …"), or a clause
about the hook instead of what it does ("both ignored by the hook", "(TODO: not wired up
yet)", "we removed this"). Four rules, none a list of bad words:

- a condition clause (when, whenever, if, unless, only, once, while, until, except) names the
  evidence: a report, a sensor, a test, the build, a file, a command, an exit code, a path;
- Check, Success and Block never rest on what Claude says (the claim is Claude's word; its
  check is what Claude cannot give by saying so);
- a clause that says the hook does not do something takes the line back, unless what it
  leaves out is what a hook must leave out (the log, secrets, stdout);
- every clause names the evidence or what the hook does with it (exit, stderr, a short reason,
  no log, no secrets, stop_hook_active): a clause that names neither says nothing the hook can
  do, and "whatever", "regardless" or "no matter" make any clause unconditional;
- no sentence of the line takes the line back (walk-m: "… no failure or error. Nothing is
  checked."): a sentence whose subject is a negative ("Nothing", "None of this", "No check",
  "Not really") or the line itself under a "not" ("This is not implemented"), or that tells
  the reader to dismiss it ("Ignore it", "Disregard this line"). It may still say what the
  hook leaves out ("Nothing is logged", "Never the full log"), what it does not trust
  (Claude's word) or what else it does not read ("Nothing older than src/ counts").
"""

from __future__ import annotations

import re

from harness.engine.checks.denial_words import denial

# A clause ends at , ; : ( ) — [ ], at a . that ends a sentence and at and/but/or/then/so.
_CLAUSE_END = re.compile(r"[,;:()\[\]—]|\.(?=\s|$)|\b(?:and|but|or|then|so)\b", re.IGNORECASE)
# What the evidence is made of, in Labs 07 and 12 (word starts), and code: a path, an option,
# a number, something in backticks.
_EVIDENCE = re.compile(
    r"\b(?:dist|npm|node|mvnw|maven|green|red|stale|newer|older|xml|src|docs|pom|exit|run|ran)"
    # Long stems anywhere in a word: ArchitectureTest, UseCaseTraceabilityTest.
    r"|report|surefire|sensor|test|build|built|fresh|missing|absent|chang|fail|error|pass"
    r"|stop_hook_active|file|command|check|exist|artefact|artifact"
    r"|[/`=<>\d]",
    re.IGNORECASE,
)
# What a hook does with the evidence, besides naming it.
_DOING = re.compile(
    r"\b(?:stderr|stdout|reason|short|brief|one|line|log|secret|key|token|password|env"
    r"|console|systemmessage|message|name|block|hold|allow|let|stop|true|output|claim|ready"
    r"|done|assert|says?)",
    re.IGNORECASE,
)
_CONDITION = re.compile(
    r"\b(?:whenever|when|if|unless|only|once|while|until|except)\b", re.IGNORECASE
)
_UNCONDITIONAL = re.compile(r"\b(?:whatever|regardless|no\s+matter|anyway)\b", re.IGNORECASE)
# Claude as the source of what the part reads: "Claude's own word", "Claude says", "Claude
# may say".
_CLAUDES_WORD = re.compile(
    r"\bclaude\W*s?\s+(?:own\s+)?(?:word|says?|said|saying|claims?|tells?|reports?)\b"
    r"|\bclaude\s+(?:may|can|will|might)\s+say\b",
    re.IGNORECASE,
)
# The hook said not to do something: fine for what a hook must leave out (the log, secrets,
# stdout), a line taken back otherwise ("but the hook does not run them").
_HOOK_NOT = re.compile(r"\bhook\b.*\b(?:not|never|no\s+longer)\b|\bhook\b.*n't\b", re.I)
_LEFT_OUT = re.compile(
    r"\b(?:log|secret|key|token|password|env|stdout|console|full|whole|long)", re.I
)
_NOT_CLAUDES = re.compile(r"\b(?:not|never|nor|no|without|instead\s+of)\W+(?:\w+\W+){0,2}$", re.I)
_DENIES_CLAUDE = re.compile(r"\b(?:not|never|nor|no|without|instead\s+of)\b.*\bclaude\b", re.I)
_ABOUT_EVIDENCE = ("check", "success", "block")
# A sentence ends at . ! ? ; before a space or the end (not the . of ./mvnw or pom.xml).
_SENTENCE = re.compile(r"(?<=[.!?;])\s+")
# A sentence whose subject is a negative, or the line itself under a negation, or an order to
# dismiss it: each takes the line back.
_RETRACTS = re.compile(
    r"^\W*(?:nothing|none|nobody|no\s+one|neither|not|no\s+\w+)\b"
    r"|^\W*(?:this|that|it|all\s+of\s+(?:this|that|it)|the\s+(?:above|line|part|contract))\b"
    r"[^.;]*\b(?:not|never|no\s+longer)\b|^\W*(?:this|that|it)\W*(?:is|does|was)n't\b"
    r"|^\W*(?:ignore|disregard|forget|scratch|drop|strike|delete|skip)\b",
    re.IGNORECASE,
)
# What keeps such a sentence honest: a restriction ("nothing else", "nothing older than"),
# Claude (what the check does not trust).
_RESTRICTS = re.compile(r"\b(?:else|other|besides|but|except|than|claude)\b", re.IGNORECASE)
# Words that name no evidence of their own: "Nothing is checked", "No test runs".
_GENERIC = re.compile(
    r"\b(?:check\w*|runs?|ran|running|tests?|tested|testing|implement\w*|done|real\w*"
    r"|work\w*|happen\w*|does|did|do|exist\w*|verif\w*|pass\w*|fail\w*|files?)\b",
    re.IGNORECASE,
)


def _clauses(said: str) -> list[str]:
    parts = [c.strip(" .`'\"*") for c in _CLAUSE_END.split(said)]
    return [c for c in parts if c]


def _quoted(clause: str) -> str:
    return f"“{clause if len(clause) <= 60 else clause[:59] + '…'}”"


def clause_problem(part: str, said: str) -> str | None:
    """What a clause of ``part``'s line (``said``, after its label) hangs on it that is no
    evidence and nothing the hook does (None: every clause does)."""
    kind = part.lower()
    if kind in _ABOUT_EVIDENCE:
        word = _CLAUDES_WORD.search(said)
        if word and not _NOT_CLAUDES.search(said[: word.start()]):
            return (
                f"your {part}: line rests on what Claude says ({_quoted(word.group(0))}): "
                "Claude's word is the claim, never its evidence; say what the hook reads"
            )
    taken_back = _retraction(said)
    if taken_back is not None:
        return (
            f"your {part}: line takes itself back ({_quoted(taken_back)}): a contract line "
            "says what the hook does, and nothing after it says it does not; leave it out"
        )
    for clause in _clauses(said):
        loose = _UNCONDITIONAL.search(clause)
        if loose:
            return (
                f"your {part}: line holds {_quoted(clause)}: “{loose.group(0)}” makes it hold "
                "whatever the evidence says; leave it out"
            )
        if _HOOK_NOT.search(clause) and not _LEFT_OUT.search(clause):
            return (
                f"your {part}: line says {_quoted(clause)}: that takes back what the line "
                "says the hook does; a contract line says what the hook does, and it does it"
            )
        if _CONDITION.search(clause) and not _EVIDENCE.search(clause):
            return (
                f"your {part}: line puts a condition on it that is not the evidence "
                f"({_quoted(clause)}): a condition names the reports, the tests or the build; "
                "leave it out or say which"
            )
        if _DENIES_CLAUDE.search(clause):
            continue  # "never trust Claude's word": what the check is not
        if not _EVIDENCE.search(clause) and not _DOING.search(clause) and not denial(clause):
            return (
                f"your {part}: line says {_quoted(clause)}, which names neither the evidence "
                "nor what the hook does with it: a contract line says only what the hook "
                "does; leave it out"
            )
    return None


def _retraction(said: str) -> str | None:
    """The first sentence of ``said`` that takes the line back (see the module's last rule)."""
    for sentence in _SENTENCE.split(said.strip()):
        words = sentence.strip(" .;!?`'\"*")
        if not words or not _RETRACTS.search(words):
            continue
        if _LEFT_OUT.search(words) or _RESTRICTS.search(words):
            continue  # "No secrets, no log", "Nothing else is read", "never Claude's word"
        if _EVIDENCE.search(_GENERIC.sub(" ", words)):
            continue  # "No stale report counts": it names the evidence it turns away
        return words
    return None
