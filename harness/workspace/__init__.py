"""Participants' workspaces as git repositories."""

from __future__ import annotations

from harness.workspace.workspace import (
    Backup,
    ProvisionResult,
    Workspace,
    WorkspaceBusy,
    fixture_dir,
    provision,
)

__all__ = ["Backup", "ProvisionResult", "Workspace", "WorkspaceBusy", "fixture_dir", "provision"]
