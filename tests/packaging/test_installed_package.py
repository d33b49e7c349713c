"""The package route: build the sdist and the wheel, install the wheel into a fresh venv outside
the checkout, and work a lab with that ``lab`` on real Maven.

Nothing of the checkout may leak in: the venv is new, the commands run in a temporary
directory with no HOOKLAB_LABS, HOOKLAB_FIXTURE or PYTHONPATH, and the test asserts that the
``harness`` they import is the installed one.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.builders import REPO_ROOT

pytestmark = [pytest.mark.slow, pytest.mark.maven]

BUNDLED = "harness/_bundled"
# Files whose executable bit or dotted folder a careless build drops.
EXECUTABLE = [
    "petclinic_fixture/mvnw",
    "petclinic_fixture/.mvn/mvnw-docker",
    "petclinic_fixture/.claude/hooks/require-sensors.sh",
    "petclinic_fixture/.claude/hooks/smoke.sh",
    "labs/07-own-stop-hook/solution/check-before-stop.sh",
    "node_fixture/scripts/check-before-stop.sh",
]
DOTTED = [
    "petclinic_fixture/.gitignore",
    "petclinic_fixture/.claude/settings.json",
    "petclinic_fixture/.claude/plugins/aiup-vaadin-jooq/.claude-plugin/plugin.json",
    "node_fixture/.gitignore",
    "node_fixture/.claude/settings.json",
]
# Every shipped fixture's folder (harness/workspace/fixture.py SHIPPED).
FIXTURES = ["petclinic_fixture", "node_fixture"]


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def tracked(folder: str) -> set[str]:
    listed = subprocess.run(
        ["git", "ls-files", folder], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    return set(listed.stdout.split())


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``python -m build``: the sdist, then the wheel built from that sdist."""
    out = tmp_path_factory.mktemp("dist")
    done = run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(REPO_ROOT)],
        REPO_ROOT,
        dict(os.environ),
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


def test_the_sdist_carries_labs_and_fixture_with_modes_and_dotfiles(dist: Path) -> None:
    (sdist,) = dist.glob("hooklab-*.tar.gz")
    with tarfile.open(sdist) as tar:
        members = {m.name.split("/", 1)[1]: m for m in tar.getmembers() if "/" in m.name}
    assert set().union(*(tracked(f) for f in ["labs", *FIXTURES])) <= set(members)
    for name in EXECUTABLE:
        assert members[name].mode & stat.S_IXUSR, f"{name} lost its executable bit in the sdist"
    assert not [n for n in members if "/target/" in n], "build output leaked into the sdist"


def test_the_wheel_carries_them_as_package_data(dist: Path) -> None:
    (wheel,) = dist.glob("hooklab-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        modes = {info.filename: info.external_attr >> 16 for info in zf.infolist()}
    wanted = {f"{BUNDLED}/{n}" for f in ["labs", *FIXTURES] for n in tracked(f)}
    assert wanted <= set(modes), sorted(wanted - set(modes))[:10]
    for name in EXECUTABLE:
        assert modes[f"{BUNDLED}/{name}"] & stat.S_IXUSR, f"{name} is not executable in the wheel"
    for name in DOTTED:
        assert f"{BUNDLED}/{name}" in modes
    assert not [n for n in modes if "/target/" in n or "__pycache__" in n]
    # The top-level folders are mapped into the package, not shipped beside it.
    assert not [n for n in modes if n.startswith(("labs/", *(f"{f}/" for f in FIXTURES)))]


@pytest.fixture(scope="module")
def installed(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A fresh venv outside the checkout with the wheel installed; the env to run it in."""
    home = tmp_path_factory.mktemp("installed")
    venv = home / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    (wheel,) = dist.glob("hooklab-*.whl")
    pip = run([str(venv / "bin" / "pip"), "install", "-q", str(wheel)], home, dict(os.environ))
    assert pip.returncode == 0, pip.stderr[-3000:]
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"HOOKLAB_LABS", "HOOKLAB_FIXTURE", "PYTHONPATH", "VIRTUAL_ENV"}
    }
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env['PATH']}"
    env["NO_COLOR"] = "1"
    return home, env


def test_the_installed_lab_imports_nothing_from_the_checkout(
    installed: tuple[Path, dict[str, str]],
) -> None:
    home, env = installed
    probe = "import harness.paths as p; print(p.__file__); print(p.bundled_dir('labs', 'X'))"
    done = run([str(home / "venv/bin/python"), "-c", probe], home, env)
    module, labs = done.stdout.split()
    assert Path(module).is_relative_to(home / "venv"), module
    assert Path(labs).is_relative_to(home / "venv") and Path(labs, "01-sensor-reports").is_dir()


def test_init_start_and_check_work_from_the_installed_package(
    installed: tuple[Path, dict[str, str]],
) -> None:
    home, env = installed
    init = run(["lab", "init", "ws"], home, env)
    assert init.returncode == 0, init.stdout + init.stderr
    ws = home / "ws"
    assert os.access(ws / ".claude/hooks/require-sensors.sh", os.X_OK)
    assert os.access(ws / "mvnw", os.X_OK)

    listed = run(["lab", "list"], ws, env)
    assert listed.returncode == 0 and "01-sensor-reports" in listed.stdout, listed.stderr
    started = run(["lab", "start", "1"], ws, env)
    assert started.returncode == 0, started.stdout + started.stderr
    assert "Run the sensors" in started.stdout

    before = run(["lab", "check"], ws, env)
    assert before.returncode == 1, before.stdout + before.stderr
    assert "absent" in before.stdout

    sensors = run(["./mvnw", "-q", "test", "-Dgroups=sensor"], ws, env)
    assert sensors.returncode == 0, sensors.stdout[-3000:]
    after = run(["lab", "check"], ws, env)
    assert after.returncode == 0, after.stdout + after.stderr
    assert "Step 1 passed" in after.stdout


def test_both_fixtures_provision_from_the_installed_package(
    installed: tuple[Path, dict[str, str]],
) -> None:
    home, env = installed
    listed = run(["lab", "fixtures", "--json"], home, env)
    assert listed.returncode == 0, listed.stderr
    fixtures = {f["name"]: Path(f["dir"]) for f in json.loads(listed.stdout)}
    assert list(fixtures) == ["petclinic", "node"]
    assert all(d.is_relative_to(home / "venv") for d in fixtures.values()), fixtures
    for name, marker, hook in (
        ("petclinic", "pom.xml", ".claude/hooks/require-sensors.sh"),
        ("node", "package.json", "scripts/check-before-stop.sh"),
    ):
        init = run(["lab", "init", f"ws-{name}", "--fixture", name], home, env)
        assert init.returncode == 0, init.stdout + init.stderr
        ws = home / f"ws-{name}"
        assert (ws / marker).is_file() and os.access(ws / hook, os.X_OK)
        assert not (ws / "fixture.toml").exists()
    labs = run(["lab", "list", "--json"], home / "ws-node", env)
    assert [lab["id"] for lab in json.loads(labs.stdout)] == ["12-stop-contract", "13-full-cycle"]
    started = run(["lab", "start", "12"], home / "ws-node", env)
    assert started.returncode == 0, started.stdout + started.stderr
    tested = run(["npm", "test"], home / "ws-node", env)
    assert tested.returncode == 0, tested.stdout[-2000:]


def test_the_demo_runs_from_the_installed_package(installed: tuple[Path, dict[str, str]]) -> None:
    home, env = installed
    demo = run(["lab", "demo", str(home / "demo-ws"), "--labs", "1"], home, env)
    assert demo.returncode == 0, demo.stdout[-3000:] + demo.stderr[-3000:]
    assert "01-sensor-reports" in demo.stdout


def test_doctor_knows_the_installed_lab(installed: tuple[Path, dict[str, str]]) -> None:
    home, env = installed
    done = run(["lab", "doctor", "--json"], home, env)

    on_path = next(c for c in json.loads(done.stdout)["checks"] if c["name"] == "lab on PATH")
    assert on_path["state"] == "ok", on_path
    assert on_path["found"] == str(home / "venv" / "bin" / "lab")


def test_pipx_install_of_the_checkout_gives_a_working_lab(
    tmp_path: Path, installed: tuple[Path, dict[str, str]]
) -> None:
    """``pipx install DIR``, the one line a trainer sends a room: pipx itself comes from PyPI
    into a venv of this test; its apps and its PATH directory stay in the temporary folder."""
    _, base_env = installed
    tools = tmp_path / "tools"
    subprocess.run([sys.executable, "-m", "venv", str(tools)], check=True, timeout=300)
    got = run([str(tools / "bin/pip"), "install", "-q", "pipx"], tmp_path, dict(os.environ))
    assert got.returncode == 0, got.stderr[-3000:]
    env = {
        **base_env,
        "PIPX_HOME": str(tmp_path / "pipx"),
        "PIPX_BIN_DIR": str(tmp_path / "pipx-bin"),
        "PIPX_MAN_DIR": str(tmp_path / "pipx-man"),
        "PATH": f"{tmp_path / 'pipx-bin'}{os.pathsep}{os.environ['PATH']}",
    }
    done = run([str(tools / "bin/pipx"), "install", str(REPO_ROOT)], tmp_path, env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    lab = tmp_path / "pipx-bin" / "lab"
    assert lab.resolve().is_relative_to(tmp_path / "pipx")
    init = run(["lab", "init", "ws"], tmp_path, env)
    assert init.returncode == 0, init.stdout + init.stderr
    listed = run(["lab", "list"], tmp_path / "ws", env)
    assert listed.returncode == 0 and "11-try-it-yourself" in listed.stdout, listed.stderr
    started = run(["lab", "start", "1"], tmp_path / "ws", env)
    assert started.returncode == 0, started.stdout + started.stderr
    checked = run(["lab", "check"], tmp_path / "ws", env)
    assert checked.returncode == 1 and "absent" in checked.stdout  # no sensors run yet
