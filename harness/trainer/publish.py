"""``lab submit``: push a participant's progress chain, with its evidence, to the cohort remote.

One ref per participant, ``refs/hooklab/cohorts/COHORT/NAME``, so participants never overwrite
each other and one remote holds several rooms. What is pushed is the workspace's own progress
chain (refs/hooklab/progress): each commit holds the document, and the commit recording a pass
has that step's evidence commit (the sensor reports, on top of the verified snapshot) as a
parent. Git sends what the remote lacks, so a submit after an outage sends everything pending.
"""

from __future__ import annotations

import re
import time
import unicodedata
from dataclasses import dataclass
from typing import Any

from dulwich.objects import Commit

from harness.engine.progress import Progress
from harness.errors import ConfigError, HarnessError
from harness.trainer.journal import CLOCK_TOLERANCE
from harness.trainer.remote import (
    HistoryDiffers,
    RemoteError,
    normalise_url,
    push,
    redact_url,
    remote_clock_offset,
    scrub,
    timeout_from_env,
)
from harness.workspace import Workspace
from harness.workspace.workspace import CLOCK_KEY, PROGRESS_REF

DEFAULT_COHORT = "default"
COHORT_REFS = "refs/hooklab/cohorts/"
REPLACED_REFS = "refs/hooklab/replaced/"
SETTINGS_KEY = "submit"  # in .git/hooklab/workspace.json
SUBMITTED_KEY = "submitted"
# Letters of any language, digits, '.', '_' and '-': safe as one git ref component.
NAME_PATTERN = re.compile(r"^[^\W_][\w.-]{0,62}$")
# After a passed step the check is done; the network gets this long before we move on.
AUTO_TIMEOUT = 3.0
MANUAL_TIMEOUT = 60.0
CLOCK_TIMEOUT = 1.0  # reading an HTTP remote's clock: one small request


def normalise_name(value: str) -> str:
    """How a person's name becomes their key in the room: one form of each accented letter,
    lower case (Ada and ada are one participant), spaces as '-' (José Díaz: josé-díaz)."""
    return "-".join(unicodedata.normalize("NFC", value).casefold().split())


def check_name(value: str, field: str, source: str = "command line") -> str:
    """A participant or cohort name that is safe as one git ref component."""
    if not NAME_PATTERN.match(value) or value.endswith(".lock") or ".." in value:
        raise ConfigError(
            source,
            field,
            f"{value!r} cannot be part of a git ref name",
            fix="use letters (accents welcome), digits, spaces, '.', '_' and '-' (at most 63, "
            "starting with a letter or digit), e.g. --participant ada-lovelace",
        )
    return value


def cohort_prefix(cohort: str) -> bytes:
    return f"{COHORT_REFS}{check_name(normalise_name(cohort), 'cohort')}/".encode()


def participant_ref(cohort: str, participant: str) -> bytes:
    name = check_name(normalise_name(participant), "participant")
    return cohort_prefix(cohort) + name.encode()


@dataclass(frozen=True)
class SubmitSettings:
    url: str
    participant: str
    cohort: str = DEFAULT_COHORT

    @property
    def ref(self) -> bytes:
        return participant_ref(self.cohort, self.participant)

    @property
    def shown_url(self) -> str:
        """The URL fit to print: its credentials never are."""
        return redact_url(self.url)

    def to_json(self) -> dict[str, str]:
        """What a person or a log may see (the URL's credentials redacted)."""
        return {"url": self.shown_url, "participant": self.participant, "cohort": self.cohort}

    def stored(self) -> dict[str, str]:
        """What the workspace keeps to submit with: the URL whole."""
        return {"url": self.url, "participant": self.participant, "cohort": self.cohort}


def stored_settings(ws: Workspace) -> SubmitSettings | None:
    raw = ws.meta.get(SETTINGS_KEY)
    if not isinstance(raw, dict) or not raw.get("url") or not raw.get("participant"):
        return None
    source = str(ws.git_dir / "hooklab" / "workspace.json")
    return SubmitSettings(
        str(raw["url"]),
        check_name(str(raw["participant"]), f"{SETTINGS_KEY}.participant", source),
        check_name(str(raw.get("cohort") or DEFAULT_COHORT), f"{SETTINGS_KEY}.cohort", source),
    )


def store_settings(ws: Workspace, settings: SubmitSettings) -> None:
    ws.update_meta({SETTINGS_KEY: settings.stored()})


def make_settings(url: str, participant: str, cohort: str | None = None) -> SubmitSettings:
    return SubmitSettings(
        normalise_url(url),
        check_name(normalise_name(participant), "--participant"),
        check_name(normalise_name(cohort or DEFAULT_COHORT), "--cohort"),
    )


def resolve_settings(
    ws: Workspace,
    url: str | None = None,
    participant: str | None = None,
    cohort: str | None = None,
) -> SubmitSettings:
    """The workspace's settings, with any given on the command line taking precedence."""
    stored = stored_settings(ws)
    url = url or (stored.url if stored else None)
    participant = participant or (stored.participant if stored else None)
    cohort = cohort or (stored.cohort if stored else None)
    if not url or not participant:
        missing = " and no ".join(
            n for n, v in (("remote", url), ("participant name", participant)) if not v
        )
        raise HarnessError(
            f"{ws.root}: this workspace has no {missing} for submitting",
            fix="set them once for this workspace (later passed steps then submit on their "
            "own): lab init . --remote URL --participant NAME [--cohort C]",
        )
    return make_settings(url, participant, cohort)


def replaced_ref(cohort: str, participant: str, at: float) -> bytes:
    """Where a record replaced by lab submit --force is kept: refs/hooklab/replaced/C/NAME/T."""
    return f"{REPLACED_REFS}{cohort}/{participant}/{int(at)}".encode()


class NameTaken(RemoteError):
    """The name holds another workspace's record. Whose, the remote cannot say, so the fix
    is a name of one's own, never --force (which would replace a classmate's work)."""

    def __init__(self, settings: SubmitSettings) -> None:
        super().__init__(
            settings.url,
            f"the name {settings.participant} in cohort {settings.cohort} already holds "
            "another workspace's record (a classmate's, or yours from another workspace)",
            fix=f"choose a name of your own for this workspace: lab init . --participant "
            f"{settings.participant}-2; if the record is yours from an earlier workspace, "
            "ask your trainer",
        )


@dataclass
class Submission:
    settings: SubmitSettings
    commit: str
    previous: str | None  # what the remote held before
    updates: int  # progress commits the remote did not have
    passed_steps: int
    duration: float
    # live steps whose claim carries a session timeline (its extract, never the transcript)
    live_timelines: int = 0

    @property
    def up_to_date(self) -> bool:
        return self.previous == self.commit

    def to_json(self) -> dict[str, Any]:
        return {
            **self.settings.to_json(),
            "ref": self.settings.ref.decode(),
            "commit": self.commit,
            "previous": self.previous,
            "updates": self.updates,
            "passed_steps": self.passed_steps,
            "live_timelines": self.live_timelines,
            "up_to_date": self.up_to_date,
            "duration": round(self.duration, 3),
        }


def _chain(ws: Workspace, head: str) -> list[Commit]:
    """The progress chain, newest first, along first parents (anchored snapshots hang off it)."""
    commits: list[Commit] = []
    next_id: bytes | None = head.encode()
    while next_id is not None:
        commit = ws.repo[next_id]
        assert isinstance(commit, Commit)
        commits.append(commit)
        next_id = commit.parents[0] if commit.parents else None
    return commits


def _verified_states(progress: Progress) -> set[str]:
    """Every commit a passed step rests on: its evidence commit, else its snapshot."""
    return {
        str(sp.passed.get("evidence_commit") or sp.passed["snapshot"])
        for lp in progress.labs.values()
        for sp in lp.steps.values()
        if sp.passed and (sp.passed.get("evidence_commit") or sp.passed.get("snapshot"))
    }


def _unanchored(ws: Workspace, head: str | None, progress: Progress) -> list[str]:
    """The verified states a push from ``head`` would not carry: progress written before
    format 2 kept snapshots only under local refs."""
    if head is None:
        return []
    anchored = {p.decode() for c in _chain(ws, head) for p in c.parents[1:]}
    return sorted(
        s for s in _verified_states(progress) - anchored if s.encode() in ws.repo.object_store
    )


def pending_updates(ws: Workspace, settings: SubmitSettings | None = None) -> int:
    """Progress commits not yet on the remote, as far as this workspace knows."""
    head = ws.progress_head()
    if head is None:
        return 0
    record = ws.meta.get(SUBMITTED_KEY) or {}
    if settings is not None and record.get("ref") != settings.ref.decode():
        record = {}
    return _updates_since(ws, head, record.get("commit"))


def _updates_since(ws: Workspace, head: str, last: str | None) -> int:
    """Progress commits on the chain newer than ``last``, the head the remote holds. That head
    may hang off the chain as a second parent (a lab command wrote while it was pushed)."""
    count = 0
    for commit in _chain(ws, head):
        if commit.id.decode() == last:
            break
        count += 1
        if last is not None and last.encode() in commit.parents[1:]:
            break
    return count


def _clock_moved(sent: float | None, now: float | None) -> bool:
    """Whether the document must carry a newer reading of the remote's clock."""
    if now is None:
        return False
    return sent is None or abs(sent - now) > CLOCK_TOLERANCE / 2


@dataclass
class _Record:
    """What a submit pushes: the progress head, the document it holds (read once), and the
    reading of the remote's clock taken for it (None: the remote gave none)."""

    head: str
    progress: Progress
    clock: float | None


def _record_to_push(ws: Workspace, settings: SubmitSettings) -> _Record:
    """The progress head to push, read once. One new document goes on top, written once, when
    the last one does not name ``settings.participant`` (the trainer then tells this
    workspace's record from one pushed under the name by another), carries no recent reading of
    the remote's clock (the trainer's first read of a laptop whose clock is off needs it:
    harness/trainer/journal.py), leaves a passed step's verified state behind, or when nothing
    was recorded yet (an empty record still tells the trainer this participant arrived, and lab
    init --remote learns at once whether the remote answers). That document is staged: the
    chain moves to it once it is pushed (``_keep_pushed``), so a submit that fails or is
    interrupted leaves the progress as it was."""
    head = ws.progress_head()
    document = ws.read_progress()
    progress = Progress.from_json(document, source=f"{ws.root}: refs/hooklab/progress")
    offset = remote_clock_offset(settings.url, timeout=CLOCK_TIMEOUT)
    clock = None if offset is None else round(offset, 1)
    missing = _unanchored(ws, head, progress)
    named = progress.submits_as == settings.participant
    if (
        head is not None
        and named
        and not missing
        and not _clock_moved(progress.clock_offset, offset)
    ):
        return _Record(head, progress, clock)
    if head is None:
        progress.updated_at = time.time()
        document = progress.to_json()
    staged = ws.write_progress(
        document,
        f"{'arrived: ' if head is None else ''}submitting as {settings.participant}",
        anchors=missing,
        submits_as=settings.participant,
        clock_offset=clock,
        move=False,
    )
    return _Record(staged, progress, clock)


def _keep_pushed(ws: Workspace, head: str, participant: str) -> None:
    """The chain moves to the pushed head. Should a lab command have written progress
    meanwhile, its document goes on top, with the pushed one as a second parent: the next
    submit then finds what the remote holds in the chain it pushes."""
    base = ws.progress_head()
    if base is None:  # the first record: the chain starts at it
        ws.repo.refs.add_if_new(PROGRESS_REF, head.encode())
        return
    if head in {c.id.decode() for c in _chain(ws, base)}:
        return  # nothing was staged: the pushed head is in the chain already
    pushed = ws.repo[head.encode()]
    assert isinstance(pushed, Commit)
    on_base = bool(pushed.parents) and pushed.parents[0].decode() == base
    if on_base and ws.repo.refs.set_if_equals(PROGRESS_REF, base.encode(), head.encode()):
        return
    ws.write_progress(
        ws.read_progress(), "submitted meanwhile", anchors=[head], submits_as=participant
    )


def submit(
    ws: Workspace,
    settings: SubmitSettings,
    *,
    timeout: float | None = None,
    force: bool = False,
) -> Submission:
    """Push the progress chain to ``settings.ref``; fast-forward only unless ``force``."""
    started = time.monotonic()
    record = _record_to_push(ws, settings)
    head = record.head
    chain = _chain(ws, head)
    # What this workspace pushed is its own: the chain, and a document it pushed while a lab
    # command wrote on (a second parent, see _keep_pushed).
    chain_ids = {c.id for c in chain} | {p for c in chain for p in c.parents[1:]}

    def ours(old: bytes | None) -> bool:
        return force or old is None or old in chain_ids

    def keep_old_as(old: bytes) -> bytes | None:
        # --force over another history: the record it replaces is kept beside it, and the
        # trainer's table shows the record as replaced.
        if old in chain_ids:
            return None
        return replaced_ref(settings.cohort, settings.participant, time.time())

    try:
        before = push(
            settings.url,
            ws.repo,
            settings.ref,
            head.encode(),
            timeout=timeout
            if timeout is not None
            else timeout_from_env("HOOKLAB_SUBMIT_TIMEOUT", MANUAL_TIMEOUT),
            accept_old=ours,
            keep_old_as=keep_old_as,
        )
    except HistoryDiffers as exc:
        raise NameTaken(settings) from exc
    _keep_pushed(ws, head, settings.participant)
    previous = before.decode() if before else None
    updates = _updates_since(ws, head, previous)
    sent = {"url": settings.shown_url, "ref": settings.ref.decode(), "commit": head}
    kept: dict[str, Any] = {SUBMITTED_KEY: {**sent, "at": time.time()}}
    if record.clock is not None:
        kept[CLOCK_KEY] = record.clock
    ws.update_meta(kept)
    steps = [sp for lp in record.progress.labs.values() for sp in lp.steps.values()]
    passed = [sp.passed for sp in steps if sp.passed]
    live = sum(1 for record in passed if record.get("session_id"))
    return Submission(
        settings, head, previous, updates, len(passed), time.monotonic() - started, live
    )


@dataclass
class AutoSubmit:
    """What an automatic submit after a passed step did: a line for the participant."""

    ok: bool
    message: str
    submission: Submission | None = None

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "message": self.message}


def auto_submit(ws: Workspace) -> AutoSubmit | None:
    """Submit if the workspace has a remote; never raises, never waits long.

    A failure leaves everything in the local chain; the next submit (automatic or
    ``lab submit``) sends it.
    """
    try:
        settings = stored_settings(ws)
    except HarnessError as exc:
        return AutoSubmit(False, f"not submitted: {exc.message} (fix: {exc.fix})")
    if settings is None:
        return None
    try:
        timeout = timeout_from_env("HOOKLAB_AUTO_SUBMIT_TIMEOUT", AUTO_TIMEOUT)
        done = submit(ws, settings, timeout=timeout)
    except RemoteError as exc:
        pending = pending_updates(ws, settings)
        fix = f" (fix: {exc.fix})" if isinstance(exc, NameTaken) else ""
        return AutoSubmit(
            False,
            f"not submitted to {exc.url}: {exc.problem}{fix}; kept here, {pending} update"
            f"{'s' if pending != 1 else ''} pending for the next submit (or: lab submit)",
        )
    except HarnessError as exc:
        said = scrub(f"{exc.message} (fix: {exc.fix or 'lab submit'})", settings.url)
        return AutoSubmit(False, f"not submitted: {said}")
    except Exception as exc:  # a bug in submitting must not turn a passed check into a crash
        return AutoSubmit(
            False,
            f"not submitted ({type(exc).__name__}: {scrub(str(exc), settings.url)}); your "
            "progress is kept here, lab submit shows the whole error",
        )
    return AutoSubmit(
        True, f"submitted to cohort {settings.cohort} as {settings.participant}", done
    )
