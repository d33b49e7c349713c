"""Lab manifests: ``labs/NN-slug/lab.toml``, format 1, validated against a declared schema.

format = 1
id = "02-rename-flow"
title = "..."
intro = \"\"\"markdown\"\"\"
fixture = "node"          # optional: the fixture the lab needs (default: petclinic)

[[step]]
id = "rename"
title = "..."
instructions = \"\"\"markdown\"\"\"
hints = ["first nudge", "closer", "the answer"]
[[step.setup]]            # actions when the step starts (optional)
do = "replace"            # see ACTION_KINDS
[[step.check]]            # what must hold for the step to pass
kind = "sensors"          # see CHECK_KINDS
[[step.solve]]            # actions that solve the step
do = "patch"
[[step.hollow]]           # the solve without its substance: dev check sees the checks fail
do = "write"
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness.engine.actions import ACTION_KINDS
from harness.engine.checks import CHECK_KINDS
from harness.engine.kinds import Kind
from harness.errors import ConfigError, HarnessError
from harness.paths import CHECKOUT_ROOT, bundled_dir, in_checkout
from harness.schema import Field, check_table, item_path, suggest
from harness.userfiles import read_toml
from harness.workspace.fixture import DEFAULT_FIXTURE, SHIPPED

FORMAT = 1
ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")

LAB_FIELDS = (
    Field("format", int, required=True, doc=f"manifest format version, currently {FORMAT}"),
    Field("id", str, required=True, doc="the lab id, equal to its folder name (NN-slug)"),
    Field("title", str, required=True, doc="one line"),
    Field("intro", str, required=True, doc="markdown shown when the lab starts"),
    Field("step", list, required=True, doc="[[step]] tables, at least one"),
    Field("fixture", str, default="petclinic", doc="the fixture the lab needs (lab fixtures)"),
)
STEP_FIELDS = (
    Field("id", str, required=True, doc="unique within the lab: lowercase, digits, dashes"),
    Field("title", str, required=True, doc="one line"),
    Field("instructions", str, required=True, doc="markdown: what to do in this step"),
    Field(
        "hints",
        list,
        required=True,
        item_type=str,
        doc="tiered hints, gentlest first; at least one",
    ),
    Field("setup", list, default=[], doc="[[step.setup]] actions run when the step starts"),
    Field("check", list, required=True, doc="[[step.check]] tables, at least one"),
    Field("solve", list, required=True, doc="[[step.solve]] actions that solve the step"),
    Field(
        "hollow",
        list,
        default=[],
        doc="[[step.hollow]] actions: the solution without its substance; dev check plays them "
        "on the starting state and the checks must fail",
    ),
)

# Fields every [[step.check]] may carry, whatever its kind.
CHECK_FIELDS = (
    Field(
        "guard",
        bool,
        default=False,
        doc="a guard: it holds on the starting state and must keep holding after the solve "
        "(lab dev check wants it to pass before and after, instead of failing before)",
    ),
)


@dataclass(frozen=True)
class Spec:
    """One configured action or check: its kind, its validated params, where it was written."""

    kind: Kind[Any]
    params: dict[str, Any]  # the validated table, as written (what views show)
    where: str
    typed: Any  # the kind's frozen parameter dataclass, built once from params
    guard: bool = False  # a check: holds before the step and after it (CHECK_FIELDS)

    @property
    def name(self) -> str:
        return self.kind.name

    @property
    def slow(self) -> bool:
        return self.kind.slow(self.typed)


@dataclass(frozen=True)
class Step:
    index: int
    id: str
    title: str
    instructions: str
    hints: tuple[str, ...]
    setup: tuple[Spec, ...]
    checks: tuple[Spec, ...]
    solve: tuple[Spec, ...]
    hollow: tuple[Spec, ...] = ()

    @property
    def slow(self) -> bool:
        return any(c.slow for c in self.checks)


@dataclass(frozen=True)
class Lab:
    id: str
    title: str
    intro: str
    steps: tuple[Step, ...]
    dir: Path
    path: Path
    format: int = FORMAT
    fixture: str = DEFAULT_FIXTURE

    @property
    def number(self) -> str:
        return self.id.split("-", 1)[0]

    def step(self, ref: str | int) -> Step:
        """A step by id, by 1-based number or by unique id prefix."""
        text = str(ref)
        if text.isdigit() and 1 <= int(text) <= len(self.steps):
            return self.steps[int(text) - 1]
        for step in self.steps:
            if step.id == text:
                return step
        prefixed = [s for s in self.steps if s.id.startswith(text)]
        if len(prefixed) == 1:
            return prefixed[0]
        other = re.fullmatch(r"0*(\d+)[-./:](\d+)", text)
        if other:  # "07-4": a step of another lab, written lab-step
            lab, number = int(other.group(1)), int(other.group(2))
            raise HarnessError(
                f"{text!r} names lab {lab}, step {number}; a step is the current lab's ({self.id})",
                fix=f"lab start {lab}, then lab goto {number}",
            )
        raise HarnessError(
            f"lab {self.id} has no step {text!r}",
            fix="use a step number (1-{}) or one of: {}".format(
                len(self.steps), ", ".join(s.id for s in self.steps)
            ),
        )


def labs_dir() -> Path:
    """The labs: $HOOKLAB_LABS, else the ones shipped with the package (or the checkout's)."""
    return bundled_dir("labs", "HOOKLAB_LABS")


def _spec(
    raw: object, registry: dict[str, Kind[Any]], key: str, path: Path, where: str, lab_dir: Path
) -> Spec:
    if not isinstance(raw, dict):
        raise ConfigError(path, where, "expected a table", fix=f"write [[...]] with {key} = ...")
    name = raw.get(key)
    known = ", ".join(registry)
    if name is None:
        raise ConfigError(path, f"{where}.{key}", "missing", fix=f"add {key} = one of: {known}")
    if not isinstance(name, str) or name not in registry:
        raise ConfigError(
            path,
            f"{where}.{key}",
            f'unknown {key} "{name}"{suggest(str(name), list(registry))} (known: {known})',
            fix=f"use one of: {known}",
        )
    kind = registry[name]
    params = check_table(raw, kind.params, path=path, where=where)
    typed = kind.build(params)
    kind.check_tables(typed, path, where)
    problem = kind.validate(typed)
    if problem:
        raise ConfigError(path, where, problem, fix=f"see docs/lab-authoring.md, {key} {name}")
    for asset in kind.assets(typed):
        if not (lab_dir / asset).is_file():
            raise ConfigError(
                path,
                where,
                f"the file {asset!r} is not in {lab_dir}",
                fix=f"add {lab_dir / asset} or fix the path",
            )
    return Spec(kind, params, where, typed)


def _check_spec(raw: object, path: Path, where: str, lab_dir: Path) -> Spec:
    """A ``[[step.check]]``: the fields every check may carry, then its kind's own."""
    if not isinstance(raw, dict) or "guard" not in raw:
        return _spec(raw, CHECK_KINDS, "kind", path, where, lab_dir)
    own = {k: v for k, v in raw.items() if k != "guard"}
    common = check_table({"guard": raw["guard"]}, CHECK_FIELDS, path=path, where=where)
    return replace(_spec(own, CHECK_KINDS, "kind", path, where, lab_dir), guard=common["guard"])


def _parse_step(raw: object, i: int, path: Path, lab_dir: Path) -> Step:
    """The lab's ``i``-th ``[[step]]``, its setup, checks and solve validated."""
    where = item_path("step", i)
    s = check_table(raw, STEP_FIELDS, path=path, where=where)
    if not ID_RE.match(s["id"]):
        raise ConfigError(
            path,
            f"{where}.id",
            f"{s['id']!r} is not a valid step id",
            fix="use lowercase letters, digits and dashes",
        )
    if not s["hints"] or any(not h.strip() for h in s["hints"]):
        raise ConfigError(
            path,
            f"{where}.hints",
            "hints must be a non-empty list of non-empty strings",
            fix='hints = ["a nudge", "the answer"]',
        )
    if not s["check"]:
        raise ConfigError(
            path,
            f"{where}.check",
            "a step needs at least one check",
            fix='add [[step.check]] with kind = "..."',
        )
    if not s["solve"]:
        raise ConfigError(
            path,
            f"{where}.solve",
            "a step needs a solve (dev check and lab solve use it)",
            fix='add [[step.solve]] with do = "..."',
        )
    return Step(
        index=i,
        id=s["id"],
        title=s["title"],
        instructions=s["instructions"],
        hints=tuple(s["hints"]),
        setup=tuple(
            _spec(a, ACTION_KINDS, "do", path, item_path(f"{where}.setup", j), lab_dir)
            for j, a in enumerate(s["setup"])
        ),
        checks=tuple(
            _check_spec(c, path, item_path(f"{where}.check", j), lab_dir)
            for j, c in enumerate(s["check"])
        ),
        solve=tuple(
            _spec(a, ACTION_KINDS, "do", path, item_path(f"{where}.solve", j), lab_dir)
            for j, a in enumerate(s["solve"])
        ),
        hollow=tuple(
            _spec(a, ACTION_KINDS, "do", path, item_path(f"{where}.hollow", j), lab_dir)
            for j, a in enumerate(s["hollow"])
        ),
    )


def parse_lab(data: dict[str, Any], path: Path) -> Lab:
    lab_dir = path.parent
    if "format" in data and data["format"] != FORMAT:
        raise ConfigError(
            path,
            "format",
            f"format {data['format']!r} is not supported (this Hook Lab reads format {FORMAT})",
            fix=f"set format = {FORMAT}, or update Hook Lab",
        )
    top = check_table(data, LAB_FIELDS, path=path, where="")
    if top["id"] != lab_dir.name:
        raise ConfigError(
            path,
            "id",
            f"{top['id']!r} differs from the folder name {lab_dir.name!r}",
            fix=f'set id = "{lab_dir.name}" or rename the folder',
        )
    if not re.match(r"^\d\d-[a-z0-9-]+$", top["id"]):
        raise ConfigError(
            path, "id", f"{top['id']!r} is not NN-slug", fix="name the lab like 03-stop-hook"
        )
    if top["fixture"] not in SHIPPED:
        raise ConfigError(
            path,
            "fixture",
            f"no fixture named {top['fixture']!r}{suggest(top['fixture'], list(SHIPPED))}",
            fix=f"use one of: {', '.join(SHIPPED)} (lab fixtures lists them)",
        )
    if not top["step"]:
        raise ConfigError(path, "step", "a lab needs at least one step", fix="add a [[step]]")
    steps: list[Step] = []
    for i, raw in enumerate(top["step"]):
        step = _parse_step(raw, i, path, lab_dir)
        if any(step.id == earlier.id for earlier in steps):
            raise ConfigError(
                path,
                f"{item_path('step', i)}.id",
                f"duplicate step id {step.id!r}",
                fix="give every step of a lab its own id",
            )
        steps.append(step)
    return Lab(
        top["id"], top["title"], top["intro"], tuple(steps), lab_dir, path, fixture=top["fixture"]
    )


def _display(path: Path) -> Path:
    """The path as short as it stays findable: from here, else from the checkout, else whole
    (an installed lab's file is named in full, not from site-packages)."""
    resolved = path.resolve()
    if resolved.is_relative_to(Path.cwd()):
        return resolved.relative_to(Path.cwd())
    if in_checkout() and resolved.is_relative_to(CHECKOUT_ROOT):
        return resolved.relative_to(CHECKOUT_ROOT)
    return path


def load_lab(lab_dir: Path) -> Lab:
    path = lab_dir / "lab.toml"
    shown = _display(path)
    if not path.exists():
        raise ConfigError(
            shown, "", "no lab.toml in this lab folder", fix="add one (see docs/lab-authoring.md)"
        )
    data = read_toml(path, shown)
    try:
        return parse_lab(data, path)
    except ConfigError as exc:
        if exc.path == str(path):
            raise ConfigError(shown, exc.field, exc.problem, fix=exc.fix) from None
        raise


def lab_dirs(root: Path | None = None) -> list[Path]:
    base = root or labs_dir()
    if not base.is_dir():
        return []
    return sorted(p for p in base.iterdir() if p.is_dir() and re.match(r"^\d\d-", p.name))


def _no_labs(root: Path | None) -> HarnessError:
    return HarnessError(
        f"no labs found in {root or labs_dir()}",
        fix="reinstall hooklab (its labs ship with it), or set HOOKLAB_LABS to a labs folder",
    )


def load_labs(root: Path | None = None) -> list[Lab]:
    labs = [load_lab(d) for d in lab_dirs(root)]
    if not labs:
        raise _no_labs(root)
    return labs


def scan_labs(root: Path | None = None) -> tuple[list[Lab], dict[str, HarnessError]]:
    """Every lab that loads, and the error of each that does not, by folder name: one broken
    manifest must not hide the rest of the course (lab list names it beside the others)."""
    labs: list[Lab] = []
    broken: dict[str, HarnessError] = {}
    for folder in lab_dirs(root):
        try:
            labs.append(load_lab(folder))
        except HarnessError as exc:
            broken[folder.name] = exc
    if not labs and not broken:
        raise _no_labs(root)
    return labs, broken


def find_lab(ref: str, root: Path | None = None) -> Lab:
    """A lab by id, by number ("3", "03") or by unique prefix/slug."""
    dirs = lab_dirs(root)
    text = ref.strip()
    if text.isdigit():
        text = f"{int(text):02d}"
    exact = [d for d in dirs if d.name == text or d.name.split("-", 1)[0] == text]
    if not exact:
        exact = [d for d in dirs if d.name.startswith(text) or text in d.name]
    if len(exact) != 1:
        names = ", ".join(d.name for d in dirs)
        return _no_such_lab(ref, text, dirs, ambiguous=bool(exact), names=names)
    return load_lab(exact[0])


def _no_such_lab(ref: str, text: str, dirs: list[Path], *, ambiguous: bool, names: str) -> Lab:
    """Raise: a number the course skips is said as such (the labs keep the article's numbers,
    so there is no lab 10); a gap or an unknown name lists what there is."""
    if ambiguous:
        raise HarnessError(f"{ref!r} is ambiguous", fix=f"use one of: {names}")
    numbers = [d.name.split("-", 1)[0] for d in dirs]
    if text.isdigit() and numbers and int(text) <= int(max(numbers)):
        raise HarnessError(
            f"there is no lab {int(text)}: the labs keep the numbers of the article they come "
            f"from, so the course has {', '.join(str(int(n)) for n in numbers)}",
            fix=f"lab list shows them; lab start {int(numbers[-1])} is the capstone",
        )
    raise HarnessError(f"no lab {ref!r}", fix=f"use one of: {names}")
