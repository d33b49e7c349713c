"""The one user-facing error type. The CLI maps it to exit status 1 without a traceback."""

from __future__ import annotations


class HarnessError(Exception):
    """A problem the user can fix: says what is wrong and, in ``fix``, what to do about it."""

    def __init__(self, message: str, *, fix: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix

    def __str__(self) -> str:
        return self.message if not self.fix else f"{self.message}\n  fix: {self.fix}"


class ConfigError(HarnessError):
    """A file the user wrote (settings, scenario, manifest) is malformed.

    The message always names the file and the field so the user can go straight to it.
    """

    def __init__(self, path: object, field: str, problem: str, *, fix: str | None = None) -> None:
        self.path = str(path)
        self.field = field
        self.problem = problem
        where = f"{self.path}: {field}" if field else self.path
        super().__init__(f"{where}: {problem}", fix=fix)
