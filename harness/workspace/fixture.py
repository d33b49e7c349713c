"""Fixtures as data: a project folder a workspace is provisioned from, with a small manifest.

Each fixture folder carries ``fixture.toml``: its name and title, what it needs on the
machine (``lab doctor`` checks exactly that), its build and evidence commands, and what is
build output (never copied into a workspace, cleared when a lab starts). The PetClinic is the
default; the Russian seed's Node project is the second. Labs name the fixture they need.

format = 1
name = "node"
title = "..."
needs = ["node", "npm"]          # see NEEDS
build = "npm run build"
evidence = "npm test"
build_output = ["dist"]
compile_cache = false            # true: lab init compiles it ahead (Maven's class cache)
rebuild = ["npm", "run", "build"] # what builds its output again where it was cleared
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from harness.errors import ConfigError, HarnessError
from harness.paths import bundled_dir
from harness.schema import Field, check_table, pick
from harness.userfiles import read_toml

FIXTURE_FILE = "fixture.toml"
FORMAT = 1
DEFAULT_FIXTURE = "petclinic"
# The shipped fixtures: name -> folder (in the wheel under harness/_bundled/, in a checkout at
# the top level). pyproject.toml maps each into the wheel; a test holds the two lists equal.
SHIPPED = {"petclinic": "petclinic_fixture", "node": "node_fixture"}
# $HOOKLAB_FIXTURE still replaces the default fixture's folder (tests, a trainer's own copy).
OVERRIDE_ENV = "HOOKLAB_FIXTURE"
# What a fixture may say it needs; lab doctor has a check for each.
NEEDS = ("git", "bash", "jq", "maven", "node", "npm")

FIXTURE_FIELDS = (
    Field("format", int, required=True, doc=f"manifest format version, currently {FORMAT}"),
    Field("name", str, required=True, doc="what lab init --fixture and lab.toml call it"),
    Field("title", str, required=True, doc="one line"),
    Field("needs", list, default=[], item_type=str, doc=f"programs, of: {', '.join(NEEDS)}"),
    Field("build", str, required=True, doc="the command that builds it"),
    Field("evidence", str, required=True, doc="the command whose result is the evidence"),
    Field("build_output", list, default=[], item_type=str, doc="folders a build writes"),
    Field("compile_cache", bool, default=False, doc="compiled ahead from Maven's class cache"),
    Field(
        "rebuild",
        list,
        default=[],
        item_type=str,
        doc="what builds the output again where a re-check cleared it: a program and its "
        'arguments, e.g. ["npm", "run", "build"]; [] for none',
    ),
    Field(
        "hook_state",
        list,
        default=[],
        item_type=str,
        doc="what the fixture's hooks keep in the git dir (cleared with the build output)",
    ),
    Field(
        "proof_state",
        list,
        default=[],
        item_type=str,
        doc="what the hooks keep in the git dir across sessions (what smoke.sh proved): kept "
        "by lab start, goto and reset, kept with each pass and put back where the step is "
        "judged again at its own state",
    ),
)


@dataclass(frozen=True)
class Fixture:
    name: str
    title: str
    dir: Path
    needs: tuple[str, ...]
    build: str
    evidence: str
    build_output: tuple[str, ...]
    compile_cache: bool
    rebuild: tuple[str, ...] = ()
    hook_state: tuple[str, ...] = ()
    proof_state: tuple[str, ...] = ()

    @property
    def maven(self) -> bool:
        """Whether the fixture builds with Maven (sensors, the compile cache, backends)."""
        return "maven" in self.needs

    def to_json(self) -> dict[str, object]:
        return {
            **pick(self, "name title"),
            "dir": str(self.dir),
            "needs": list(self.needs),
            **pick(self, "build evidence"),
            "build_output": list(self.build_output),
            "rebuild": list(self.rebuild),
            "hook_state": list(self.hook_state),
            "proof_state": list(self.proof_state),
        }

    def clear_build_output(self, project: Path) -> None:
        """Remove what a build left in ``project`` (build output is never the fixture's)."""
        for name in self.build_output:
            shutil.rmtree(project / name, ignore_errors=True)

    def clear_hook_state(self, project: Path) -> None:
        """Remove the hooks' state from ``project``'s git dir (a session's start, its audit
        markers): a marker left over, or made by hand, is no evidence of a session."""
        git_dir = project / ".git"
        for name in self.hook_state if git_dir.is_dir() else ():
            path = git_dir / name
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)


def fixture_folder(name: str) -> Path:
    """Where the shipped fixture ``name`` lives (it may be missing in a broken install)."""
    folder = SHIPPED[name]
    return bundled_dir(folder, OVERRIDE_ENV if name == DEFAULT_FIXTURE else None)


def load_fixture(folder: Path) -> Fixture:
    """The fixture in ``folder``, its manifest validated."""
    path = folder / FIXTURE_FILE
    if not path.is_file():
        raise HarnessError(
            f"no fixture here: {path} does not exist",
            fix="reinstall hooklab (its fixtures ship with it), or point HOOKLAB_FIXTURE "
            "at a fixture folder (one with a fixture.toml)",
        )
    data = check_table(read_toml(path, path), FIXTURE_FIELDS, path=path, where="")
    if data["format"] != FORMAT:
        raise ConfigError(
            path, "format", f"format {data['format']!r} is not supported", fix=f"format = {FORMAT}"
        )
    unknown = [n for n in data["needs"] if n not in NEEDS]
    if unknown:
        raise ConfigError(
            path, "needs", f"unknown need {unknown[0]!r}", fix=f"use some of: {', '.join(NEEDS)}"
        )
    for out in data["build_output"]:
        if "/" in out or out in ("", ".", ".."):
            raise ConfigError(
                path, "build_output", f"{out!r} is not a top-level folder", fix='e.g. ["dist"]'
            )
    if data["rebuild"] and not all(word.strip() for word in data["rebuild"]):
        raise ConfigError(
            path,
            "rebuild",
            f"{data['rebuild']!r} has an empty word: it is a program and its arguments",
            fix='one word a string, e.g. rebuild = ["npm", "run", "build"]',
        )
    return Fixture(
        name=data["name"],
        title=data["title"],
        dir=folder,
        needs=tuple(data["needs"]),
        build=data["build"],
        evidence=data["evidence"],
        build_output=tuple(data["build_output"]),
        compile_cache=data["compile_cache"],
        rebuild=tuple(data["rebuild"]),
        hook_state=tuple(data["hook_state"]),
        proof_state=tuple(data["proof_state"]),
    )


def get_fixture(name: str | None = None) -> Fixture:
    """The shipped fixture ``name`` (default: the PetClinic)."""
    name = name or DEFAULT_FIXTURE
    if name not in SHIPPED:
        raise HarnessError(
            f"no fixture named {name!r}",
            fix=f"use one of: {', '.join(SHIPPED)} (lab fixtures lists them)",
        )
    fixture = load_fixture(fixture_folder(name))
    if fixture.name != name and not os.environ.get(OVERRIDE_ENV):
        raise HarnessError(
            f"{fixture.dir / FIXTURE_FILE} names itself {fixture.name!r}, not {name!r}",
            fix=f'set name = "{name}" in it, or reinstall hooklab',
        )
    return fixture


def all_fixtures() -> list[Fixture]:
    """Every shipped fixture, the default first."""
    return [get_fixture(name) for name in SHIPPED]
