"""No function in harness/ over 60 lines of code without a ``# Long because:`` reason
(scripts/long_functions.py lists them), and the count leaves out docstrings and comments."""

from __future__ import annotations

import ast
import subprocess
import sys

from tests.builders import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "scripts"))
from long_functions import code_lines, reason

SAMPLE = '''
# Long because: a sample
def f(x):
    """A docstring
    over two lines."""
    # a comment
    y = (x +

         1)
    return y
'''


def test_code_lines_leave_out_docstrings_comments_and_blank_lines() -> None:
    node = ast.parse(SAMPLE).body[0]
    assert isinstance(node, ast.FunctionDef)
    assert code_lines(SAMPLE, node) == 4  # def, "y = (x +", "1)", return
    assert reason(SAMPLE.splitlines(), node) == "a sample"


def test_every_long_function_in_harness_says_why() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "scripts" / "long_functions.py"), "--missing"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout
