"""``verify-hook``: grading a participant's Stop hook against the contract of SPEC §5.

``grade_stop_hook(project_dir, script, break_cmd=…, fix_cmd=…, stale_cmd=None, timeout=10)``
returns a ``HookGrade`` (``passed``, ``checks``: ``GradeCheck`` with ``name``, ``status``
pass|fail|skip, ``expected``, ``found``, ``problem``, ``detail``, ``fix``);
``HookGrade.to_check_result()`` gives the same grade as a ``CheckResult``;
``verify_hook(project_dir, script, break_cmd=…, …) -> CheckResult`` is the lab engine's entry
(a missing or non-executable script fails, a failing break/fix/stale command is an error).
The contract's check names (BLOCKS, REASON, ...) and CHECK_ORDER are in ``stop_grade``; the
clauses are judged in ``stop_judges``.
"""

from __future__ import annotations

from harness.grading.stop_grade import CHECK_ORDER, GradeCheck, HookGrade
from harness.grading.stop_hook import HookScriptError, grade_stop_hook, hook_command, verify_hook

__all__ = [
    "CHECK_ORDER",
    "GradeCheck",
    "HookGrade",
    "HookScriptError",
    "grade_stop_hook",
    "hook_command",
    "verify_hook",
]
