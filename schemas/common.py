"""Shared column types and the bridge from pandera models to Arrow schemas.

Points are exact decimals everywhere: pandas columns of Arrow `decimal128`, Parquet DECIMAL,
DuckDB DECIMAL. Dates are Arrow `date32`. One source of truth for a lake table's columns is its
pandera model; `arrow_schema(Model)` derives the Parquet schema from it.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pandera.pandas as pa
import pyarrow as pa_arrow
import pyarrow.compute  # noqa: F401  (pa_arrow.compute)

POINTS = pd.ArrowDtype(pa_arrow.decimal128(12, 2))
AVERAGE = pd.ArrowDtype(pa_arrow.decimal128(12, 3))
DATE = pd.ArrowDtype(pa_arrow.date32())
TEXT = pd.ArrowDtype(pa_arrow.string())
INT = pd.ArrowDtype(pa_arrow.int64())
BOOL = pd.ArrowDtype(pa_arrow.bool_())


def arrow_schema(model: type[pa.DataFrameModel]) -> pa_arrow.Schema:
    """The Parquet/Arrow schema of a lake table, from its pandera model (column order kept)."""
    fields = []
    for name, column in model.to_schema().columns.items():
        dtype = column.dtype.type
        if isinstance(dtype, pd.ArrowDtype):
            arrow_type = dtype.pyarrow_dtype
        else:  # pragma: no cover - every lake model uses Arrow dtypes
            raise TypeError(f"{model.__name__}.{name}: lake columns must use Arrow dtypes, got {dtype}")
        fields.append(pa_arrow.field(name, arrow_type, nullable=column.nullable))
    return pa_arrow.schema(fields)


def empty_frame(model: type[pa.DataFrameModel]) -> pd.DataFrame:
    """A typed empty frame with exactly the model's columns."""
    return arrow_schema(model).empty_table().to_pandas(types_mapper=pd.ArrowDtype)


def repeated_rows(frame: pd.DataFrame, columns: list[str]) -> np.ndarray:
    """Whether each row's combination of `columns` occurs on another row too (pandas'
    `duplicated(keep=False)`; nulls equal), counted on sort-based codes of each column. For the
    grain of a table of a million lines: pandas' `duplicated`, which pandera's `unique` uses,
    spells a text column out as one Python string per row, and Arrow's hash tables are as large
    (about 200 MB for a history's award ids; a dense rank takes a few MB)."""
    if not len(frame):
        return np.zeros(0, dtype=bool)
    table = pa_arrow.Table.from_pandas(frame[columns], preserve_index=False)
    if len(frame) >= _HASHED_FROM and _hashes_all_differ(table):
        return np.zeros(len(frame), dtype=bool)
    combined = _dense_codes(table.column(0))
    for column in table.columns[1:]:
        codes = _dense_codes(column)
        # coded again after each column: the combined codes stay below the number of rows
        combined = np.unique(combined * (int(codes.max()) + 1) + codes, return_inverse=True)[1].reshape(-1)
    return np.bincount(combined)[combined] > 1


# From this many rows, repeated_rows first compares one 64-bit hash per row: rows with different
# hashes differ, so when no two hashes are equal (the usual case) no row repeats, found in a sort
# of integers (about 20 ms for a history's 800,000 award ids, where ranking the ids themselves
# takes 0.6 s). Equal hashes send the frame to the exact comparison below.
_HASHED_FROM = 10_000


def _hashes_all_differ(table: pa_arrow.Table) -> bool:
    from pipelines.core.sql import scratch  # (pipelines.core imports schemas: imported when first used)

    con = scratch()
    try:
        con.register("grain_rows", table)
        columns = ", ".join(f'"{name}"' for name in table.column_names)
        hashes = np.sort(con.execute(f"select hash({columns}) as h from grain_rows").fetchnumpy()["h"])
    finally:
        con.close()
    return not bool((hashes[1:] == hashes[:-1]).any())


def unique_grain(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame | bool:
    """A model's grain as a dataframe check (pandera's `unique`, on `repeated_rows`): False at
    each key value of a repeated combination, so that the failure cases name the key columns.
    True when no combination repeats: from a frame of outcomes pandera gathers failure cases
    over every column and row even when all pass (half of a small frame's validation)."""
    repeated = repeated_rows(frame, columns)
    if not repeated.any():
        return True
    keep = np.ones(len(frame), dtype=bool)
    return pd.DataFrame({c: ~repeated if c in columns else keep for c in frame.columns}, index=frame.index)


def _dense_codes(column: pa_arrow.ChunkedArray) -> np.ndarray:
    """Equal values (nulls among them), equal codes: Arrow's dense rank; a dictionary column's
    codes from the rank of its chunks' dictionaries."""
    if not pa_arrow.types.is_dictionary(column.type):
        return pa_arrow.compute.rank(column, tiebreaker="dense").to_numpy().astype(np.int64)
    chunks = [chunk for chunk in column.chunks if len(chunk)]
    values = pa_arrow.concat_arrays([chunk.dictionary for chunk in chunks])
    ranks = pa_arrow.compute.rank(values, tiebreaker="dense").to_numpy().astype(np.int64)
    ranks = np.append(ranks, int(ranks.max(initial=0)) + 1)  # the last: the code of a null
    offsets = np.cumsum([0] + [len(chunk.dictionary) for chunk in chunks])
    return np.concatenate([ranks[np.where(chunk.indices.is_null().to_numpy(zero_copy_only=False), len(values),
                                          offset + pa_arrow.compute.fill_null(chunk.indices, 0).to_numpy())]
                           for chunk, offset in zip(chunks, offsets)])
