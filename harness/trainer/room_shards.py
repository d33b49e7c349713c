"""A room verified in slices, on several machines, with the verdicts kept in the room itself.

``lab trainer verify --all --shard I/N`` verifies the participants whose name falls in slice I
of N. The slice is drawn from a hash of the name, never from the name's place in a list: a
participant who arrives later lands in one slice and moves nobody else (slices are not exactly
equal: 200 names in 4 slices make about 50 ± 7 each).

``--push`` keeps the verdicts in the room remote, where a CI runner's (which has no trainer's
machine to keep them on) reach ``lab trainer status`` and the page: one ref a participant,
``refs/hooklab/verified/COHORT/NAME``, each a commit holding ``verdict.json`` whose parent is
the verdict it replaces. Shards never write the same ref (a name is in one slice), so their
pushes merge by themselves, and a later run only moves its own participants' refs forward.
The verdict names the machine that judged it (``runner``: ``HOOKLAB_RUNNER`` when the
workflow sets it, else the host's name).

Participants can push to the room too, so a verdict there proves nothing by being there: each
carries an HMAC-SHA256 under the room's verdict key, which only the trainer and the workflow
hold (``HOOKLAB_VERDICT_KEY``, else the file ``lab trainer ci`` makes beside the trainer's
journal; on GitHub a repository secret). A reader without the key, or a verdict whose MAC does
not match it, is not trusted: that participant reads as unverified.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import secrets
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from dulwich.objects import Blob, Commit, Tree
from dulwich.repo import MemoryRepo

from harness.errors import HarnessError
from harness.trainer.journal import state_home
from harness.trainer.publish import check_name, normalise_name
from harness.trainer.remote import (
    ZERO_SHA,
    RemoteError,
    _client,
    fetch,
    list_refs,
    with_deadline,
)
from harness.trainer.verified import ParticipantVerdict

VERIFIED_REFS = "refs/hooklab/verified/"
VERDICT_FILE = "verdict.json"
PUSH_TIMEOUT = 120.0
KEY_ENV = "HOOKLAB_VERDICT_KEY"
AUTHOR = b"Hook Lab verify <verify@hooklab.invalid>"


@dataclass(frozen=True)
class RoomShard:
    index: int  # 1-based, as people count
    count: int

    def holds(self, name: str) -> bool:
        """Is ``name`` in this slice? The same answer on every machine, whoever else is there."""
        key = hashlib.sha256(normalise_name(name).encode()).digest()
        return int.from_bytes(key[:8], "big") % self.count == self.index - 1

    def pick(self, names: Iterable[str]) -> list[str]:
        return [n for n in names if self.holds(n)]

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> RoomShard:
    """``I/N`` with 1 ≤ I ≤ N, as argparse's type: a bad one is a usage error (exit 2)."""
    index, slash, count = text.partition("/")
    try:
        shard = RoomShard(int(index), int(count)) if slash else None
    except ValueError:
        shard = None
    if shard is None or not 1 <= shard.index <= shard.count:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a slice of the room: give I/N, slice I of N counted from 1 "
            "(1 ≤ I ≤ N), e.g. --shard 1/4 … --shard 4/4 on four machines"
        )
    return shard


def key_file() -> Path:
    return state_home() / "trainer" / "verdict-key"


def verdict_key() -> bytes | None:
    """The room's verdict key: the environment's (a CI secret), else the trainer's file."""
    given = os.environ.get(KEY_ENV, "").strip()
    if given:
        return given.encode()
    try:
        return key_file().read_text(encoding="utf-8").strip().encode() or None
    except (OSError, UnicodeDecodeError):
        return None


def ensure_key_file() -> Path:
    """The trainer's key file, made (readable by the trainer alone) when there is none."""
    path = key_file()
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(secrets.token_hex(32) + "\n")
    return path


def missing_key() -> HarnessError:
    return HarnessError(
        "verify --push signs the verdicts it keeps in the room (participants can push there "
        f"too), and no verdict key is set here ({KEY_ENV}, or {key_file()})",
        fix="lab trainer ci makes the key file on the trainer's machine; on GitHub set its "
        f"content as the repository secret {KEY_ENV} (gh secret set {KEY_ENV} < FILE)",
    )


def _mac(key: bytes, fields: dict[str, object]) -> str:
    body = json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()
    return hmac.new(key, body, hashlib.sha256).hexdigest()


def cohort_verdicts_prefix(cohort: str) -> bytes:
    return f"{VERIFIED_REFS}{check_name(normalise_name(cohort), 'cohort')}/".encode()


def verdict_ref(cohort: str, participant: str) -> bytes:
    name = check_name(normalise_name(participant), "participant")
    return cohort_verdicts_prefix(cohort) + name.encode()


def _verdict_commit(
    store: MemoryRepo, verdict: ParticipantVerdict, parent: bytes | None, key: bytes
) -> bytes:
    fields = verdict.to_json()
    signed = {"verdict": fields, "mac": _mac(key, fields)}
    blob = Blob.from_string(json.dumps(signed, indent=1).encode() + b"\n")
    tree = Tree()
    tree.add(VERDICT_FILE.encode(), 0o100644, blob.id)
    commit = Commit()
    commit.tree = tree.id
    commit.parents = [parent] if parent else []
    commit.author = commit.committer = AUTHOR
    commit.author_time = commit.commit_time = int(verdict.at or time.time())
    commit.author_timezone = commit.commit_timezone = 0
    where = f" on {verdict.runner}" if verdict.runner else ""
    commit.message = f"verify {verdict.participant}: {verdict.state}{where}\n".encode()
    for obj in (blob, tree, commit):
        store.object_store.add_object(obj)
    commit_id: bytes = commit.id
    return commit_id


def push_verdicts(url: str, cohort: str, verdicts: Sequence[ParticipantVerdict]) -> None:
    """Every verdict to its participant's ref in the room, in one push, each a fast-forward
    of the verdict it replaces (a remote that refuses forced updates takes it too)."""
    if not verdicts:
        return
    key = verdict_key()
    if key is None:
        raise missing_key()
    prefix = cohort_verdicts_prefix(cohort)
    old = list_refs(url, prefix, timeout=PUSH_TIMEOUT)
    store = MemoryRepo()
    fetch(
        url, store, [sha for sha in old.values() if sha != ZERO_SHA], depth=1, timeout=PUSH_TIMEOUT
    )
    new = {}
    for verdict in verdicts:
        ref = verdict_ref(cohort, verdict.participant)
        new[ref] = _verdict_commit(store, verdict, old.get(ref), key)
    client, path = _client(url)

    def update_refs(remote: dict[bytes, bytes]) -> dict[bytes, bytes]:
        return new

    def work() -> None:
        result = client.send_pack(path, update_refs, store.generate_pack_data)
        refused = {r.decode(): str(p) for r, p in (result.ref_status or {}).items() if p}
        if refused:
            ref, problem = sorted(refused.items())[0]
            raise RemoteError(
                url,
                f"the room refused the verdicts ({len(refused)} refs; {ref}: {problem})",
                fix="run the shard again: each verdict moves its participant's ref forward; "
                "the remote must accept pushes to refs/hooklab/*",
            )

    with_deadline(url, PUSH_TIMEOUT, work, "pushing the verdicts")


def room_verdicts(
    url: str, cohort: str, refs: Mapping[bytes, bytes], store: MemoryRepo, timeout: float
) -> dict[str, ParticipantVerdict]:
    """The verdicts the room holds for this cohort (``refs``: the room's refs, already
    listed), read into ``store``, which keeps what it fetched for the next read; only those
    signed with this machine's verdict key (none without one)."""
    key = verdict_key()
    if key is None:
        return {}
    prefix = cohort_verdicts_prefix(cohort)
    mine = {
        r: sha for r, sha in refs.items() if r.startswith(prefix) and b"/" not in r[len(prefix) :]
    }
    fetch(url, store, [sha for sha in mine.values() if sha not in store], depth=1, timeout=timeout)
    found = {}
    for ref, sha in mine.items():
        verdict = _read_verdict(store, sha, key)
        if verdict is not None and verdict.participant == ref[len(prefix) :].decode():
            found[verdict.participant] = verdict
    return found


def _read_verdict(store: MemoryRepo, sha: bytes, key: bytes) -> ParticipantVerdict | None:
    try:
        commit = store[sha]
        if not isinstance(commit, Commit):
            return None
        tree = store[commit.tree]
        assert isinstance(tree, Tree)
        _mode, blob_id = tree[VERDICT_FILE.encode()]
        signed = json.loads(store[blob_id].as_raw_string())
        fields, mac = signed["verdict"], str(signed["mac"])
        if not isinstance(fields, dict) or not hmac.compare_digest(mac, _mac(key, fields)):
            return None  # not signed with the room's key: forged, or another room's
        return ParticipantVerdict.from_json(fields)
    except (KeyError, ValueError, TypeError, AssertionError, UnicodeDecodeError):
        return None  # not a verdict verify pushed: the participant reads as unverified
