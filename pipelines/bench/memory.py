"""The memory of a run with all its processes (issue 13's "under 2 GiB").

A run's worker processes (pipelines/core/parallel.py) hold memory of their own, beside the run's.
The `ru_maxrss` that `os.wait4` reports is the largest that any one of them held (the run or a
waited-for child), not what they held together. `TreeMemory` samples the
proportional set size (PSS: a page shared by several processes counted once, in shares) of the
run and every process below it, ten times a second, and keeps the largest sum.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path


def _children() -> dict[int, list[int]]:
    """{parent pid: [child pids]} of every process now running."""
    out: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            # the parent is the fourth field after the command, which is in parentheses
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        out.setdefault(int(fields[1]), []).append(int(entry.name))
    return out


def _pss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_pss_mib(root: int) -> float:
    """The PSS of `root` and all its descendants now, in MiB."""
    children, total, stack, seen = _children(), 0, [root], set()
    while stack:
        pid = stack.pop()
        if pid not in seen:
            seen.add(pid)
            total += _pss_kib(pid)
            stack.extend(children.get(pid, []))
    return total / 1024


class TreeMemory:
    """`with TreeMemory(pid) as memory: ...wait for it...`, then `memory.peak_mib`."""

    def __init__(self, pid: int, interval: float = 0.1):
        self.pid, self.interval, self.peak_mib = pid, interval, 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="tree-memory", daemon=True)

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak_mib = max(self.peak_mib, tree_pss_mib(self.pid))
            self._stop.wait(self.interval)

    def __enter__(self) -> "TreeMemory":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def available() -> bool:
    """Whether this system reports PSS (Linux 4.14 and later)."""
    return os.path.exists(f"/proc/{os.getpid()}/smaps_rollup")


def peak_mib(usage, memory: TreeMemory) -> float:
    """A run's peak: the sampled peak of all its processes together, or `ru_maxrss` (the largest
    one process held) where that is larger (a peak shorter than the sampling interval)."""
    return round(max(usage.ru_maxrss / 1024, memory.peak_mib), 1)
