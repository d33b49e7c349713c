"""What a person's first interactive ``claude`` in a workspace leaves behind, for the proofs.

A person starts ``claude`` in the workspace and answers the folder's trust dialog (they cannot
go on without it). Observed on 2.1.332, that leaves two things in the client's configuration:
- ``projects[FOLDER].hasTrustDialogAccepted: true`` in ``.claude.json`` (the key the client
  itself names when a ``-p`` session ignores an untrusted folder's ``permissions.allow``);
- the project's own plugin marketplaces (``extraKnownMarketplaces`` in its settings)
  registered in ``plugins/known_marketplaces.json``: a trusted session does that as it starts,
  and its ``enabledPlugins`` then load without any ``claude plugin install``. The interactive
  session that accepted the trust already lists the plugin's agents; a ``-p`` session lists
  them only from the launch after the one that registered the marketplace.

A scripted proof (``-p``, a config directory of its own) gets the same state the same way: the
trust entry, then one launch of the client in the folder, with the project's hooks off (they
belong to the sessions the proof plays), that ends once the marketplaces are registered.
Nothing else: no ``--plugin-dir``, no install.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

from harness.jail import Confinement
from harness.userfiles import json_object

REGISTER_WAIT = 30.0  # seconds the trust launch may take to register the marketplaces


def project_marketplaces(project: Path) -> set[str]:
    """The marketplace names the project's shared settings declare (``extraKnownMarketplaces``)."""
    declared = json_object(project / ".claude" / "settings.json").get("extraKnownMarketplaces")
    return set(declared) if isinstance(declared, dict) else set()


def enabled_plugins(project: Path) -> list[str]:
    """The ``NAME@MARKETPLACE`` entries the project's shared settings enable."""
    enabled = json_object(project / ".claude" / "settings.json").get("enabledPlugins")
    if not isinstance(enabled, dict):
        return []
    return sorted(str(k) for k, v in enabled.items() if v is True)


def registered_marketplaces(config_dir: Path) -> set[str]:
    return set(json_object(config_dir / "plugins" / "known_marketplaces.json"))


def is_trusted(config_dir: Path, folder: Path) -> bool:
    projects = json_object(config_dir / ".claude.json").get("projects")
    entry = projects.get(str(folder)) if isinstance(projects, dict) else None
    return isinstance(entry, dict) and entry.get("hasTrustDialogAccepted") is True


def accept_trust(config_dir: Path, folder: Path) -> None:
    """What answering "Yes, I trust this folder" writes (and "onboarding done", which a
    person's first run also leaves)."""
    path = config_dir / ".claude.json"
    data = json_object(path)
    data["hasCompletedOnboarding"] = True
    projects = data.setdefault("projects", {})
    if not isinstance(projects, dict):
        projects = data["projects"] = {}
    entry = projects.setdefault(str(folder), {})
    if isinstance(entry, dict):
        entry["hasTrustDialogAccepted"] = True
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")


def register_marketplaces(
    client: Path,
    folder: Path,
    config_dir: Path,
    env: Mapping[str, str],
    jail: Confinement | None = None,
) -> set[str]:
    """One launch of the client in the trusted ``folder`` (as the person's trusting session
    was), ended once the project's marketplaces are registered; the names still missing.
    ``jail``: the confinement the session's client runs in, and so this launch too."""
    wanted = project_marketplaces(folder)
    if not wanted - registered_marketplaces(config_dir):
        return set()
    argv = [str(client), "-p", "--input-format", "stream-json", "--output-format", "stream-json"]
    argv += ["--verbose", "--settings", json.dumps({"disableAllHooks": True})]
    environment = {**env, "CLAUDE_CONFIG_DIR": str(config_dir)}
    if jail is not None:
        argv = jail.wrap(argv, cwd=folder, env=environment, writable=[config_dir])
        environment = {}
    with subprocess.Popen(
        argv,
        cwd=folder,
        env=environment,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    ) as process:
        deadline = time.monotonic() + REGISTER_WAIT
        while wanted - registered_marketplaces(config_dir) and time.monotonic() < deadline:
            if process.poll() is not None:
                break
            time.sleep(0.1)
        with contextlib.suppress(OSError):
            os.kill(process.pid, 15)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
    return wanted - registered_marketplaces(config_dir)


def client_state_file(env: Mapping[str, str] | None = None) -> Path:
    """The client's ``.claude.json``: in ``CLAUDE_CONFIG_DIR`` when set, else in HOME."""
    env = os.environ if env is None else env
    explicit = env.get("CLAUDE_CONFIG_DIR", "").strip()
    if explicit:
        return Path(explicit).expanduser() / ".claude.json"
    home = env.get("HOME", "").strip()
    return (Path(home) if home else Path.home()) / ".claude.json"


def plugins_not_ready(root: Path, env: Mapping[str, str] | None = None) -> str | None:
    """Why a plain ``claude`` in ``root`` would not have the plugins the project enables
    (None when nothing is missing). Reads one key of the client's ``.claude.json`` (this
    folder's trust) and the marketplace list, nothing else."""
    plugins = enabled_plugins(root)
    if not plugins:
        return None
    for entry in plugins:
        name, _, market = entry.partition("@")
        listing = json_object(root / ".claude" / "plugins" / ".claude-plugin" / "marketplace.json")
        names = [p.get("name") for p in listing.get("plugins", []) if isinstance(p, dict)]
        if market not in project_marketplaces(root) or name not in names:
            return (
                f"the settings enable {entry}, but .claude/plugins/.claude-plugin/"
                "marketplace.json does not offer it"
            )
    state = client_state_file(env)
    projects = json_object(state).get("projects")
    trusted = isinstance(projects, dict) and any(
        isinstance(v, dict) and v.get("hasTrustDialogAccepted") is True
        for k, v in projects.items()
        if root == Path(k) or root.is_relative_to(Path(k))
    )
    if not trusted:
        return f"{root} is not trusted yet in {state}: Claude Code loads no plugin there"
    from harness.claude.recorded import config_root

    missing = project_marketplaces(root) - registered_marketplaces(config_root(env))
    if missing:
        return (
            "the workspace's plugin marketplace (" + ", ".join(sorted(missing)) + ") is not "
            "registered yet: the first trusted session registers it"
        )
    return None
