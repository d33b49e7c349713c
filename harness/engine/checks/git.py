"""``git``: what changed in the workspace, what was committed, whether it is clean."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass

from harness import proc
from harness.engine.context import CheckContext
from harness.engine.kinds import Worded, check_kind
from harness.results import CheckResult
from harness.schema import param


@dataclass(frozen=True, kw_only=True)
class GitParams(Worded):
    """A ``git`` check's parameters, typed (``KIND.params`` is derived from them)."""

    changed: list[str] = param(
        default=[], doc="glob patterns; each must match a changed path (uncommitted or committed)"
    )
    changed_any: list[str] = param(
        default=[], doc="glob patterns; at least one changed path must match one of them"
    )
    unchanged: list[str] = param(default=[], doc="glob patterns no uncommitted change may match")
    committed: list[str] = param(
        default=[], doc="glob patterns each matching a path committed since the lab started"
    )
    commits_since_start: bool = param(
        default=False, doc="count committed changes since the lab started as changes"
    )
    clean: bool = param(default=False, doc="no uncommitted change at all")


def _validate(params: GitParams) -> str | None:
    keys = ("changed", "changed_any", "unchanged", "clean", "committed", "commits_since_start")
    if not any(getattr(params, k) for k in keys):
        return "say what to assert: changed, unchanged, clean, committed or commits_since_start"
    return None


def _git(ctx: CheckContext, *args: str) -> proc.ProcResult:
    return proc.run(["git", *args], cwd=ctx.root, timeout=60)


def _changed(ctx: CheckContext) -> list[str] | CheckResult:
    res = _git(ctx, "status", "--porcelain", "--untracked-files=all", "--no-renames")
    if not res.ok:
        return CheckResult.errored("git status failed in the workspace", output=res.stderr)
    return sorted(line[3:] for line in res.stdout.splitlines() if line.strip())


def _committed_since(ctx: CheckContext, base: str) -> list[str] | CheckResult:
    res = _git(ctx, "diff", "--name-only", f"{base}..HEAD")
    if not res.ok:
        return CheckResult.errored(f"git diff {base[:10]}..HEAD failed", output=res.stderr)
    return sorted(res.stdout.split())


def _hits(patterns: list[str], paths: list[str]) -> dict[str, list[str]]:
    return {pat: [p for p in paths if fnmatch.fnmatch(p, pat)] for pat in patterns}


def _lacking(
    p: GitParams, among: tuple[list[str], list[str]], said: tuple[str, str], found: str
) -> CheckResult | None:
    """The failure naming each pattern of ``among[0]`` no path of ``among[1]`` matches
    (``said``: the headline's and the expectation's words before them); None when all do."""
    patterns, paths = among
    missing = ", ".join(pat for pat, hit in _hits(patterns, paths).items() if not hit)
    if not missing:
        return None
    headline, wanted = said
    return CheckResult.failed(
        p.message or headline + missing, name="git", expected=wanted + missing, found=found
    )


def _committed_instead(ctx: CheckContext, p: GitParams, failed: CheckResult) -> CheckResult:
    """A change the step wants, committed since the lab started: the step counts changes not
    yet committed, and says so (walk-m, Labs 03 and 06 step 1: "found: no changes" for a
    change the person had committed)."""
    base = ctx.lab_start_commit
    committed = _committed_since(ctx, base) if base else []
    if not base or isinstance(committed, CheckResult):
        return failed
    hits = sorted({path for hit in _hits(p.changed_any, committed).values() for path in hit})
    if not hits:
        return failed
    failed.found = (
        f"no change that is not committed yet; committed since the lab started: "
        f"{', '.join(hits[:5])}: a commit does not count, the step looks at what is changed "
        "and not committed (what git status lists)"
    )
    failed.details["fix"] = (
        f"take your commits back into uncommitted changes, your files as they are: git reset "
        f"--soft {base[:12]}; or make another change and leave it uncommitted"
    )
    return failed


def run(ctx: CheckContext, p: GitParams) -> CheckResult:
    name = "git"
    changed = _changed(ctx)
    if isinstance(changed, CheckResult):
        return changed
    if p.clean and changed:
        return CheckResult.failed(
            p.message or "the workspace has uncommitted changes",
            name=name,
            expected="a clean worktree",
            found="\n".join(changed[:20]),
        )
    considered = list(changed)
    if p.committed or p.commits_since_start:
        base = ctx.lab_start_commit
        if not base:
            return CheckResult.errored("no lab start commit recorded; start the lab first")
        committed = _committed_since(ctx, base)
        if isinstance(committed, CheckResult):
            return committed
        lacking = _lacking(
            p,
            (p.committed, committed),
            ("not committed yet: ", "commits since the lab started touching "),
            "\n".join(committed) or "no committed change since the lab started",
        )
        if lacking is not None:
            return lacking
        considered = sorted(set(considered) | set(committed))
    lacking = _lacking(
        p,
        (p.changed, considered),
        ("no change yet to ", "a change to "),
        "\n".join(considered[:20]) or "no changes",
    )
    if lacking is not None:
        return lacking
    if p.changed_any and not any(_hits(p.changed_any, considered).values()):
        failed = CheckResult.failed(
            p.message or "no change yet to any of " + ", ".join(p.changed_any),
            name=name,
            expected="a change to one of " + ", ".join(p.changed_any),
            found="\n".join(considered[:20]) or "no changes",
        )
        return failed if p.commits_since_start else _committed_instead(ctx, p, failed)
    if p.unchanged:
        touched = [path for hit in _hits(p.unchanged, changed).values() for path in hit]
        if touched:
            return CheckResult.failed(
                p.message or "these should be left alone: " + ", ".join(touched),
                name=name,
                expected="no change to " + ", ".join(p.unchanged),
                found="\n".join(touched),
            )
    return CheckResult.passed(p.pass_message or "the workspace changes are as expected", name=name)


KIND = check_kind(
    "git",
    "changed / unchanged paths, commits since the lab started, a clean worktree",
    run,
    rules=_validate,
)
