"""Ctrl-C halfway through a lab command that changes files puts the workspace back as it was."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator

from harness.workspace.workspace import Workspace


@contextlib.contextmanager
def undone_if_interrupted(ws: Workspace) -> Iterator[None]:
    """Ctrl-C halfway puts HEAD and the files back as they were.

    A change starts with a backup when there is anything to keep: a new backup holds the
    files as they were; none and a clean worktree means HEAD's tree is what they were; none
    and changes means the interrupt came before anything was touched. Once the progress is
    saved the command is done, and stays done. A second Ctrl-C waits until the files are
    back: stopping the putting back would leave them half-way.
    """
    head = ws.head()
    saved = ws.progress_head()
    known = {b.ref for b in ws.backups()}
    clean = not ws.changed_files()
    try:
        yield
    except KeyboardInterrupt:
        new = [b for b in ws.backups() if b.ref not in known]
        if ws.progress_head() == saved and (new or clean):
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            try:
                ws.put_back(new[0] if new else None, head)
            finally:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        raise
