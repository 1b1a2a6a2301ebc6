"""A warehouse that travels (issue 12): the state folder copied elsewhere answers every view, and
the warehouse's incremental row store always equals the lake the manifest lists."""
from __future__ import annotations

import shutil
import subprocess
import sys

import duckdb
import pandas as pd

from pipelines.core.lake import Lake
from pipelines.core.settings import StatePaths


def game(day: int, first: str) -> str:
    return f"2026-11-{day:02d}\n・1位{first} 40000\n・2位B 30000\n・3位C 20000\n・4位D 10000\n"


def views(con) -> list[str]:
    # schema-qualified: the analysts' views (main) and the internal lake relations they read
    return [v for (v,) in con.sql("select schema_name || '.' || view_name from duckdb_views() where not internal "
                                  "order by 1").fetchall()]


def test_a_copied_state_folder_answers_every_view_from_another_directory(office, tmp_path):
    office.post("sofu-mahjong/a.txt", game(3, "A"))
    office.run()
    office.post("sofu-mahjong/a.txt", game(3, "E"))  # a correction: reversal lines too
    office.run()
    original = duckdb.connect(str(office.state / "warehouse.duckdb"), read_only=True)
    expected = {v: original.sql(f'select * from {v} order by all').fetchall() for v in views(original)}
    original.close()
    moved = tmp_path / "laptop" / "state"
    shutil.copytree(office.state, moved)
    shutil.rmtree(office.state)  # the lake is gone: the copy must not need it
    code = ("import duckdb, sys, json; con = duckdb.connect(sys.argv[1], read_only=True); "
            "vs = [v for (v,) in con.sql(\"select schema_name || '.' || view_name from duckdb_views() where not internal\").fetchall()]; "
            "print(json.dumps({v: con.sql(f'select count(*) from {v}').fetchall()[0][0] for v in vs}))")
    done = subprocess.run([sys.executable, "-c", code, "warehouse.duckdb"], cwd=moved, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    counts = __import__("json").loads(done.stdout)
    assert counts == {v: len(rows) for v, rows in expected.items()}
    assert counts["main.awards"] == 12  # 4 lines, 4 reversals, 4 new lines
    copy = duckdb.connect(str(moved / "warehouse.duckdb"), read_only=True)
    for v, rows in expected.items():
        assert copy.sql(f'select * from {v} order by all').fetchall() == rows, v


def test_the_row_store_follows_compaction_and_corrections(office):
    # 10 nights in one month: the partition is compacted (more than 8 files) along the way
    for day in range(1, 11):
        office.post(f"sofu-mahjong/2026-11-{day:02d}.txt", game(day, "A"))
        office.run()
    office.post("sofu-mahjong/2026-11-05.txt", game(5, "Z"))
    office.run()
    paths = StatePaths(office.state)
    lake = Lake.open(paths)
    files = lake.committed_files("awards")
    on_disk = duckdb.sql("select count(*) from read_parquet(?)", params=[[str(f) for f in files]]).fetchall()[0][0]
    assert on_disk == 10 * 4 + 4 + 4
    assert len(office.query("select * from internal.lake_awards")) == on_disk  # updated in place each night
    # a warehouse that must be built afresh (lost here; locked by an analyst or left with a log
    # beside it in an office) is seeded from the row store, which then catches up with every
    # file the nights since its last use added and every file compaction removed
    stored = duckdb.connect(str(paths.warehouse_rows), read_only=True)
    first_night = stored.sql("select count(*) from lake.awards").fetchall()[0][0]
    stored.close()
    assert first_night == 4  # the nights that updated the warehouse in place left the store alone
    paths.warehouse.unlink()
    assert office.run().exit_code == 0
    assert len(office.query("select * from internal.lake_awards")) == on_disk
    stored = duckdb.connect(str(paths.warehouse_rows), read_only=True)
    recorded = {f for (f,) in stored.sql("select file from lake._files where lake_table = 'awards'").fetchall()}
    stored.close()
    assert recorded == {f.relative_to(paths.lake).as_posix() for f in files}
    balances = office.query("select player_id, points from balances order by player_id")
    # A won 9 firsts (7 each) and Z one; B 2nd 4 ×10, C 3rd 2 ×10, D 4th 0
    assert balances.astype(str).values.tolist() == [["A", "63.00"], ["B", "40.00"], ["C", "20.00"], ["D", "0.00"],
                                                    ["Z", "7.00"]]


def test_a_deleted_row_store_is_rebuilt(office):
    office.post("sofu-mahjong/a.txt", game(3, "A"))
    office.run()
    paths = StatePaths(office.state)
    paths.warehouse_rows.unlink()
    office.post("sofu-mahjong/b.txt", game(4, "E"))
    office.run()  # updates the warehouse in place: the store is not needed
    assert len(office.query("select * from awards")) == 8
    paths.warehouse.unlink()
    office.run()  # a warehouse built afresh: the store is made again, from every lake file
    assert paths.warehouse_rows.is_file()
    assert len(office.query("select * from awards")) == 8
    assert isinstance(office.query("select * from balances"), pd.DataFrame)
