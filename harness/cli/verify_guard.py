"""``lab verify-hook SCRIPT --cases FILE``: a guard graded against its case table, on the
engines asked for, with the contract every guard owes (harness/grading/guard.py)."""

from __future__ import annotations

import argparse
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from harness.claude.settings_check import SettingsWarning
from harness.claude.vocabulary import AUTO, BOTH, ENGINES, Engine
from harness.cli.common import confining, emit_json
from harness.errors import HarnessError
from harness.grading.cases import load_cases
from harness.grading.guard import GuardGrade, grade_guard
from harness.grading.registration import Registered
from harness.jail import describe


def engines_for(choice: str) -> tuple[str, ...]:
    """``both`` is the two engines; ``auto`` both when the pinned client is installed."""
    if choice == BOTH:
        return ENGINES
    if choice == AUTO:
        from harness.claude.client.install import find_client

        return ENGINES if find_client() is not None else (Engine.EMULATOR.value,)
    return (choice,)


def write_junit(path: Path, xml: str) -> None:
    try:
        path.write_text(xml, encoding="utf-8")
    except OSError as exc:
        raise HarnessError(
            f"--junit-xml {path}: cannot write it ({exc.strerror or exc})",
            fix="give a path in a folder that exists and that you can write to",
        ) from exc


def grade_guard_cli(
    args: argparse.Namespace,
    console: Any,
    where: Path,
    script: Path,
    entries: list[Registered],
    unfired: tuple[SettingsWarning, ...],
    in_workspace: bool,
) -> int:
    """Grade in a throwaway copy (``where`` is one already, unless ``in_workspace``): an
    allowed Write or command changes it, never the participant's files."""
    cases = load_cases(args.cases)  # a bad table is refused before anything runs
    engines = engines_for(args.engine)
    with ExitStack() as stack:
        root = where
        if in_workspace:
            from harness.engine.throwaway import sandbox_copy

            root = stack.enter_context(sandbox_copy(where))
            script = root / script.relative_to(where) if script.is_relative_to(where) else script
        jail = stack.enter_context(confining(args, root, "lab verify-hook"))
        if args.json:
            grade = grade_guard(root, script, entries, cases, engines=engines, confinement=jail)
        else:
            grade = _graded_on_screen(console, root, script, entries, cases, engines, jail, unfired)
    if args.junit_xml is not None:
        write_junit(args.junit_xml, grade.junit_xml())
    if args.json:
        emit_json(
            {
                **grade.to_json(),
                "copy": True,
                "confined": jail is not None,
                "settings_warnings": [w.to_json() for w in unfired],
            }
        )
    else:
        from harness.ui.guard_view import render_guard_grade
        from harness.ui.prose import print_prose, prose

        render_guard_grade(console, grade)
        print_prose(console, prose("Played on a throwaway copy of the project. " + describe(jail)))
        console.print(grade.summary(), soft_wrap=True)
    return 0 if grade.passed else 1


def _graded_on_screen(
    console: Any,
    root: Path,
    script: Path,
    entries: list[Registered],
    cases: Any,
    engines: tuple[str, ...],
    jail: Any,
    unfired: tuple[SettingsWarning, ...],
) -> GuardGrade:
    from harness.ui.settings_view import print_settings_warnings

    print_settings_warnings(unfired, console)
    with console.status("grading …", spinner="dots") as status:
        return grade_guard(
            root,
            script,
            entries,
            cases,
            engines=engines,
            confinement=jail,
            progress=lambda what: status.update(f"grading: {what} …"),
        )
