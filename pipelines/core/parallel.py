"""Both cores for the long, pure parts of a run: a list of chunks, one function, results in order.

A federation's first run (years of history) writes tens of thousands of pages, each rendered and
written on its own: work that needs no database and no shared state, so it can run in worker
processes while the run waits. A night's handful of pages stays in the run's own process (the
callers pass a threshold), where starting workers would cost more than it saves.

The workers come from a fork server: fresh interpreters that import the function's module once,
never a fork of the run itself, whose DuckDB threads may hold locks at the moment of a fork.

`POINTLEDGER_WORKERS` sets the number of worker processes (default: one per core; 1 keeps all the
work in the run's process). A value that is not a whole number of at least 1 is a settings error.
"""
from __future__ import annotations

import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Sequence, TypeVar

WORKERS_VARIABLE = "POINTLEDGER_WORKERS"

Chunk = TypeVar("Chunk")
Result = TypeVar("Result")


def workers() -> int:
    """The worker processes a run may use (POINTLEDGER_WORKERS, default one per core)."""
    value = os.environ.get(WORKERS_VARIABLE, "").strip()
    if not value:
        return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
    if not value.isdigit() or int(value) < 1:
        from pipelines.core.settings import SettingsError

        raise SettingsError(f"environment variable {WORKERS_VARIABLE}: expected a whole number of worker processes "
                            f"of at least 1, found {value!r}")
    return int(value)


def map_chunks(function: Callable[[Chunk], Result], chunks: Sequence[Chunk], processes: int | None = None) -> list[Result]:
    """`[function(c) for c in chunks]`, in worker processes when there are several chunks and
    more than one worker (`processes`, default `workers()`). `function` must be a module-level
    function and its chunks and results picklable; it must give the same result wherever it runs
    (the chunks are the unit of work: what one writes, no other touches).

    A pool that cannot start, or whose worker dies (killed for memory, say), costs its speed only:
    the chunks are done again in this process (each chunk's work is written whole or replaced
    whole, so doing one twice gives what doing it once gives). An error raised by `function`
    itself is raised here, as it would be without workers."""
    processes = min(workers() if processes is None else processes, len(chunks))
    if processes <= 1:
        return [function(c) for c in chunks]
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([function.__module__])
    try:
        with ProcessPoolExecutor(max_workers=processes, mp_context=context) as pool:
            return list(pool.map(function, chunks))
    except (BrokenProcessPool, OSError) as failure:
        print(f"pointledger: worker processes failed ({failure.__class__.__name__}: {failure}); "
              "doing their work in this process", file=sys.stderr)
        return [function(c) for c in chunks]
