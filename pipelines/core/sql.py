"""Run the SQL files of sql/: one relation per file, parameters always bound."""
from __future__ import annotations

import os
from functools import cache
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa

from pipelines.core.settings import SQL_DIR


@cache
def sql_text(name: str) -> str:
    """The text of sql/<name>.sql."""
    return (SQL_DIR / f"{name}.sql").read_text(encoding="utf-8")


THREADS_VARIABLE = "POINTLEDGER_DUCKDB_THREADS"


def duckdb_config() -> dict:
    """The settings of every DuckDB database the run opens: `POINTLEDGER_DUCKDB_THREADS` caps
    DuckDB's worker threads per database (default: DuckDB's, one per core). A machine that runs
    several processes at once (the test suite runs one per core) gives each one thread: on small
    tables the threads only wait for one another."""
    value = os.environ.get(THREADS_VARIABLE, "").strip()
    if not value:
        return {}
    if not value.isdigit() or int(value) < 1:
        from pipelines.core.settings import SettingsError

        raise SettingsError(f"environment variable {THREADS_VARIABLE}: expected a whole number of threads "
                            f"of at least 1, found {value!r}")
    return {"threads": int(value)}


def open_database(database: str | Path = ":memory:", read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """duckdb.connect with the run's settings (duckdb_config). A database file this process holds
    open already (a notebook's session beside the run) keeps the settings it was opened with:
    DuckDB opens a file once per process, with one configuration."""
    config = duckdb_config()
    try:
        return duckdb.connect(str(database), read_only=read_only, config=config)
    except duckdb.ConnectionException as error:
        if not config or "different configuration" not in str(error):
            raise
        return duckdb.connect(str(database), read_only=read_only)


def connect(database: str | Path = ":memory:", read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with the macros of sql/macros.sql. Read-only connections (to the
    warehouse, which stores the macros) share the file with analysts' read-only sessions."""
    if read_only:
        return open_database(database, read_only=True)
    con = open_database(database)
    con.execute(sql_text("macros"))
    return con


_SCRATCH: tuple[int, duckdb.DuckDBPyConnection] | None = None


def scratch() -> duckdb.DuckDBPyConnection:
    """A connection for a stateless query over frames it registers (or Parquet files it reads):
    a cursor of one in-memory database per process, with the macros. Opening a DuckDB database
    builds its catalog of built-in functions (about 14 ms, several times a night); a cursor takes
    a fraction of a millisecond. What a cursor registers is its own and goes when it is closed;
    callers create no tables, views or schemas in it (a `connect()` of their own is for that)."""
    global _SCRATCH
    if _SCRATCH is None or _SCRATCH[0] != os.getpid():  # never a database inherited through a fork
        _SCRATCH = (os.getpid(), connect())
    return _SCRATCH[1].cursor()


def query(con: duckdb.DuckDBPyConnection, name: str, params: dict | None = None) -> pd.DataFrame:
    """Run sql/<name>.sql (a select) and return a frame with Arrow dtypes (exact decimals)."""
    result: pa.Table = con.sql(sql_text(name), params=params or {}).to_arrow_table()
    return result.to_pandas(types_mapper=pd.ArrowDtype)


def fetch(con: duckdb.DuckDBPyConnection, sql: str, params: list | dict | None = None) -> pd.DataFrame:
    """An inline select (for small lookups) as a frame with Arrow dtypes: decimals stay exact."""
    return con.sql(sql, params=params).to_arrow_table().to_pandas(types_mapper=pd.ArrowDtype)
