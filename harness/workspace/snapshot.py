"""Whole-worktree snapshots as git commits, written with dulwich without touching HEAD or the index.

A backup must hold what the participant has *now* (untracked files included, ignored build
output excluded), and taking one must never disturb the repository they are working in.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

from dulwich.ignore import IgnoreFilterManager
from dulwich.object_store import tree_lookup_path
from dulwich.objects import Blob, Commit, Tree
from dulwich.repo import Repo

IDENTITY = b"Hook Lab <hooklab@localhost>"


def worktree_files(repo: Repo) -> list[str]:
    """Relative POSIX paths of every non-ignored file in the worktree."""
    root = Path(repo.path)
    ignore = IgnoreFilterManager.from_repo(repo)
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = Path(dirpath).relative_to(root).as_posix()
        rel_dir = "" if rel_dir == "." else rel_dir + "/"
        kept = []
        for name in sorted(dirnames):
            if rel_dir == "" and name == ".git":
                continue
            if not ignore.is_ignored(rel_dir + name + "/"):
                kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            rel = rel_dir + name
            if not ignore.is_ignored(rel):
                found.append(rel)
    return found


def _mode_for(path: Path) -> int:
    st = path.lstat()
    if stat.S_ISLNK(st.st_mode):
        return 0o120000
    return 0o100755 if st.st_mode & stat.S_IXUSR else 0o100644


def snapshot_tree(repo: Repo) -> bytes:
    """Store every worktree file as blobs and return the id of the root tree."""
    root = Path(repo.path)
    files: dict[str, tuple[int, bytes]] = {}
    for rel in worktree_files(repo):
        path = root / rel
        mode = _mode_for(path)
        data = os.readlink(path).encode() if mode == 0o120000 else path.read_bytes()
        blob = Blob.from_string(data)
        repo.object_store.add_object(blob)
        files[rel] = (mode, blob.id)
    return build_tree(repo, files)


def build_tree(repo: Repo, files: dict[str, tuple[int, bytes]]) -> bytes:
    """Store the trees for ``files`` (path -> (mode, blob id), blobs already stored)."""
    store = repo.object_store
    trees: dict[str, Tree] = {"": Tree()}
    for rel, (mode, blob_id) in sorted(files.items()):
        parent = ""
        parts = rel.split("/")
        for part in parts[:-1]:
            child = f"{parent}/{part}" if parent else part
            if child not in trees:
                trees[child] = Tree()
            parent = child
        trees[parent].add(parts[-1].encode(), mode, blob_id)
    # Write deepest trees first so each parent can point at its children's ids.
    for key in sorted(trees, key=lambda k: k.count("/") + (1 if k else 0), reverse=True):
        tree = trees[key]
        store.add_object(tree)
        if key:
            parent, _, name = key.rpartition("/")
            trees[parent].add(name.encode(), stat.S_IFDIR, tree.id)
    return trees[""].id


def commit_snapshot(repo: Repo, message: str, parents: list[bytes]) -> bytes:
    return make_commit(repo, snapshot_tree(repo), parents, message)


def make_commit(repo: Repo, tree_id: bytes, parents: list[bytes], message: str) -> bytes:
    """Store a commit of ``tree_id`` by the harness itself, outside any branch."""
    commit = Commit()
    commit.tree = tree_id
    commit.parents = parents
    commit.author = commit.committer = IDENTITY
    commit.author_time = commit.commit_time = int(time.time())
    commit.author_timezone = commit.commit_timezone = 0
    commit.encoding = b"UTF-8"
    commit.message = message.encode()
    repo.object_store.add_object(commit)
    return commit.id


def tree_files(repo: Repo, tree_id: bytes) -> dict[str, tuple[int, bytes]]:
    """Map every path in a tree to (mode, blob id)."""
    out: dict[str, tuple[int, bytes]] = {}
    for entry in repo.object_store.iter_tree_contents(tree_id):
        assert entry.path is not None and entry.mode is not None and entry.sha is not None
        out[entry.path.decode()] = (entry.mode, entry.sha)
    return out


def read_blob(repo: Repo, tree_id: bytes, rel: str) -> bytes | None:
    try:
        _mode, sha = tree_lookup_path(repo.object_store.__getitem__, tree_id, rel.encode())
    except KeyError:
        return None
    obj = repo.object_store[sha]
    assert isinstance(obj, Blob)
    return obj.data
