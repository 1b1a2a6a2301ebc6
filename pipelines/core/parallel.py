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
import threading
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Iterable, Sequence, TypeVar

import numpy as np

WORKERS_VARIABLE = "POINTLEDGER_WORKERS"

# The modules whose functions run in workers, as imported by this process so far: the fork server
# (started by a run's first pool) imports them all once, so that the workers of the run's later
# pools start without importing their module again (a few tenths of a second each pool)
_WORKER_MODULES: list[str] = []

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


def chunk_ranges(keys: Sequence, processes: int, per_chunk: int, per_worker: int = 4) -> list[tuple[int, int]]:
    """(start, stop) row ranges for map_chunks: the rows cut where `keys` changes (the rows of a
    page stay together), into `per_worker` chunks a worker (one that finishes early takes the
    next; pages differ in size) and more when that leaves over `per_chunk` pages in one (a chunk's
    rows are held as Python values by its worker). One range for one process."""
    keys = np.asarray(keys)
    if len(keys) == 0:
        return []
    if processes <= 1:
        return [(0, len(keys))]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    parts = min(len(starts), max(processes * per_worker, -(-len(starts) // per_chunk)))
    cuts = [int(starts[i]) for i in np.linspace(0, len(starts), parts, endpoint=False).astype(int)] + [len(keys)]
    return list(zip(cuts, cuts[1:]))


def serves_workers(module: str) -> None:
    """Called by a module with functions for map_chunks / map_streamed, on its import."""
    if module not in _WORKER_MODULES:
        _WORKER_MODULES.append(module)


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
    return map_streamed(function, chunks, processes, ahead=None)


def map_streamed(function: Callable[[Chunk], Result], chunks: Iterable[Chunk], processes: int | None = None,
                 ahead: int | None = 2) -> list[Result]:
    """map_chunks for chunks made one at a time (read from the warehouse, say): each is handed to
    the workers as soon as it is made, so that they work while the next is read, and at most
    `ahead` chunks per worker wait (None: no bound), so that the chunks made but not yet done
    bound the memory. With one process, each chunk is done as it is made. The same guarantees
    as map_chunks: results in order, a broken pool costs its speed only."""
    processes = workers() if processes is None else processes
    if processes <= 1:
        return [function(c) for c in chunks]
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(dict.fromkeys([function.__module__, __name__, *_WORKER_MODULES])))
    # a pipe whose writing end only this process holds: the workers see it close when the run dies
    alive_r, alive_w = context.Pipe(duplex=False)
    remaining = _told_apart(chunks)
    done: list[Result] = []
    pending: deque[list] = deque()  # [chunk, its future], oldest first

    def oldest_done() -> None:
        done.append(pending[0][1].result())
        pending.popleft()

    try:
        with ProcessPoolExecutor(max_workers=processes, mp_context=context, initializer=_watch_run,
                                 initargs=(alive_r,)) as pool:
            for chunk in remaining:
                pending.append([chunk, None])
                pending[-1][1] = pool.submit(function, chunk)
                while ahead is not None and len(pending) > processes * ahead:
                    oldest_done()
            while pending:
                oldest_done()
        return done
    except _SourceFailed as failed:
        raise failed.__cause__
    except (BrokenProcessPool, OSError) as failure:
        print(f"pointledger: worker processes failed ({failure.__class__.__name__}: {failure}); "
              "doing their work in this process", file=sys.stderr)
        return done + [function(c) for c, _ in pending] + [function(c) for c in remaining]
    finally:
        alive_r.close()
        alive_w.close()


class _SourceFailed(Exception):
    """An error of the code that makes the chunks, not of the pool (raised as it was)."""


def _told_apart(chunks: Iterable[Chunk]):
    try:
        yield from chunks
    except Exception as error:
        raise _SourceFailed() from error


def _watch_run(alive) -> None:
    """In each worker: a thread that waits on the run's pipe and ends the worker when the pipe
    closes, that is when the run is gone (killed). The executor's own queues would leave such a
    worker waiting for work for ever; and a worker of a killed run must not write a page after the
    next run's (which writes every page of the killed run's night again). A page cut short is as
    a killed run leaves one: a `.tmp` the next write replaces."""
    def watch() -> None:
        try:
            alive.recv()  # the run never sends: this returns when its end is closed
        except (EOFError, OSError):
            pass
        os._exit(0)

    threading.Thread(target=watch, name="pointledger-run-watch", daemon=True).start()
