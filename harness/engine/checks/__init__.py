"""Check kinds, one module each, registered here. A check returns pass, fail or error."""

from __future__ import annotations

from typing import Any

from harness.engine.checks import (
    contract,
    file,
    git,
    hook_session,
    live_session,
    no_guard,
    quiz,
    renamed_flow,
    scenario_kind,
    sensors,
    settings_kind,
    shell,
    shipped,
    since_start,
    verify_hook_kind,
)
from harness.engine.kinds import Kind

CHECK_KINDS: dict[str, Kind[Any]] = {
    k.name: k
    for k in (
        file.KIND,
        git.KIND,
        sensors.KIND,
        hook_session.KIND,
        live_session.KIND,
        shell.KIND,
        quiz.KIND,
        scenario_kind.KIND,
        verify_hook_kind.KIND,
        contract.KIND,
        settings_kind.KIND,
        shipped.KIND,
        since_start.KIND,
        renamed_flow.KIND,
        no_guard.KIND,
    )
}

__all__ = ["CHECK_KINDS"]
