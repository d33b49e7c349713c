"""What the machine has for the workshop: each finding says what was found and how to fix it."""

from __future__ import annotations

import os
import re
import shutil
import socket
import sys
import zipfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import urlparse

from harness import jail, proc
from harness.doctor.system import System, detect, install_command, java_on_path_hint, needs
from harness.maven.local import DEBIAN_MAVEN_REPO
from harness.paths import CHECKOUT_ROOT, in_checkout
from harness.workspace.fixture import Fixture

OK, WARN, MISSING = "ok", "warn", "missing"
# What the doctor checks for when no fixture is named: the default fixture's needs.
PETCLINIC_NEEDS = ("git", "bash", "jq", "maven")


@dataclass(frozen=True)
class Finding:
    name: str
    state: str  # ok | warn | missing
    found: str
    fix: str = ""
    required: bool = True

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def _first_line(text: str) -> str:
    text = proc.strip_ansi(text)
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _tool(
    name: str,
    argv: list[str],
    fix: str,
    *,
    required: bool = True,
    version_re: str | None = None,
    minimum: int | None = None,
) -> Finding:
    path = shutil.which(argv[0])
    if not path:
        return Finding(name, MISSING, "not on PATH", fix, required)
    result = proc.run(argv, timeout=30)
    text = _first_line(result.stdout) or _first_line(result.stderr)
    if not result.ok:
        # e.g. macOS's /usr/bin/java, a stub that only says no Java is installed
        return Finding(name, MISSING, f"{path} fails: {text}", fix, required)
    if version_re and minimum is not None:
        match = re.search(version_re, text)
        if match and int(match.group(1)) < minimum:
            return Finding(name, MISSING, f"{text} (need {minimum} or newer)", fix, required)
    return Finding(name, OK, text or path, "", required)


def check_python(system: System) -> Finding:
    v = sys.version_info
    state = OK if v >= (3, 11) else MISSING
    return Finding(
        "python",
        state,
        f"Python {v.major}.{v.minor}.{v.micro}",
        "" if state == OK else install_command(["python"], system),
    )


def check_java(system: System) -> Finding:
    fix = install_command(["java"], system)
    hint = java_on_path_hint(system)
    return _tool(
        "java",
        ["java", "-version"],
        f"{fix}, {hint}" if hint else fix,
        required=False,
        version_re=r'version "(\d+)',
        minimum=17,
    )


def check_maven(system: System) -> Finding:
    return _tool("maven", ["mvn", "-v"], install_command(["maven"], system), required=False)


_OFFLINE_MARKERS = (
    "org/apache/maven/plugins/maven-surefire-plugin",
    "org/apache/maven/plugins/maven-compiler-plugin",
    "org/junit/jupiter/junit-jupiter-engine",
)


def check_offline_repo(root: Path = DEBIAN_MAVEN_REPO, system: System | None = None) -> Finding:
    if system is not None and system.manager not in (None, "apt") and not root.is_dir():
        return Finding(
            "offline maven repo",
            WARN,
            f"{root} absent (only Debian packages one)",
            "be online for Maven Central, or use the docker backend (lab init --backend docker)",
            required=False,
        )
    if not root.is_dir():
        return Finding(
            "offline maven repo",
            WARN,
            f"{root} absent",
            "apt-get install maven junit5 libsurefire-java "
            "libmaven-compiler-plugin-java libmaven-resources-plugin-java "
            "libmaven-jar-plugin-java libmaven-install-plugin-java "
            "(or be online for Maven Central)",
            required=False,
        )
    missing = [m for m in _OFFLINE_MARKERS if not (root / m).is_dir()]
    if missing:
        return Finding(
            "offline maven repo",
            WARN,
            f"{root} lacks {', '.join(missing)}",
            "apt-get install junit5 libsurefire-java libmaven-compiler-plugin-java",
            required=False,
        )
    return Finding("offline maven repo", OK, f"{root} (Debian's packaged plugins)", required=False)


def _central_url() -> str | None:
    """Maven's own idea of its central repository, read from the installed super POM."""
    from harness.workspace.maven_found import path_without_shims

    mvn = shutil.which("mvn", path=path_without_shims(os.environ.get("PATH", "")))
    if not mvn:
        return None
    lib = Path(mvn).resolve().parent.parent / "lib"
    for jar in sorted(lib.glob("maven-model-builder-*.jar")):
        try:
            with zipfile.ZipFile(jar) as zf:
                pom = zf.read("org/apache/maven/model/pom-4.0.0.xml").decode()
        except (OSError, KeyError, zipfile.BadZipFile):
            continue
        match = re.search(r"<url>(https?://[^<]+)</url>", pom)
        if match:
            return match.group(1)
    return None


def check_network(
    connect: Callable[[str, int], bool] | None = None, *, offline_repo: bool = False
) -> Finding:
    """Maven Central reachable or not; offline with Debian's repository in place, that is
    nothing to fix: every build resolves from it."""
    url = _central_url()
    if url is None:
        return Finding("maven central", WARN, "unknown (no Maven installed to ask)", required=False)
    host = urlparse(url).hostname or ""

    def _connect(h: str, port: int) -> bool:
        try:
            with socket.create_connection((h, port), timeout=3):
                return True
        except OSError:
            return False

    reachable = (connect or _connect)(host, 443)
    if reachable:
        return Finding("maven central", OK, "reachable", required=False)
    if offline_repo:
        return Finding(
            "maven central",
            OK,
            "not reachable, and not needed: the offline maven repo serves every build",
            required=False,
        )
    return Finding(
        "maven central",
        WARN,
        "not reachable (offline)",
        "use Debian's offline repository (see 'offline maven repo') or the docker backend",
        required=False,
    )


def check_docker() -> Finding:
    try:
        from harness.maven import get_backend

        status = get_backend("docker").status()
    except Exception as exc:  # the docker backend must never break the doctor itself
        return Finding("docker", WARN, f"cannot check: {exc}", required=False)
    state = OK if status.usable else WARN
    return Finding("docker", state, status.detail, status.fix or "", required=False)


def check_lab_on_path() -> Finding:
    """The guides say a bare ``lab``: is that this Hook Lab (a checkout's, or this install's)?"""
    found = shutil.which("lab")
    # The entry point installed beside this interpreter (a venv's or pipx's bin directory).
    own = Path(sys.executable).parent / "lab"
    if in_checkout():
        fix = f"run {CHECKOUT_ROOT / 'scripts' / 'bootstrap.sh'}: it puts lab on your PATH"
    else:
        fix = f"put {own.parent} on your PATH (installed with pipx: pipx ensurepath)"
    if not found:
        return Finding("lab on PATH", WARN, "no lab on PATH", fix, required=False)
    target = Path(found).resolve()
    ours = target == own.resolve() or (in_checkout() and target.is_relative_to(CHECKOUT_ROOT))
    if not ours:
        return Finding("lab on PATH", WARN, f"{found} is another lab ({target})", fix, False)
    return Finding("lab on PATH", OK, found, required=False)


def check_claude_code() -> Finding:
    """The pinned real client, for ``--engine claude-code`` (the emulator needs none)."""
    from harness.claude.client.install import find_client, install_dir, wanted_version

    wanted = wanted_version()
    client = find_client()
    if client is not None:
        return Finding(
            "claude code",
            OK,
            f"{client.version} (pinned {wanted}) at {client.path}",
            required=False,
        )
    return Finding(
        "claude code",
        WARN,
        f"{wanted} (pinned) not installed in {install_dir(wanted)}; the emulator still works",
        "lab doctor --fix",
        required=False,
    )


def own_claude_version(path: str) -> tuple[str | None, str]:
    """Ask the ``claude`` at ``path`` for its version, with a throwaway config directory:
    (the version, or None when it tells none; what it said)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="hooklab-doctor-claude-") as config:
        env = {**os.environ, "CLAUDE_CONFIG_DIR": config, "DISABLE_AUTOUPDATER": "1"}
        result = proc.run([path, "--version"], env=env, timeout=30)
    text = _first_line(result.stdout) or _first_line(result.stderr)
    match = re.search(r"\d+\.\d+\.\d+", text)
    if result.returncode != 0 or match is None:
        return None, text or f"exit {result.returncode}"
    return match.group(0), text


def check_own_claude() -> Finding:
    """The participant's own ``claude`` (the one live steps use), beside the pinned one. It is
    asked only for its version, with a throwaway config directory: the participant's own
    ~/.claude, login and settings are never read or changed."""
    from harness.claude.client.install import wanted_version

    pinned = wanted_version()
    path = shutil.which("claude")
    if not path:
        return Finding(
            "your claude",
            WARN,
            "no claude on PATH: live steps need your own Claude Code",
            "install Claude Code, or pass live steps with lab check --scripted",
            required=False,
        )
    version, said = own_claude_version(path)
    if version is None:
        return Finding(
            "your claude",
            WARN,
            f"{path} does not tell its version ({said})",
            "check your Claude Code installation (claude --version)",
            required=False,
        )
    same = "the pinned one" if version == pinned else f"pinned {pinned}"
    return Finding(
        "your claude",
        OK if version == pinned else WARN,
        f"{version} ({same}) at {path}",
        ""
        if version == pinned
        else "live steps read its transcripts as far as they go; "
        "lab doctor --prove-client shows which hooks hold on it",
        required=False,
    )


def check_audit_agent(start: Path | None = None) -> Finding | None:
    """In a workspace whose settings enable a plugin (Lab 11's audit agent): would a plain
    ``claude`` there have it? Reads one key of the client's ``.claude.json`` (this folder's
    trust) and its list of marketplaces; None outside a workspace."""
    from harness.claude.client.trust import enabled_plugins, plugins_not_ready
    from harness.errors import HarnessError
    from harness.workspace import Workspace

    try:
        root = Workspace.find(start).root
    except HarnessError:
        return None
    if not enabled_plugins(root):
        return None
    problem = plugins_not_ready(root)
    if problem is None:
        return Finding("audit agent", OK, f"aiup-vaadin-jooq loads in {root}", required=False)
    return Finding(
        "audit agent",
        WARN,
        problem,
        f"start claude in {root} and answer 'Yes, I trust this folder' (that loads it); "
        "if a session then says the agent is not found, start claude there once more",
        required=False,
    )


def check_hook_settings(start: Path | None = None) -> list[Finding]:
    """In a project with ``.claude/settings.json`` (a workspace or your own repository): one
    row per hook or rule the pinned client would never run, in its own words where it has
    them (``settings_check``); nothing outside one."""
    from harness.claude.settings import find_project_root
    from harness.claude.settings_check import check_settings
    from harness.errors import HarnessError

    try:
        root = find_project_root(start or Path.cwd())
    except HarnessError:
        return []
    warnings = check_settings(root)
    if not warnings:
        return [Finding("hook settings", OK, f"Claude Code runs every hook and rule in {root}")]
    return [
        Finding(
            "hook settings",
            WARN,
            f"{w.where}: " + (f"Claude Code says: {w.said}" if w.client else w.said),
            w.fix,
            required=False,
        )
        for w in warnings
    ]


def check_jail() -> Finding:
    """bubblewrap, in which lab simulate, replay and verify-hook confine their tool calls."""
    problem = jail.unavailable()
    if problem is None:
        return Finding("bubblewrap", OK, "confines simulate, replay, verify-hook", required=False)
    return Finding(
        "bubblewrap",
        WARN,
        f"{problem}: lab simulate, replay and verify-hook refuse without --unconfined",
        jail.INSTALL_FIX,
        required=False,
    )


def run_checks(system: System | None = None, fixture: Fixture | None = None) -> list[Finding]:
    """Every check for the workshop on ``fixture`` (default: the PetClinic's needs): what the
    fixture needs is required, the rest is shown as optional; Maven's rows only for a fixture
    that builds with Maven."""
    here = system or detect()
    needs = set(fixture.needs) if fixture is not None else set(PETCLINIC_NEEDS)
    maven = "maven" in needs
    findings = [
        check_python(here),
        check_lab_on_path(),
        _tool("git", ["git", "--version"], install_command(["git"], here)),
        _tool(
            "bash",
            ["bash", "--version"],
            install_command(["bash"], here),
            version_re=r"version (\d+)",
            minimum=4,
        ),
        _tool("jq", ["jq", "--version"], install_command(["jq"], here), required="jq" in needs),
    ]
    if maven:
        findings += [
            check_java(here),
            check_maven(here),
            offline := check_offline_repo(system=here),
            check_network(offline_repo=offline.state == OK),
            check_docker(),
        ]
    findings += [
        _tool(
            "node",
            ["node", "--version"],
            install_command(["node"], here),
            required="node" in needs,
        ),
        _tool("npm", ["npm", "--version"], install_command(["npm"], here), required="npm" in needs),
        check_claude_code(),
        check_own_claude(),
        check_jail(),
    ]
    agent = check_audit_agent()
    if agent is not None:
        findings.append(agent)
    findings += check_hook_settings()
    verdict = [maven_verdict(findings)] if maven else []
    return [*findings, system_packages(findings, here), *verdict]


def system_packages(findings: list[Finding], system: System) -> Finding:
    """Everything missing, as the one command that installs it here (bootstrap prints the same)."""
    missing = [f.name for f in findings if f.state == MISSING and f.name in needs()]
    fix = install_command(missing, system)
    if not fix:
        return Finding("system packages", OK, f"{system.label}: none missing", required=False)
    return Finding("system packages", WARN, f"{system.label}: {', '.join(missing)}", fix, False)


def maven_verdict(findings: list[Finding]) -> Finding:
    """Maven can run somewhere: here (with a repository to resolve from) or in a container."""
    by = {f.name: f for f in findings}
    local = (
        by["java"].state == OK
        and by["maven"].state == OK
        and (by["offline maven repo"].state == OK or by["maven central"].state == OK)
    )
    if local:
        return Finding("sensors can run", OK, "on this machine (backend local)")
    if by["docker"].state == OK:
        return Finding("sensors can run", OK, "in a container (backend docker)")
    return Finding(
        "sensors can run",
        MISSING,
        "neither local Maven nor Docker is usable",
        "install Java 17 and Maven (see above) or start Docker and build the image: "
        "scripts/docker-up.sh",
    )
