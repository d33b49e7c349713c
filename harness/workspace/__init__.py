"""Participants' workspaces as git repositories."""

from __future__ import annotations

from harness.workspace.fixture import Fixture, all_fixtures, get_fixture
from harness.workspace.workspace import (
    Backup,
    ProvisionResult,
    Workspace,
    WorkspaceBusy,
    empty_workspace,
    fixture_dir,
    progress_document,
    provision,
)

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
