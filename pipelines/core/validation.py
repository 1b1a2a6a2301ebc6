"""pandera validation at stage boundaries, with failures turned into readable messages."""
from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pandera.pandas as pa
import pyarrow as pa_arrow
from pandera.errors import SchemaErrors

from pipelines.core.memory import is_held_once


def failure_cases(model: type[pa.DataFrameModel], frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Validate lazily. Returns (validated frame, failure cases).

    Failure cases have columns `index` (row label of the offending row, or NA for a
    whole-frame failure), `column`, `check`, `failure_case`.
    """
    try:
        # inplace: coerce the frame itself rather than a copy (a first run validates ~1M rows)
        return _schema_for(model, frame).validate(frame, lazy=True, inplace=True), _no_failures()
    except SchemaErrors as errors:
        cases = errors.failure_cases[["index", "column", "check", "failure_case"]].copy()
        return frame, cases


# Variants of a model's schema, by model and what the frame holds. Coercion only where it has work
# to do: pandera coerces a column by deep-copying its schema (checks and all) and copying the column
# to its type, even when the column has that type already (most columns at a stage boundary: about
# a fifth of a small frame's validation). So a variant coerces only the columns that differ from
# their model's type, and those held in Python objects (pandera's Decimal(p, s), object), whose
# coercion works on the values (a Decimal is quantized to its scale, a float made a Decimal). A text
# column held once per distinct value (`memory.texts_held_once`) passes as its model's text type as
# it is; coercing would spell every row's text out again, the copy it exists to avoid. Every check
# runs the same; what pandera coerces, it reports as its own.
_SCHEMAS: dict[tuple, pa.DataFrameSchema] = {}
_OBJECT = np.dtype("O")
_TEXT = pd.ArrowDtype(pa_arrow.string())


def _schema_for(model: type[pa.DataFrameModel], frame: pd.DataFrame) -> pa.DataFrameSchema:
    schema = model.to_schema()
    if not schema.coerce or not frame.columns.is_unique or schema.index is not None or schema.dtype is not None:
        return schema
    dtypes = frame.dtypes
    held_once = tuple((name, dtypes[name]) for name, column in schema.columns.items()
                      if name in dtypes.index and column.dtype is not None and column.dtype.type == _TEXT
                      and is_held_once(dtypes[name]))
    to_coerce = []
    for name, column in schema.columns.items():
        if column.dtype is None or column.regex or name not in dtypes.index:
            return schema  # a column pandera must find or type itself: its own schema, whole
        if column.dtype.type == _OBJECT or (dtypes[name] != column.dtype.type and (name, dtypes[name]) not in held_once):
            to_coerce.append(name)
    key = (model, tuple(to_coerce), held_once)
    if key not in _SCHEMAS:
        variant = copy.deepcopy(schema)
        variant.coerce = False
        for name, column in variant.columns.items():
            column.coerce = name in to_coerce
        if held_once:
            variant = variant.update_columns({name: {"dtype": dtype} for name, dtype in held_once})
        _SCHEMAS[key] = variant
    return _SCHEMAS[key]


def validate_frame(model: type[pa.DataFrameModel], frame: pd.DataFrame) -> pd.DataFrame:
    """`model.validate(frame)`: the validated copy, or pandera's SchemaError at the first failure;
    coerced only where a column has work to do (`_schema_for`). For frames a rule system builds
    for itself, where a failure is its own bug."""
    return _schema_for(model, frame).validate(frame)


def describe_failures(cases: pd.DataFrame) -> list[str]:
    return [
        f"{row.column}: check '{row.check}' failed (found {row.failure_case!r}, row {row.index})"
        for row in cases.itertuples()
    ]


def validate_settings(model: type[pa.DataFrameModel], frame: pd.DataFrame, what: str, line_of="csv") -> pd.DataFrame:
    """For rule and calendar tables: any failure stops the run with every problem listed, in the
    office's terms (pipelines/core/rule_tables.py). `line_of` names a row: "csv" for a CSV file's
    line (the header is line 1); a function of the row's index (a TOML file's list of tables), or
    None for one TOML table (its columns are then named as keys)."""
    from pipelines.core.rule_tables import checked, csv_line

    if line_of == "csv":
        return checked(model, frame, what, csv_line)
    return checked(model, frame, what, line_of, field="key")  # a TOML file's table


def _no_failures() -> pd.DataFrame:
    return pd.DataFrame(columns=["index", "column", "check", "failure_case"])
