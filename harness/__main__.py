"""`python -m harness`: the `lab` command, run from a checkout."""

from __future__ import annotations

import sys

from harness.cli.main import main

sys.exit(main())
