"""The small in-memory warehouses a night's publications read (RunContext.scoped, issue 8/12):
with `reads`, only the views the publication queries and what they read are made, and they
answer as the warehouse with every view does; and the process-wide scratch connection."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from pipelines.core import sql, warehouse
from pipelines.core.lake import Lake
from pipelines.core.settings import StatePaths
from pipelines.core.system import get_system
from pipelines.sweden.system import SwedenSystem

SE_VIEWS = SwedenSystem.warehouse_sql


def test_the_event_pages_views_are_the_club_fees_and_what_they_read():
    # read by hand from sql/warehouse/: se_club_fees reads events, se_result_rows, se_series_matches
    # and se_series_final_places (the series matches' and finals' sessions); se_series_final_places
    # reads se_series_standings and sources; se_series_standings reads se_series_matches; se_results
    # reads se_result_rows; se_result_rows, se_series_matches and events read sources; sources reads
    # only lake tables and runs. (The header of se_series_final_places says "awards" in a comment:
    # not a read.)
    chosen = warehouse.views_read_by(warehouse.CORE_VIEWS + SE_VIEWS, {"se_results", "se_club_fees"})
    assert chosen == ["warehouse/sources", "warehouse/events", "warehouse/se_result_rows", "warehouse/se_results",
                      "warehouse/se_series_matches", "warehouse/se_series_standings",
                      "warehouse/se_series_final_places", "warehouse/se_club_fees"]


def test_the_mahjong_leaderboard_reads_the_awards_only():
    chosen = warehouse.views_read_by(warehouse.CORE_VIEWS + get_system("mahjong").warehouse_sql, {"mahjong_leaderboard"})
    assert chosen == ["warehouse/awards", "warehouse/mahjong_leaderboard"]


def _scoped(state, organisation: str, reads: set[str] | None):
    """A scoped warehouse as RunContext.scoped makes it, over every month of the organisation."""
    lake = Lake.open(StatePaths(state))
    system = get_system("sweden")
    own = {**warehouse.CORE_TABLES, **system.lake_tables}
    files = {t: (m, lake.committed_files(t, organisation)) for t, m in own.items()}
    full = sql.connect(state / "warehouse.duckdb", read_only=True)
    try:
        tables = {name: full.sql(f"select * from main.{name}").df()
                  for name in ["se_clubs", "se_members", "se_fee_rates", "se_session_weights", "se_rule_versions",
                               "se_series_levels", "se_team_session_weights"]}
        runs = full.sql("select * from runs").df()
    finally:
        full.close()
    con = sql.connect()
    warehouse.define(con, files, tables, list(system.warehouse_sql), runs, scoped=True, reads=reads)
    return con


def test_a_scoped_warehouse_made_for_its_reads_answers_as_one_with_every_view(sample_run):
    pruned = _scoped(sample_run.state, "svensk-bridge", {"se_results", "se_club_fees"})
    try:
        made = {r[0] for r in pruned.sql("select view_name from duckdb_views() where not internal and not temporary "
                                        "and database_name = current_database()").fetchall()}
        assert made == {"sources", "events", "se_result_rows", "se_results", "se_series_matches", "se_series_standings",
                        "se_series_final_places", "se_club_fees"}, made
        lake = {r[0] for r in pruned.sql("select table_name from duckdb_tables() where schema_name = 'internal' "
                                        "and database_name = current_database()").fetchall()}
        assert lake == {"lake_sources", "lake_events", "lake_se_results", "lake_se_series_matches", "lake_se_series_finals"}
        got = {v: sql.fetch(pruned, f"select * from {v} order by all") for v in ("se_results", "se_club_fees")}
    finally:
        pruned.close()
    # the independent answer: the warehouse file the run wrote, with every view
    for view, frame in got.items():
        want = sample_run.query(f"select * from {view} where organisation = 'svensk-bridge' order by all")
        assert len(want) > 0, view
        pd.testing.assert_frame_equal(frame.astype(str), want.astype(str).reset_index(drop=True), check_dtype=False)


def test_what_a_scratch_connection_registers_is_its_own():
    first, second = sql.scratch(), sql.scratch()
    try:
        first.register("frame", pd.DataFrame({"v": [1, 2]}))
        assert first.execute("select sum(v) from frame").fetchone() == (3,)
        assert second.execute("select count(*) from duckdb_views() where view_name = 'frame'").fetchone() == (0,)
    finally:
        first.close()
    third = sql.scratch()
    try:
        assert third.execute("select count(*) from duckdb_views() where view_name = 'frame'").fetchone() == (0,)
        # the macros of sql/macros.sql are there, as in a connect()
        assert third.execute("select count(*) from duckdb_functions() where function_type = 'macro' "
                         "and schema_name = 'main'").fetchone()[0] > 0
    finally:
        third.close()
        second.close()


def test_a_forked_process_gets_a_scratch_database_of_its_own(monkeypatch):
    mine = sql.scratch()
    mine.close()
    parent = sql._INSTANCE[1]
    monkeypatch.setattr(sql.os, "getpid", lambda: -1)  # as a child of a fork sees it
    child = sql.scratch()
    child.close()
    assert sql._INSTANCE[1] is not parent


def _publications(state) -> dict[str, bytes]:
    # pages and CSV exports, with the run that wrote them left out (a workbook records it inside)
    import re

    root = state / "publications"
    run_id = re.compile(rb"\d{8}T\d{12}Z-[0-9a-f]{4}")
    return {p.relative_to(root).as_posix(): run_id.sub(b"RUN", p.read_bytes()) for p in sorted(root.rglob("*"))
            if p.is_file() and p.suffix in {".html", ".csv", ".json", ".xml"}}


def test_publications_read_from_the_warehouse_itself_equal_those_read_from_a_scoped_copy(tmp_path, monkeypatch):
    """When a publication's months are every month its organisation has (a league's first month),
    it reads the warehouse itself; the pages are those a scoped copy gives."""
    from office import Office
    from pipelines.core import run as nightly

    samples = Path(__file__).resolve().parents[2] / "data" / "samples" / "inbox"
    offices = {}
    for name in ("itself", "copy"):
        (tmp_path / name).mkdir()
        office = offices[name] = Office(tmp_path / name)
        for game in sorted((samples / "sofu-mahjong").glob("2026-08-*.txt")):  # a month of the league
            office.post(f"sofu-mahjong/{game.name}", game.read_bytes())
    answers = {}
    real = nightly._holds_every_file
    monkeypatch.setattr(nightly, "_holds_every_file",
                        lambda lake, organisation, pruned: answers.setdefault(organisation, real(lake, organisation, pruned)))
    offices["itself"].run()
    assert answers == {"sofu-mahjong": True}  # the league's period pages read the warehouse itself
    monkeypatch.setattr(nightly, "_holds_every_file", lambda *a: False)
    offices["copy"].run()
    got, expected = _publications(offices["itself"].state), _publications(offices["copy"].state)
    assert any(p.startswith("sofu-mahjong/2026-") for p in expected)  # a period's pages
    assert got.keys() == expected.keys()
    assert [p for p in got if got[p] != expected[p]] == []
