"""`./scripts/test.sh` on a machine that already ran it once: its last recorded run.

The whole suite takes many minutes and is CI's to run, so this reads the figure the script
records when it ends (build/test-results/test-sh.json: seconds, exit status, cores, and the
tests pytest ran, failed, errored and skipped) instead of running it. Aim: at most 12 minutes
on 2 cores, the floor being those 12 minutes.
"""

from __future__ import annotations

import json

from benchmarks.report import REPO_ROOT, Options, Row, Unavailable, run_standalone

RECORD = REPO_ROOT / "build" / "test-results" / "test-sh.json"
AIM_SECONDS = 12 * 60


def measure(options: Options) -> list[Row]:
    if not RECORD.is_file():
        raise Unavailable(f"no recorded ./scripts/test.sh run ({RECORD.relative_to(REPO_ROOT)})")
    run = json.loads(RECORD.read_text())
    return [
        Row(
            "./scripts/test.sh, packages and image present (its last recorded run)",
            float(run["seconds"]),
            "s",
            floor=float(AIM_SECONDS),
            aim=1.0,
            note=f"finished {run.get('finished')}, exit {run.get('exit')}, "
            f"{run.get('cpus')} cores, {_tests(run)}; recorded by the script itself, "
            "not timed here",
        )
    ]


def _tests(run: dict[str, object]) -> str:
    """How many tests the run held: a faster run must not be a smaller one."""
    if run.get("tests") is None:  # recorded before the count was, or pytest wrote no report
        return "tests not counted"
    return f"{run['tests']} tests ({run.get('failures')} failed, {run.get('skipped')} skipped)"


if __name__ == "__main__":
    run_standalone(measure)
