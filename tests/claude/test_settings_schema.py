"""The settings are declared on harness.schema (one validator for every hand-written file), and
what they accept stayed what the client accepts: null where the client reads "left out",
unknown keys let through at every level."""

from __future__ import annotations

from typing import Any

import pytest

from harness.claude.settings import GROUP_FIELDS, HOOK_FIELDS, parse_settings
from harness.errors import ConfigError
from harness.schema import Field


def test_the_hook_entry_and_the_group_are_declared_fields() -> None:
    assert [f.name for f in HOOK_FIELDS] == [
        "type",
        "command",
        "timeout",
        "async",
        "asyncRewake",
        "if",
        "args",
    ]
    assert [f.name for f in GROUP_FIELDS] == ["matcher", "hooks"]
    assert all(isinstance(f, Field) and f.fix for f in (*HOOK_FIELDS, *GROUP_FIELDS))


def stop(**entry: Any) -> dict[str, Any]:
    return {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", **entry}]}]}}


def test_null_args_and_null_matcher_are_left_out_and_unknown_keys_pass() -> None:
    data = stop(args=None, statusMessage="checking")
    data["hooks"]["Stop"][0].update(matcher=None, note="mine")
    data.update(model="opus", permissions={"defaultMode": "plan", "allow": ["Bash"]})
    settings = parse_settings(data, "s.json")
    hook = settings.hooks["Stop"][0].hooks[0]
    assert (hook.args, settings.hooks["Stop"][0].matcher, hook.timeout) == (None, None, 600.0)
    assert [r.tool for r in settings.permissions.allow] == ["Bash"]


@pytest.mark.parametrize(
    ("entry", "field", "problem"),
    [
        ({"type": None}, "type", "is missing"),
        ({"timeout": None}, "timeout", "must be a positive number"),
        ({"timeout": float("nan")}, "timeout", "must be a positive number"),
        ({"async": None}, "async", "must be true or false"),
        ({"if": None}, "if", "None is not a permission rule"),
        ({"if": "Edit("}, "if", "'Edit(' is not a permission rule"),
    ],
)
def test_null_where_the_client_wants_a_value_is_refused(
    entry: dict[str, Any], field: str, problem: str
) -> None:
    with pytest.raises(ConfigError) as info:
        parse_settings(stop(**entry), ".claude/settings.json")
    assert (info.value.field, info.value.problem) == (f"hooks.Stop[0].hooks[0].{field}", problem)
