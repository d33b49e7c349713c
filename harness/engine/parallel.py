"""Independent work side by side, one worker per core, results in the order given.

Used by ``lab dev check`` (one lab per worker) and by a hook session whose turns are played
apart (one turn per worker). Threads suffice: the work waits on Maven and on hook processes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


def worker_count(wanted: int | None = None) -> int:
    """``wanted``, else $HOOKLAB_JOBS, else one per core this process may use (Maven keeps
    one core busy, so more workers than cores only queue for the CPU)."""
    if wanted is None:
        env = os.environ.get("HOOKLAB_JOBS", "")
        wanted = int(env) if env.isdigit() else len(os.sched_getaffinity(0))
    return max(1, wanted)


def side_by_side(
    work: Callable[[Item], Result], items: Sequence[Item], *, jobs: int | None = None
) -> list[Result]:
    """``[work(item) for item in items]``, ``jobs`` at a time; the first exception is raised
    once every item has finished (nothing is left running behind the caller)."""
    count = min(worker_count(jobs), len(items))
    if count <= 1:
        return [work(item) for item in items]
    with ThreadPoolExecutor(max_workers=count, thread_name_prefix="hooklab") as pool:
        futures = [pool.submit(work, item) for item in items]
    return [future.result() for future in futures]
