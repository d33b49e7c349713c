"""The course around a lab: the labs after it on its fixture, the fixtures whose labs come
later, the labs of its fixture not complete yet (what a completed lab says comes next)."""

from __future__ import annotations

from pathlib import Path

from harness.engine.manifest import Lab, lab_dirs, load_lab
from harness.engine.progress import LabProgress
from harness.errors import HarnessError


def loadable_labs(folders: list[Path]) -> list[Lab]:
    """The labs in these folders that load (a broken one is lab list's to say)."""
    loaded = []
    for folder in folders:
        try:
            loaded.append(load_lab(folder))
        except HarnessError:
            continue
    return loaded


class Course:
    """The labs under ``labs_root`` (default: the course's own), in the course's order."""

    def __init__(self, labs_root: Path | None = None) -> None:
        self.labs_root = labs_root

    def later_labs(self, lab: Lab) -> list[Lab]:
        """The labs after ``lab`` in the course that load (a broken one is lab list's to say)."""
        dirs = lab_dirs(self.labs_root)
        ids = [d.name for d in dirs]
        return loadable_labs(dirs[ids.index(lab.id) + 1 :] if lab.id in ids else [])

    def following_lab(self, lab: Lab) -> str | None:
        """The id of the next lab on ``lab``'s fixture (the one this workspace holds), None
        after the last one: a lab on another fixture cannot start here."""
        return next((x.id for x in self.later_labs(lab) if x.fixture == lab.fixture), None)

    def fixtures_after(self, lab: Lab) -> tuple[str, ...]:
        """The other fixtures whose labs come later in the course (each needs lab init)."""
        others = (x.fixture for x in self.later_labs(lab) if x.fixture != lab.fixture)
        return tuple(dict.fromkeys(others))

    def labs_left(self, lab: Lab, progress: dict[str, LabProgress]) -> list[str]:
        """The numbers of the labs on ``lab``'s fixture, itself aside, not complete here."""
        return [
            x.id.split("-", 1)[0]
            for x in loadable_labs(lab_dirs(self.labs_root))
            if x.fixture == lab.fixture
            and x.id != lab.id
            and not (x.id in progress and progress[x.id].completed_at)
        ]
