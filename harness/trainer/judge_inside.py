"""The sandbox's side of ``lab trainer verify``: judge a fetched submission, one JSON line per
activity and verdict on stdout (harness/trainer/verify_jail.py runs it; claims.py reads it)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from harness.errors import HarnessError
from harness.trainer.claims import Judging
from harness.trainer.verify_report import StepVerdict, VerifyReport
from harness.workspace import Workspace


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.trainer.judge_inside")
    parser.add_argument("workspace", type=Path)
    parser.add_argument("ref")
    parser.add_argument("--engine", required=True)
    parser.add_argument("--backend")
    parser.add_argument("--labs", type=Path)
    parser.add_argument("--only", action="append", help="lab/step: judge just these claims")
    args = parser.parse_args(argv)
    # The participant's scripts write to this process's stdout too: ours go to a copy of it,
    # theirs (fd 1 of the subprocesses) to stderr, which the trainer's side does not parse.
    # fd 1 itself becomes stderr, so no script can print a line that looks like a verdict.
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def say(**fields: object) -> None:
        out.write(json.dumps(fields) + "\n")
        out.flush()

    def on_verdict(verdict: StepVerdict) -> None:
        say(verdict=verdict.to_json())

    ws = Workspace(args.workspace)
    report = VerifyReport("", "", "", "", args.engine)
    try:
        only = frozenset(args.only) if args.only else None
        Judging(args.ref, args.engine, args.backend, args.labs, only).run(
            ws, report, lambda text: say(activity=text), on_verdict
        )
    except HarnessError as exc:
        print(f"{exc.message} (fix: {exc.fix})", file=sys.stderr)
        return 1
    say(end=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
