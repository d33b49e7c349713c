"""Participants' workspaces as git repositories."""

from __future__ import annotations

from harness.workspace.workspace import (
    Backup,
    ProvisionResult,
    Workspace,
    empty_workspace,
    fixture_dir,
    progress_document,
    provision,
)

__all__ = [
    "Backup",
    "ProvisionResult",
    "Workspace",
    "empty_workspace",
    "fixture_dir",
    "progress_document",
    "provision",
]
