"""A history's result pages, club month pages and player pages are written, and the site's links
put in every page, by worker processes (both cores); they must be the pages the run's own process
writes, byte for byte."""
from __future__ import annotations

import shutil
from pathlib import Path

from office import Office
from se_helpers import assert_differ_only_by_run
from pipelines.core import parallel
from pipelines.core.settings import DATA_DIR
import pipelines.core.site as site
import pipelines.sweden.publish as publish

ORG = "svensk-bridge"


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _sample_office(root: Path) -> Office:
    root.mkdir()
    office = Office(root)
    shutil.copytree(DATA_DIR / "samples" / "inbox" / ORG, office.inbox / ORG)
    return office


def test_pages_written_by_workers_are_the_pages_written_here(sample_run, tmp_path, monkeypatch):
    # the pages written here: the session's sample run (one process: the samples are below the thresholds)
    pooled = _sample_office(tmp_path / "pooled")
    calls = []
    map_chunks = parallel.map_chunks

    def spy(function, chunks, processes=None):
        calls.append((function.__name__, len(chunks), processes))
        return map_chunks(function, chunks, processes)

    monkeypatch.setenv(parallel.WORKERS_VARIABLE, "2")
    monkeypatch.setattr(publish, "PARALLEL_FROM_EVENTS", 1)  # the samples' dozen events as if a history
    monkeypatch.setattr(site, "PARALLEL_FROM_PAGES", 1)
    monkeypatch.setattr(site, "PARALLEL_FROM_PLAYER_PAGES", 1)
    monkeypatch.setattr(site, "PLAYER_PAGE_BATCH", 10)  # several batches from the samples' members
    # each batch's lines read by a query of its own (the session's run reads several batches' at once)
    monkeypatch.setattr(site, "LINES_PER_READ", 1)
    monkeypatch.setattr(site, "PLAYERS_PER_WORKER_JOB", 3)  # each cut into jobs of 3, 3, 3 and 1 players
    monkeypatch.setattr(parallel, "map_chunks", spy)
    map_streamed = parallel.map_streamed

    def streamed_spy(function, chunks, processes=None, ahead=2):
        chunks = list(chunks)
        calls.append((function.__name__, len(chunks), processes))
        return map_streamed(function, iter(chunks), processes, ahead)

    monkeypatch.setattr(parallel, "map_streamed", streamed_spy)
    monkeypatch.setattr(publish, "map_streamed", streamed_spy)
    monkeypatch.setattr(publish, "EVENTS_PER_READ", 5)  # the events' rows read in several slices
    pooled.run()

    # the event pages and the month pages, the player pages, and the links, went to two workers in
    # several chunks
    assert ("run_job", 2) in {(name, processes) for name, n, processes in calls if n > 2}
    assert ("put_links", 2) in {(name, processes) for name, n, processes in calls if n > 2}
    assert ("render_player_pages", 2) in {(name, processes) for name, n, processes in calls if n > 2}
    got, want = _files(pooled.state / "publications" / ORG), _files(sample_run.state / "publications" / ORG)
    assert sorted(got) == sorted(want)
    assert sum(name.endswith("resultat.csv") for name in got) >= 15
    assert sum(name.endswith("avgifter.csv") for name in got) >= 5
    assert sum(name.startswith("players/") for name in got) >= 100
    assert_differ_only_by_run(got, want)
