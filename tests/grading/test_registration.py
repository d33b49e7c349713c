"""verify-hook in the participant's own repository (a plain git repository with the Russian
seed's Stop hook, never provisioned by Hook Lab): the timeout its settings register, the
explanation of the seed's `--runInBand` failure, and a repository left as it was."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.builders import REPO_ROOT, git, run_cli

pytestmark = [pytest.mark.slow]


def own_node_project(where: Path) -> Path:
    """The seed's Node project as a person has it: their own git repository, one commit."""
    root = where / "shop"
    shutil.copytree(REPO_ROOT / "node_fixture", root, ignore=shutil.ignore_patterns("dist"))
    (root / "fixture.toml").unlink()
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "my project")
    return root


def grade(root: Path, *extra: str) -> tuple[int, dict[str, object], str]:
    done = run_cli(
        "verify-hook",
        "scripts/check-before-stop.sh",
        "--break",
        "rm -f dist/app.js",
        "--fix",
        "npm run build",
        "--json",
        *extra,
        cwd=root,
    )
    return done.code, json.loads(done.out), done.err


def test_the_registered_timeout_and_the_failing_command_not_a_loop(tmp_path: Path) -> None:
    root = own_node_project(tmp_path)
    code, report, err = grade(root)
    assert code == 1
    assert report["timeout"] == 30
    assert report["timeout_source"] == ".claude/settings.json: hooks.Stop[0].hooks[0]"
    assert report["copy"] is True and "works on a throwaway copy" in err
    checks = {c["name"]: c for c in report["checks"]}  # type: ignore[attr-defined]
    passes = checks["passes-when-fixed"]
    assert passes["status"] == "fail"
    assert "`npm test -- --runInBand` fails" in passes["problem"]
    assert "node: bad option: --runInBand" in passes["detail"]
    assert "lets go on stop_hook_active" in passes["detail"]
    assert "cap" not in passes["detail"] and "loop" not in passes["detail"]
    assert checks["lets-go-when-active"]["status"] == "pass"
    # The repository is as it was: no dist/, nothing changed, nothing new.
    assert git(root, "status", "--porcelain", "--ignored") == ""


def test_a_given_timeout_wins_and_the_fixed_hook_passes(tmp_path: Path) -> None:
    root = own_node_project(tmp_path)
    hook = root / "scripts" / "check-before-stop.sh"
    hook.write_text(hook.read_text().replace("npm test -- --runInBand", "npm test"))
    code, report, _err = grade(root, "--timeout", "25")
    assert code == 0, report["summary"]
    assert report["timeout"] == 25 and report["timeout_source"] == "given (--timeout)"


def test_a_hook_that_ignores_stop_hook_active_is_told_about_the_cap(tmp_path: Path) -> None:
    root = own_node_project(tmp_path)
    hook = root / "scripts" / "check-before-stop.sh"
    hook.write_text(hook.read_text().replace('if [ "$active" = "true" ]; then', "if false; then"))
    _code, report, _err = grade(root)
    checks = {c["name"]: c for c in report["checks"]}  # type: ignore[attr-defined]
    assert "cap of 9" in checks["passes-when-fixed"]["detail"]
    assert "`npm test -- --runInBand`" in checks["passes-when-fixed"]["detail"]


def test_simulate_in_a_repository_without_settings_is_refused_with_the_fix(
    tmp_path: Path,
) -> None:
    root = own_node_project(tmp_path)
    shutil.rmtree(root / ".claude")
    (root / "s.toml").write_text('[[step]]\ndo = "stop"\n')
    done = run_cli("simulate", "s.toml", "--project", str(root), cwd=root)
    assert done.code == 1
    assert "has no .claude/settings.json" in done.err and "lab init DIR" in done.err
