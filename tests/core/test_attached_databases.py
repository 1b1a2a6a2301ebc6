"""Databases the run opens are attached to one DuckDB instance per process (pipelines/core/sql.py):
each behaves as a connection of its own would. What is committed is in the file and the file is
released on close; what is not committed is rolled back; two open at once do not see each other's
relations; a file another instance of this process holds (a notebook's session) still opens."""
from __future__ import annotations

import subprocess
import sys

import duckdb
import pandas as pd
import pytest

from pipelines.core import sql, warehouse
from pipelines.core.dictionary import apply_comments


def _one_row_and_a_second_uncommitted(path):
    """A database at `path` with table t holding x = 1, and x = 2 inserted in an open transaction."""
    con = sql.connect(path)
    con.execute("create table t as select 1 as x")
    con.execute("begin transaction")
    con.execute("insert into t values (2)")
    return con


def test_committed_rows_are_in_the_file_and_closing_releases_it(tmp_path):
    path = tmp_path / "w.duckdb"
    con = _one_row_and_a_second_uncommitted(path)
    con.execute("commit")
    con.execute("checkpoint")
    con.close()
    con.close()  # twice is harmless
    assert not path.with_name(path.name + ".wal").exists()  # `checkpoint` wrote to this file
    # another process can take the file's write lock: this one let it go
    other = subprocess.run([sys.executable, "-c", "import duckdb, sys; c = duckdb.connect(sys.argv[1]); "
                            "print(c.execute('select sum(x) from t').fetchone()[0]); c.close()", str(path)],
                           capture_output=True, text=True, check=True)
    assert other.stdout.strip() == "3"


def test_closing_rolls_back_what_was_not_committed(tmp_path):
    path = tmp_path / "w.duckdb"
    _one_row_and_a_second_uncommitted(path).close()  # as `_update_in_place` does when a step fails
    again = sql.connect(path, read_only=True)
    try:
        assert again.execute("select list(x order by x) from t").fetchall() == [([1],)]
        with pytest.raises(duckdb.Error):
            again.execute("create table u as select 1")
    finally:
        again.close()


def test_two_databases_open_at_once_see_only_their_own_relations(tmp_path):
    one, two = sql.connect(tmp_path / "one.duckdb"), sql.connect()
    try:
        one.execute("create view only_in_one as select 1 as x")
        one.execute("create table events (x integer)")
        assert warehouse._views_made(two) == {}
        # (the row store has no view and no table of the dictionary's: nothing to comment on)
        assert apply_comments(two) == 0
        assert two.execute("select count(*) from duckdb_views() where view_name = 'only_in_one' "
                       "and database_name = current_database()").fetchall() == [(0,)]
        assert one.execute("select x from only_in_one").fetchall() == [(1,)]
        # a frame registered on one connection is not visible to the other
        one.register("frame", pd.DataFrame({"v": [1]}))
        with pytest.raises(duckdb.Error):
            two.execute("select * from frame").fetchall()
    finally:
        one.close()
        two.close()


def test_a_file_this_process_holds_in_an_instance_of_its_own_still_opens(tmp_path):
    path = tmp_path / "w.duckdb"
    notebook = duckdb.connect(str(path))  # an analyst's session in the same Python process
    try:
        notebook.execute("create table t as select 7 as x")
        con = sql.connect(path)
        try:
            assert con.execute("select x from t").fetchall() == [(7,)]
        finally:
            con.close()
    finally:
        notebook.close()


def test_a_failed_load_leaves_insertion_order_kept_for_every_other_database(tmp_path):
    lake = tmp_path / "lake"
    lake.mkdir()
    broken = lake / "awards.parquet"
    broken.write_bytes(b"not parquet")
    con = sql.connect()
    try:
        with pytest.raises(duckdb.Error):
            warehouse._sync_rows(con, lake, {"awards": (warehouse.CORE_TABLES["awards"], [broken])})
    finally:
        con.close()
    other = sql.scratch()
    try:
        assert other.execute("select current_setting('preserve_insertion_order')").fetchall() == [(True,)]
    finally:
        other.close()


def test_a_connection_dropped_without_close_lets_its_file_go(tmp_path):
    import gc

    path = tmp_path / "w.duckdb"
    con = sql.connect(path)
    con.execute("create table t as select 1 as x")
    del con
    gc.collect()
    again = sql.connect(path)  # attaching the same file again would fail were it still attached
    try:
        assert again.execute("select x from t").fetchall() == [(1,)]
    finally:
        again.close()
