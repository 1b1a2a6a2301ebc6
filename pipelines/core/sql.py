"""Run the SQL files of sql/: one relation per file, parameters always bound."""
from __future__ import annotations

import itertools
import os
import tempfile
import warnings
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


_INSTANCE: tuple[tuple, duckdb.DuckDBPyConnection] | None = None
_ALIASES = itertools.count()


def _instance() -> duckdb.DuckDBPyConnection:
    """The process's one in-memory DuckDB instance (per configuration), to which every database
    the run opens is attached. Creating an instance builds its catalog of built-in functions
    (about 12 ms); attaching a database to a live one takes under a millisecond, and a night
    opens five to ten (the row store, the warehouse twice, in-memory ones for the audit and for
    each publication's months). Never one inherited through a fork."""
    global _INSTANCE
    config = duckdb_config()
    key = (os.getpid(), tuple(sorted(config.items())))
    if _INSTANCE is None or _INSTANCE[0] != key:
        # a query too large for memory spills to the temp folder, never into cron's working directory
        spill = Path(tempfile.gettempdir()) / f"pointledger-duckdb-{os.getpid()}"
        con = duckdb.connect(config={**config, "temp_directory": str(spill)})
        con.execute(sql_text("macros"))
        _INSTANCE = (key, con)
    return _INSTANCE[1]


class Database:
    """A connection to one database attached to the process's instance (`_instance`): every
    method of duckdb.DuckDBPyConnection, with that database as the default one (unqualified
    names, `create`, `checkpoint`). `close()` rolls back what is uncommitted and detaches it,
    which releases the file as closing a connection of its own would."""

    def __init__(self, cursor: duckdb.DuckDBPyConnection, alias: str):
        self._cursor, self._alias = cursor, alias

    def __getattr__(self, name: str):
        if self._cursor is None:
            raise duckdb.ConnectionException("Connection already closed!")
        return getattr(self._cursor, name)

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """Another connection to the same database (the caller closes it; it does not detach)."""
        other = _instance().cursor()
        other.execute(f"use {self._alias}")
        return other

    def __del__(self):
        # a connection dropped without close() (an exception path) still lets its file go
        try:
            self.close()
        except Exception:  # noqa: BLE001 - at interpreter exit DuckDB may be gone already
            pass

    def close(self) -> None:
        if getattr(self, "_cursor", None) is None:
            return
        cursor, self._cursor = self._cursor, None
        cursor.close()  # its open transaction, if any, is rolled back
        detach = _instance().cursor()
        try:
            detach.execute(f"detach database if exists {self._alias}")
        finally:
            detach.close()


def open_database(database: str | Path = ":memory:", read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """A connection to `database` (a file, or a new in-memory database) with the run's settings
    (duckdb_config), attached to the process's instance (`Database`). A database file this
    process holds open already in an instance of its own (a notebook's session beside the run)
    is opened through that instance instead, keeping the settings it was opened with: DuckDB
    opens a file once per process."""
    alias = f"pointledger_{next(_ALIASES)}"
    target = ":memory:" if str(database) == ":memory:" else str(Path(database))
    instance = _instance()
    cursor = instance.cursor()
    try:
        cursor.execute(f"attach {literal(target)} as {alias}" + (" (read_only)" if read_only else ""))
    except duckdb.Error as error:
        cursor.close()
        if not isinstance(error, duckdb.ResourceInUseException):
            raise
        return _connect_own_instance(database, read_only)
    cursor.execute(f"use {alias}")
    return Database(cursor, alias)


def _connect_own_instance(database: str | Path, read_only: bool) -> duckdb.DuckDBPyConnection:
    config = duckdb_config()
    try:
        return duckdb.connect(str(database), read_only=read_only, config=config)
    except duckdb.ConnectionException as error:
        if not config or "different configuration" not in str(error):
            raise
        return duckdb.connect(str(database), read_only=read_only)


def literal(text: str) -> str:
    """`text` as an SQL string literal, for the statements that take no bound parameters (ATTACH,
    COMMENT ON, a list of Parquet paths inside read_parquet)."""
    return "'" + text.replace("'", "''") + "'"


def connect(database: str | Path = ":memory:", read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with the macros of sql/macros.sql. Read-only connections (to the
    warehouse, which stores the macros) share the file with analysts' read-only sessions."""
    if read_only:
        return open_database(database, read_only=True)
    con = open_database(database)
    con.execute(sql_text("macros"))
    return con


def scratch() -> duckdb.DuckDBPyConnection:
    """A connection for a stateless query over frames it registers (or Parquet files it reads):
    a cursor of the process's in-memory instance, with the macros. A cursor takes a fraction of
    a millisecond. What a cursor registers is its own and goes when it is closed; callers
    create no tables, views or schemas in it (a `connect()` of their own is for that)."""
    return _instance().cursor()


def arrow(con: duckdb.DuckDBPyConnection, sql: str, params: list | dict | None = None) -> pa.Table:
    """A select's rows as Arrow, the statement planned once. A relation (`con.sql(...)`) binds the
    statement when it is made and plans it again when it runs: 1–2 ms more a query on the
    warehouse's views, and a night asks them a few hundred questions. The copy of the result
    DuckDB warns about costs a few ms per million rows."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Arrow output on a DB-API result")
        return con.execute(sql, params).to_arrow_table()


def query(con: duckdb.DuckDBPyConnection, name: str, params: dict | None = None) -> pd.DataFrame:
    """Run sql/<name>.sql (a select) and return a frame with Arrow dtypes (exact decimals)."""
    return arrow(con, sql_text(name), params or {}).to_pandas(types_mapper=pd.ArrowDtype)


def fetch(con: duckdb.DuckDBPyConnection, sql: str, params: list | dict | None = None) -> pd.DataFrame:
    """An inline select (for small lookups) as a frame with Arrow dtypes: decimals stay exact."""
    return arrow(con, sql, params).to_pandas(types_mapper=pd.ArrowDtype)
