"""``verify-hook``: grading a participant's Stop hook against the contract of SPEC §5.

``grade_stop_hook(project_dir, script, break_cmd=…, fix_cmd=…, stale_cmd=None, timeout=10)``
returns a ``HookGrade`` (``passed``, ``checks``: ``GradeCheck`` with ``name``, ``status``
pass|fail|skip, ``expected``, ``found``, ``problem``, ``detail``, ``fix``);
``HookGrade.to_check_result()`` gives the same grade as a ``CheckResult`` for the lab engine.
"""

from __future__ import annotations

from harness.grading.stop_hook import (
    BLOCKS,
    CHECK_ORDER,
    IN_TIME,
    LETS_GO,
    NO_LEAK,
    PASSES,
    REASON,
    SESSION_ENDS,
    SESSION_HELD,
    STALE,
    GradeCheck,
    HookGrade,
    grade_stop_hook,
    hook_command,
)

__all__ = [
    "BLOCKS",
    "CHECK_ORDER",
    "IN_TIME",
    "LETS_GO",
    "NO_LEAK",
    "PASSES",
    "REASON",
    "SESSION_ENDS",
    "SESSION_HELD",
    "STALE",
    "GradeCheck",
    "HookGrade",
    "grade_stop_hook",
    "hook_command",
]
