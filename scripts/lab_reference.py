"""Write the "Every field" section of docs/lab-authoring.md from the manifest's declarations
(harness/engine/reference.py); tests/engine/test_lab_reference.py fails while they differ.

    python scripts/lab_reference.py          (from the checkout, with its venv's python)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.engine.reference import with_reference  # noqa: E402
from scripts.module_map import write_page  # noqa: E402

DOC = ROOT / "docs" / "lab-authoring.md"


def main() -> int:
    write_page(DOC, with_reference(DOC.read_text(encoding="utf-8")), "the field reference")
    return 0


if __name__ == "__main__":
    sys.exit(main())
