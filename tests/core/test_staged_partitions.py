"""A staged table is written one file per (organisation, month), each partition's rows in the
order the frame holds them, whether the frame comes in partition order (sliced) or not (each
partition's rows taken on their own, so that a history's ledger is not copied whole)."""
from __future__ import annotations

from datetime import date
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from pipelines.core.lake import Lake, StagedRun
from pipelines.core.settings import StatePaths
from schemas.common import DATE, TEXT

import pandera.pandas as pa


class Dated(pa.DataFrameModel):
    organisation: TEXT = pa.Field()
    event_date: DATE = pa.Field()
    label: TEXT = pa.Field()


def _frame(rows):
    return pd.DataFrame(rows, columns=["organisation", "event_date", "label"]).astype(
        {"organisation": TEXT, "event_date": DATE, "label": TEXT})


def _written(tmp_path: Path, frame: pd.DataFrame) -> dict[str, list[str]]:
    staged = StagedRun(Lake.open(StatePaths(tmp_path / "var")), "run-1")
    rels = staged.write("dated", Dated, frame, month_column="event_date")
    return {rel.rsplit("/", 1)[0]: pq.read_table(staged.root / rel).column("label").to_pylist() for rel in rels}


def test_rows_out_of_partition_order_land_in_their_partitions_in_frame_order(tmp_path):
    d = date
    frame = _frame([("b-club", d(2024, 8, 1), "b1"), ("a-club", d(2024, 9, 3), "a3"), ("a-club", d(2024, 8, 9), "a1"),
                    ("b-club", d(2024, 8, 2), "b2"), ("a-club", d(2024, 9, 1), "a4"), ("a-club", d(2024, 8, 1), "a2")])
    assert _written(tmp_path, frame) == {
        "dated/org=a-club/month=2024-08": ["a1", "a2"],
        "dated/org=a-club/month=2024-09": ["a3", "a4"],
        "dated/org=b-club/month=2024-08": ["b1", "b2"],
    }


def test_rows_in_partition_order_are_sliced_the_same(tmp_path):
    d = date
    frame = _frame([("a-club", d(2024, 8, 9), "a1"), ("a-club", d(2024, 9, 3), "a2"), ("b-club", d(2024, 7, 1), "b1")])
    assert _written(tmp_path, frame) == {
        "dated/org=a-club/month=2024-08": ["a1"], "dated/org=a-club/month=2024-09": ["a2"],
        "dated/org=b-club/month=2024-07": ["b1"]}


def test_a_frame_of_several_chunks_out_of_order_is_taken_chunk_by_chunk(tmp_path):
    """A history's ledger arrives as one chunk per slice of events, its months interleaved; each
    partition is taken from the chunks that hold its rows (not from the chunks joined first)."""
    d = date
    slices = [_frame([("a-club", d(2024, 9, 1), "s1-a9"), ("a-club", d(2024, 8, 1), "s1-a8"), ("b-club", d(2024, 8, 5), "s1-b8")]),
              _frame([("b-club", d(2024, 8, 6), "s2-b8"), ("a-club", d(2024, 8, 2), "s2-a8")]),
              _frame([("a-club", d(2024, 9, 2), "s3-a9"), ("a-club", d(2024, 8, 3), "s3-a8")])]
    frame = pd.concat(slices, ignore_index=True)
    assert frame["label"].array._pa_array.num_chunks == 3
    assert _written(tmp_path, frame) == {
        "dated/org=a-club/month=2024-08": ["s1-a8", "s2-a8", "s3-a8"],
        "dated/org=a-club/month=2024-09": ["s1-a9", "s3-a9"],
        "dated/org=b-club/month=2024-08": ["s1-b8", "s2-b8"],
    }


def test_many_partitions_written_by_threads_are_the_partitions_written_one_by_one(tmp_path, monkeypatch):
    """Twelve months of two clubs in partition order (sliced, not copied): the files threads
    write (one per core) hold, in the same order of files, the same rows as those one thread
    writes; each partition's rows as counted by hand (month m of club a: m rows, of club b: one).
    Rows out of partition order (each partition a copy) are written one partition at a time."""
    import pipelines.core.lake as lake

    pools = []

    class CountedPool(lake.ThreadPoolExecutor):
        def __init__(self, *args, **kwargs):
            pools.append(args)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(lake, "ThreadPoolExecutor", CountedPool)
    monkeypatch.setattr(lake.parallel, "workers", lambda: 2)
    rows = [("a-club", date(2024, m, day), f"a{m}-{day}") for m in range(1, 13) for day in range(1, m + 1)]
    rows += [("b-club", date(2024, m, 15), f"b{m}") for m in range(1, 13)]
    frame = _frame(rows)
    threads = _written(tmp_path / "threads", frame)
    assert pools == [(2,)]
    monkeypatch.setattr(lake, "PARTITIONS_PER_THREAD", 10**9)
    one = _written(tmp_path / "one", frame)
    assert pools == [(2,)]
    assert list(threads.items()) == list(one.items())
    assert len(threads) == 24
    assert threads["dated/org=a-club/month=2024-03"] == ["a3-1", "a3-2", "a3-3"]
    assert [len(threads[f"dated/org=a-club/month=2024-{m:02d}"]) for m in range(1, 13)] == list(range(1, 13))
    assert threads["dated/org=b-club/month=2024-12"] == ["b12"]
    monkeypatch.setattr(lake, "PARTITIONS_PER_THREAD", 4)
    shuffled = _written(tmp_path / "shuffled", frame.iloc[::-1].reset_index(drop=True))
    assert pools == [(2,)]  # taken one at a time
    assert {k: v[::-1] for k, v in shuffled.items()} == threads
