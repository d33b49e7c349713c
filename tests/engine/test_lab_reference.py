"""docs/lab-authoring.md documents every field a manifest may hold: its "Every field" section
is generated from the declarations the manifest is checked against, and must equal them."""

from __future__ import annotations

from harness.engine.actions import ACTION_KINDS
from harness.engine.checks import CHECK_KINDS
from harness.engine.reference import BEGIN, END, manifest_reference, with_reference
from tests.builders import REPO_ROOT

GUIDE = REPO_ROOT / "docs" / "lab-authoring.md"


def test_the_guide_holds_every_field_as_the_schema_declares_it() -> None:
    doc = GUIDE.read_text(encoding="utf-8")
    assert BEGIN in doc and END in doc
    assert with_reference(doc) == doc, (
        "docs/lab-authoring.md's field reference differs from the schema: "
        "run python scripts/lab_reference.py"
    )


def test_the_reference_names_every_kind_and_field() -> None:
    text = manifest_reference()
    for key, kinds in (("do", ACTION_KINDS), ("kind", CHECK_KINDS)):
        for name, kind in kinds.items():
            assert f'#### `{key} = "{name}"`' in text
            section = text.split(f'#### `{key} = "{name}"`', 1)[1].split("####", 1)[0]
            for field in kind.params:
                assert field.name in (key, "kind", "do") or f"| `{field.name}` |" in section
    for word in ("stop_reason", "agent_type", "marker_absent", "input_contains", "ask"):
        assert f"| `{word}` |" in text


def test_the_guide_says_where_an_author_s_labs_live() -> None:
    doc = GUIDE.read_text(encoding="utf-8")
    assert "HOOKLAB_LABS" in doc and "HOOKLAB_FIXTURE" in doc
