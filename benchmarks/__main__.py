from __future__ import annotations

import sys

from benchmarks.report import main

sys.exit(main())
