"""A history's result pages and club month pages are written by worker processes (both cores);
they must be the pages the run's own process writes, byte for byte."""
from __future__ import annotations

import shutil
from pathlib import Path

from office import Office
from pipelines.core import parallel
from pipelines.core.settings import DATA_DIR
import pipelines.sweden.publish as publish

ORG = "svensk-bridge"


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _sample_office(root: Path) -> Office:
    root.mkdir()
    office = Office(root)
    shutil.copytree(DATA_DIR / "samples" / "inbox" / ORG, office.inbox / ORG)
    return office


def test_pages_written_by_workers_are_the_pages_written_here(tmp_path, monkeypatch):
    alone = _sample_office(tmp_path / "alone")
    monkeypatch.setenv(parallel.WORKERS_VARIABLE, "1")
    alone.run()

    pooled = _sample_office(tmp_path / "pooled")
    calls = []

    def spy(function, chunks, processes=None):
        calls.append((len(chunks), processes))
        return parallel.map_chunks(function, chunks, processes)

    monkeypatch.setenv(parallel.WORKERS_VARIABLE, "2")
    monkeypatch.setattr(publish, "PARALLEL_FROM_EVENTS", 1)  # the samples' dozen events as if a history
    monkeypatch.setattr(publish, "map_chunks", spy)
    pooled.run()

    # the event pages and the month pages went to two workers, in several chunks of each kind
    assert calls and calls[0][1] == 2 and calls[0][0] > 2
    got, want = _files(pooled.state / "publications" / ORG), _files(alone.state / "publications" / ORG)
    assert sorted(got) == sorted(want)
    assert sum(name.endswith("resultat.csv") for name in got) >= 15
    assert sum(name.endswith("avgifter.csv") for name in got) >= 5
    # only the files that name the run that made them differ: the feed and the pins list (its CSV and workbook)
    assert sorted(name for name in got if got[name] != want[name]) == ["feed.atom"] + [
        name for name in sorted(got) if name.startswith("nålar/") and name.endswith((".csv", ".xlsx"))]
