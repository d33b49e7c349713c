"""``lab trainer ci``: a GitHub Actions workflow that verifies the room on CI runners.

The room's repository holds the submissions (refs/hooklab/cohorts/…); the workflow lives on
its default branch. A matrix of N jobs each runs ``lab trainer verify - --all --shard I/N
--push`` in the sandbox, on Debian 12 as Hook Lab's own CI does (a privileged container:
bubblewrap makes a user namespace for each submission), with Hook Lab checked out at the
version the trainer runs. Each job keeps its verdicts in the room (refs/hooklab/verified/…),
where ``lab trainer status`` and the page read them. The room's URL, with the job's token in
it, reaches verify through the environment, never on a command line or in the log.

GitLab CI is not written: its shared runners are not privileged (no bubblewrap there) and its
job token cannot push to the repository, so a room there needs a runner and a token of its
own (docs/trainer-guide.md).
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from harness import __version__
from harness.errors import ConfigError
from harness.paths import CHECKOUT_ROOT
from harness.trainer.publish import check_name, normalise_name

DEFAULT_OUTPUT = Path(".github/workflows/hooklab-verify.yml")
SOURCE_PATTERN = re.compile(r"^(?P<repo>[\w.-]+/[\w.-]+)@(?P<ref>[\w./-]+)$")
GITHUB_REMOTE = re.compile(r"github\.com[:/](?P<repo>[\w.-]+/[\w.-]+?)(?:\.git)?/?$")
MAX_SHARDS = 256  # GitHub's limit of jobs in one matrix


@dataclass(frozen=True)
class Workflow:
    shards: int
    cohort: str
    repository: str  # Hook Lab's repository on GitHub, owner/name
    ref: str  # the tag or commit the room verifies with
    every: int | None = None  # minutes between scheduled runs (None: by hand only)

    def render(self) -> str:
        schedule = f'  schedule:\n    - cron: "*/{self.every} * * * *"\n' if self.every else ""
        shards = ", ".join(str(i) for i in range(1, self.shards + 1))
        return TEMPLATE.format(
            version=__version__,
            shards=self.shards,
            matrix=shards,
            cohort=self.cohort,
            repository=self.repository,
            ref=self.ref,
            schedule=schedule,
        )


# ${{ … }} are GitHub's expressions, doubled braces here only for str.format.
TEMPLATE = """\
# Written by `lab trainer ci` (Hook Lab {version}): verifies cohort {cohort} in {shards}
# slices on GitHub's runners and keeps each verdict in the room
# (refs/hooklab/verified/{cohort}/NAME), where `lab trainer status` and the page show it with
# the runner that judged. Run it from the Actions tab (or on its schedule); a job is red when
# a claim in its slice does not hold. Write it again with `lab trainer ci`, not by hand.
name: hooklab-verify

on:
  workflow_dispatch:
{schedule}
permissions:
  contents: write  # the verdicts are pushed to refs/hooklab/verified/

env:
  DEBIAN_FRONTEND: noninteractive

concurrency:
  group: hooklab-verify-{cohort}
  cancel-in-progress: false

jobs:
  verify:
    name: verify slice ${{{{ matrix.shard }}}} of {shards}
    runs-on: ubuntu-24.04
    timeout-minutes: 60
    container:
      image: debian:bookworm
      # bubblewrap makes a user namespace for each submission it runs
      options: --privileged
    strategy:
      fail-fast: false
      matrix:
        shard: [{matrix}]
    steps:
      - name: git and bubblewrap
        run: >-
          apt-get update -qq &&
          apt-get install -y -qq --no-install-recommends git ca-certificates bubblewrap
      - name: Hook Lab at the trainer's version
        uses: actions/checkout@v4
        with:
          repository: {repository}
          ref: {ref}
          path: hooklab
      - name: Java 17, Maven and Debian's Maven repository, Hook Lab's venv
        working-directory: hooklab
        run: ./scripts/bootstrap.sh
      - name: verify slice ${{{{ matrix.shard }}}} of {shards}, verdicts kept in the room
        working-directory: hooklab
        env:
          TOKEN: ${{{{ secrets.GITHUB_TOKEN }}}}
          # signs the verdicts: participants can push to the room too (lab trainer ci made it)
          HOOKLAB_VERDICT_KEY: ${{{{ secrets.HOOKLAB_VERDICT_KEY }}}}
          SHARD: ${{{{ matrix.shard }}}}
          # a hosted runner's name reads "GitHub Actions 7"
          HOOKLAB_RUNNER: >-
            ${{{{ runner.name }}}} (slice ${{{{ matrix.shard }}}}/{shards},
            run ${{{{ github.run_id }}}})
        run: |
          # the room's URL with the token in it: in the environment, never on a command line
          room="${{GITHUB_SERVER_URL/:\\/\\//://x-access-token:$TOKEN@}}/$GITHUB_REPOSITORY.git"
          export HOOKLAB_VERIFY_REMOTE="$room"
          # a verify waits more than it computes: two at once per vCPU (docs/trainer-guide.md)
          .venv/bin/python -m harness trainer verify - --all --cohort {cohort} \\
            --shard "$SHARD/{shards}" --jobs "$(( $(nproc) * 2 ))" --push
"""


def parse_source(text: str) -> tuple[str, str]:
    found = SOURCE_PATTERN.match(text)
    if found is None:
        raise ConfigError(
            "command line",
            "--source",
            f"{text!r} is not OWNER/REPO@REF",
            fix="name Hook Lab's repository on GitHub and the tag or commit the room uses, "
            "e.g. --source my-org/hooklab@v0.1.0",
        )
    return found["repo"], found["ref"]


def source_here() -> tuple[str, str] | None:
    """This checkout's GitHub repository and commit, when it is a clone of one."""

    def git(*argv: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(CHECKOUT_ROOT), *argv], capture_output=True, text=True, check=False
        )
        return done.stdout.strip() if done.returncode == 0 else ""

    found = GITHUB_REMOTE.search(git("remote", "get-url", "origin"))
    commit = git("rev-parse", "HEAD")
    return (found["repo"], commit) if found and commit else None


def workflow(shards: int, cohort: str, source: str | None, every: int | None) -> Workflow:
    """The workflow for these settings; a clear error for any that cannot work."""
    if not 1 <= shards <= MAX_SHARDS:
        raise ConfigError(
            "command line",
            "--shards",
            f"{shards} slices: a GitHub matrix runs 1 to {MAX_SHARDS} jobs",
            fix="e.g. --shards 4 (docs/trainer-guide.md says how many a room needs)",
        )
    if every is not None and not 5 <= every <= 59:
        raise ConfigError(
            "command line",
            "--every",
            f"every {every} minutes: GitHub runs a schedule at most every 5 minutes, and a "
            "cron minute field counts to 59",
            fix="e.g. --every 15, or leave it out and run the workflow by hand",
        )
    found = parse_source(source) if source else source_here()
    if found is None:
        raise ConfigError(
            "command line",
            "--source",
            "this Hook Lab is not a clone of a GitHub repository, so the runners cannot "
            "check out the same version",
            fix="--source OWNER/REPO@REF, e.g. --source my-org/hooklab@v0.1.0",
        )
    return Workflow(shards, check_name(normalise_name(cohort), "--cohort"), *found, every)
