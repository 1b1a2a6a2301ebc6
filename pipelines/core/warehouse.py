"""The analysts' DuckDB warehouse: views over the committed lake files, rebuilt every run.

The warehouse is built into a temporary file and swapped in with one rename, so readers see the
old warehouse or the new one, never half of one. Views name the lake files the manifest lists
(by absolute path): files of an uncommitted run are never visible.
"""
from __future__ import annotations

import os
from pathlib import Path

import duckdb
import pandas as pd

from pipelines.core.sql import connect, sql_text
from schemas.common import arrow_schema
from schemas.ledger import AwardLine, EventRecord, QuarantineRecord, SourceRecord

CORE_TABLES = {
    "sources": SourceRecord,
    "events": EventRecord,
    "awards": AwardLine,
    "quarantine": QuarantineRecord,
}
CORE_VIEWS = ["warehouse/sources", "warehouse/events", "warehouse/awards", "warehouse/balances", "warehouse/quarantine"]
AUDITS = ["award_posted_twice", "reversal_mismatch", "award_without_event", "source_version_processed_twice"]


def _quote(text: str) -> str:
    # Paths are ours (the lake's own files), but quote them properly all the same.
    return "'" + text.replace("'", "''") + "'"


def create_lake_view(con: duckdb.DuckDBPyConnection, table: str, model, files: list[Path]) -> None:
    """`lake_<table>`: the given Parquet files, or an empty relation of the right columns."""
    if files:
        listing = ", ".join(_quote(str(Path(f).resolve())) for f in files)
        con.execute(
            f"create or replace view lake_{table} as "
            # every file of a table has the schema of its pandera model, so the first file's
            # footer binds the view (union_by_name would open every file)
            f"select * from read_parquet([{listing}], hive_partitioning = false)"
        )
    else:
        con.register(f"_empty_{table}", arrow_schema(model).empty_table())
        con.execute(f"create or replace table lake_{table} as select * from _empty_{table}")
        con.unregister(f"_empty_{table}")


def run_audits(con: duckdb.DuckDBPyConnection) -> dict[str, pd.DataFrame]:
    """Every audit query that returned rows (it must return none)."""
    failures = {}
    for name in AUDITS:
        rows = con.execute(sql_text(f"audits/{name}")).fetch_df()
        if len(rows):
            failures[name] = rows
    return failures


def define(
    con: duckdb.DuckDBPyConnection,
    lake_files: dict[str, tuple[type, list[Path]]],
    data_tables: dict[str, pd.DataFrame],
    system_views: list[str],
    runs: pd.DataFrame,
) -> None:
    """Create the lake relations, the data tables and every view of sql/warehouse/ in `con`."""
    for table, (model, files) in lake_files.items():
        create_lake_view(con, table, model, files)
    for name, frame in data_tables.items():
        con.register(f"_data_{name}", frame)
        con.execute(f"create or replace table {name} as select * from _data_{name}")
        con.unregister(f"_data_{name}")
    con.register("_runs", runs)
    con.execute("create or replace table runs as select * from _runs")
    con.unregister("_runs")
    for view in CORE_VIEWS + system_views:
        relation = view.split("/")[-1]
        con.execute(f"create or replace view {relation} as {sql_text(view)}")


def build(
    target: Path,
    lake_files: dict[str, tuple[type, list[Path]]],
    data_tables: dict[str, pd.DataFrame],
    system_views: list[str],
    runs: pd.DataFrame,
) -> Path:
    """Build the warehouse into `<target>.tmp` and return that path (the caller swaps it in)."""
    tmp = target.with_name(target.name + ".tmp")
    for stale in (tmp, tmp.with_name(tmp.name + ".wal")):
        if stale.exists():
            stale.unlink()
    con = connect(tmp)
    try:
        define(con, lake_files, data_tables, system_views, runs)
        con.execute("checkpoint")
    finally:
        con.close()
    return tmp


def swap_in(tmp: Path, target: Path, set_aside: Path | None = None) -> str | None:
    """Replace the warehouse with the one just built. An analyst's read-write session on the old
    file may have left a write-ahead log beside it, which belongs to the old file and would make
    the new one unreadable ("WAL does not match database file"): it is moved aside, and the
    returned note says so (the warehouse is rebuilt every run; analysts' own tables belong in
    their own database file)."""
    os.replace(tmp, target)
    wal = target.with_name(target.name + ".wal")
    if not wal.exists():
        return None
    destination = set_aside or target.with_name(target.name + ".stale.wal")
    destination.parent.mkdir(parents=True, exist_ok=True)
    os.replace(wal, destination)
    return (f"an analyst's session had uncommitted writes in {target.name}; the warehouse is rebuilt every run, so "
            f"they were set aside in {destination} (keep your own tables in your own database file and ATTACH "
            f"the warehouse read-only)")
