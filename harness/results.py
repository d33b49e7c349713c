"""One result model for checks, steps and grading: pass, fail, error or skip.

``error`` means the check could not run (the harness or the machine is broken), which must
never be reported as the participant being wrong. ``skip``: a grade's clause not judged, as
an earlier one made it moot (the hook was killed at its timeout); never the hook's fault.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

OUTPUT_CAP = 4000


class Status(enum.StrEnum):
    """A StrEnum: JSON, TOML and the views keep the word ("pass", ...)."""

    PASS = "pass"
    FAIL = "fail"
    ERROR = "error"
    SKIP = "skip"


def cap_output(text: str, limit: int = OUTPUT_CAP) -> str:
    """Keep the tail of long output; the end of a log is where the reason usually is."""
    if len(text) <= limit:
        return text
    return f"[... {len(text) - limit} characters cut ...]\n" + text[-limit:]


@dataclass
class CheckResult:
    status: Status
    message: str
    name: str = ""
    expected: str | None = None
    found: str | None = None
    output: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    # Files the verdict rests on (workspace-relative path -> content), e.g. the Surefire
    # reports a sensors check read: kept with a passed step so anyone can audit the claim.
    evidence: dict[str, bytes] = field(default_factory=dict, repr=False)

    def __bool__(self) -> bool:
        return self.status is Status.PASS

    def __post_init__(self) -> None:
        self.output = cap_output(self.output)

    @classmethod
    def passed(cls, message: str, **kw: Any) -> CheckResult:
        return cls(Status.PASS, message, **kw)

    @classmethod
    def failed(cls, message: str, **kw: Any) -> CheckResult:
        return cls(Status.FAIL, message, **kw)

    @classmethod
    def missing_file(
        cls, rel: str, *, name: str, expected: str, root: Path | None = None
    ) -> CheckResult:
        """A check whose file the participant has not written yet, named as missing, with the
        folder to make first when that is new too (``root``: the workspace it is in)."""
        folder = PurePosixPath(rel).parent
        new_folder = root is not None and str(folder) != "." and not (root / folder).is_dir()
        create = (
            f"create it (the folder is new too: mkdir -p {folder})" if new_folder else "create it"
        )
        return cls.failed(
            f"{rel} does not exist yet: {create}",
            name=name,
            expected=expected,
            found="no such file",
        )

    @classmethod
    def errored(cls, message: str, **kw: Any) -> CheckResult:
        return cls(Status.ERROR, message, **kw)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "status": self.status.value,
            "message": self.message,
        }
        if self.expected is not None:
            data["expected"] = self.expected
        if self.found is not None:
            data["found"] = self.found
        if self.output:
            data["output"] = self.output
        if self.details:
            data["details"] = self.details
        return data
