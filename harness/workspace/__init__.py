"""Participants' workspaces as git repositories."""

from __future__ import annotations

from harness.workspace.fixture import Fixture, all_fixtures, get_fixture
from harness.workspace.provisioning import ProvisionResult, empty_workspace, provision
from harness.workspace.workspace import (
    Workspace,
    WorkspaceBusy,
    fixture_dir,
    progress_document,
)
from harness.workspace.worktree import Backup

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
