"""Participants' workspaces as git repositories."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.lazy import lazy_names

if TYPE_CHECKING:
    from harness.workspace.fixture import Fixture, all_fixtures, get_fixture
    from harness.workspace.provisioning import ProvisionResult, empty_workspace, provision
    from harness.workspace.workspace import (
        Workspace,
        WorkspaceBusy,
        fixture_dir,
        progress_document,
    )
    from harness.workspace.worktree import Backup

# Where each name lives, imported on first use (harness.lazy).
_HOMES = {
    "Backup": "harness.workspace.worktree",
    "Fixture": "harness.workspace.fixture",
    "ProvisionResult": "harness.workspace.provisioning",
    "Workspace": "harness.workspace.workspace",
    "WorkspaceBusy": "harness.workspace.workspace",
    "all_fixtures": "harness.workspace.fixture",
    "empty_workspace": "harness.workspace.provisioning",
    "fixture_dir": "harness.workspace.workspace",
    "get_fixture": "harness.workspace.fixture",
    "progress_document": "harness.workspace.workspace",
    "provision": "harness.workspace.provisioning",
}


__getattr__ = lazy_names(__name__, _HOMES)


__all__ = [
    "Backup",
    "Fixture",
    "ProvisionResult",
    "Workspace",
    "WorkspaceBusy",
    "all_fixtures",
    "empty_workspace",
    "fixture_dir",
    "get_fixture",
    "progress_document",
    "provision",
]
