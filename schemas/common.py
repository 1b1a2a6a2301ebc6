"""Shared column types and the bridge from pandera models to Arrow schemas.

Points are exact decimals everywhere: pandas columns of Arrow `decimal128`, Parquet DECIMAL,
DuckDB DECIMAL. Dates are Arrow `date32`. One source of truth for a lake table's columns is its
pandera model; `arrow_schema(Model)` derives the Parquet schema from it.
"""
from __future__ import annotations

import pandas as pd
import pandera.pandas as pa
import pyarrow as pa_arrow

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
