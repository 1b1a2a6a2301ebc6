"""sql.arrow_slices: one query's rows read in parts, each part whole keys (a publication's pages
are cut from a part: a page's rows must never be split between two)."""
from __future__ import annotations

import duckdb

from pipelines.core.sql import arrow_slices


def _parts(rows_per_key: list[int], rows: int) -> list[list[tuple[str, int]]]:
    con = duckdb.connect()
    try:
        con.execute("create table t (k varchar, i integer)")
        values = [(f"k{n:02d}", i) for n, count in enumerate(rows_per_key) for i in range(count)]
        if values:
            con.executemany("insert into t values (?, ?)", values)
        parts = arrow_slices(con, "select k, i from t where k <> ? order by k, i", ["none"], "k", rows)
        return [list(zip(p.column("k").to_pylist(), p.column("i").to_pylist())) for p in parts]
    finally:
        con.close()


def test_each_part_holds_whole_keys_and_all_rows_come_once_in_order():
    # keys of 3, 5, 1, 4 and 2 rows, parts of about 4 rows. The reader's batches are 4 rows:
    # [k00 k00 k00 k01] [k01 k01 k01 k01] [k02 k03 k03 k03] [k03 k04 k04]. At 4 rows or more a
    # part is cut before the key still open at its end: k00 | (k01 is longer than a part: it
    # waits for the third batch) k01 k02 | k03 | the rest, k04
    parts = _parts([3, 5, 1, 4, 2], 4)
    assert [sorted({k for k, _ in p}) for p in parts] == [["k00"], ["k01", "k02"], ["k03"], ["k04"]]
    assert [row for p in parts for row in p] == [(f"k{n:02d}", i) for n, c in enumerate([3, 5, 1, 4, 2]) for i in range(c)]


def test_a_result_smaller_than_a_part_is_one_part_and_an_empty_one_none():
    assert [len(p) for p in _parts([2, 2], 100)] == [4]
    assert _parts([], 10) == []
