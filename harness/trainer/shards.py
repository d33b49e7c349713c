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
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from dulwich.objects import Blob, Commit, Tree
from dulwich.repo import MemoryRepo

from harness.trainer.publish import check_name, normalise_name
from harness.trainer.remote import (
    ZERO_SHA,
    RemoteError,
    _client,
    fetch,
    list_refs,
    with_deadline,
)
from harness.trainer.verified import Verdict

VERIFIED_REFS = "refs/hooklab/verified/"
VERDICT_FILE = "verdict.json"
PUSH_TIMEOUT = 120.0
AUTHOR = b"Hook Lab verify <verify@hooklab.invalid>"


@dataclass(frozen=True)
class Shard:
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


def parse_shard(text: str) -> Shard:
    """``I/N`` with 1 ≤ I ≤ N, as argparse's type: a bad one is a usage error (exit 2)."""
    index, slash, count = text.partition("/")
    try:
        shard = Shard(int(index), int(count)) if slash else None
    except ValueError:
        shard = None
    if shard is None or not 1 <= shard.index <= shard.count:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a slice of the room: give I/N, slice I of N counted from 1 "
            "(1 ≤ I ≤ N), e.g. --shard 1/4 … --shard 4/4 on four machines"
        )
    return shard


def cohort_verdicts_prefix(cohort: str) -> bytes:
    return f"{VERIFIED_REFS}{check_name(normalise_name(cohort), 'cohort')}/".encode()


def verdict_ref(cohort: str, participant: str) -> bytes:
    name = check_name(normalise_name(participant), "participant")
    return cohort_verdicts_prefix(cohort) + name.encode()


def _verdict_commit(store: MemoryRepo, verdict: Verdict, parent: bytes | None) -> bytes:
    blob = Blob.from_string(json.dumps(verdict.to_json(), indent=1).encode() + b"\n")
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


def push_verdicts(url: str, cohort: str, verdicts: Sequence[Verdict]) -> None:
    """Every verdict to its participant's ref in the room, in one push, each a fast-forward
    of the verdict it replaces (a remote that refuses forced updates takes it too)."""
    if not verdicts:
        return
    prefix = cohort_verdicts_prefix(cohort)
    old = list_refs(url, prefix, timeout=PUSH_TIMEOUT)
    store = MemoryRepo()
    fetch(
        url, store, [sha for sha in old.values() if sha != ZERO_SHA], depth=1, timeout=PUSH_TIMEOUT
    )
    new = {}
    for verdict in verdicts:
        ref = verdict_ref(cohort, verdict.participant)
        new[ref] = _verdict_commit(store, verdict, old.get(ref))
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
) -> dict[str, Verdict]:
    """The verdicts the room holds for this cohort (``refs``: the room's refs, already
    listed), read into ``store``, which keeps what it fetched for the next read."""
    prefix = cohort_verdicts_prefix(cohort)
    mine = {
        r: sha for r, sha in refs.items() if r.startswith(prefix) and b"/" not in r[len(prefix) :]
    }
    fetch(url, store, [sha for sha in mine.values() if sha not in store], depth=1, timeout=timeout)
    found = {}
    for ref, sha in mine.items():
        verdict = _read_verdict(store, sha)
        if verdict is not None and verdict.participant == ref[len(prefix) :].decode():
            found[verdict.participant] = verdict
    return found


def _read_verdict(store: MemoryRepo, sha: bytes) -> Verdict | None:
    try:
        commit = store[sha]
        if not isinstance(commit, Commit):
            return None
        tree = store[commit.tree]
        assert isinstance(tree, Tree)
        _mode, blob_id = tree[VERDICT_FILE.encode()]
        return Verdict.from_json(json.loads(store[blob_id].as_raw_string()))
    except (KeyError, ValueError, AssertionError, UnicodeDecodeError):
        return None  # not a verdict verify pushed: the participant reads as unverified
