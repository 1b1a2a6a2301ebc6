"""pandera validation at stage boundaries, with failures turned into readable messages."""
from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pandera.pandas as pa
from pandera.errors import SchemaErrors


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


# The model's schema without coercion, by model: for a frame whose columns have the model's types
# already (most frames at a stage boundary), coercing is a copy of every column to the type it has
# (about a fifth of a small frame's validation). Every check runs the same.
_UNCOERCED: dict[type, pa.DataFrameSchema] = {}
_OBJECT = np.dtype("O")


def _schema_for(model: type[pa.DataFrameModel], frame: pd.DataFrame) -> pa.DataFrameSchema:
    schema = model.to_schema()
    if not schema.coerce or not frame.columns.is_unique:
        return schema
    dtypes = frame.dtypes
    for name, column in schema.columns.items():
        if column.dtype is None or name not in dtypes.index or dtypes[name] != column.dtype.type:
            return schema  # a column to coerce: pandera coerces (and reports what does not)
        if column.dtype.type == _OBJECT:
            # a type held in Python objects (pandera's Decimal(p, s), object): its coercion works
            # on the values (a Decimal is quantized to its scale, a float made a Decimal), so an
            # object column is no sign that it has nothing to do
            return schema
    if model not in _UNCOERCED:
        uncoerced = copy.deepcopy(schema)
        uncoerced.coerce = False
        _UNCOERCED[model] = uncoerced
    return _UNCOERCED[model]


def describe_failures(cases: pd.DataFrame) -> list[str]:
    return [
        f"{row.column}: check '{row.check}' failed (found {row.failure_case!r}, row {row.index})"
        for row in cases.itertuples()
    ]


def validate_settings(model: type[pa.DataFrameModel], frame: pd.DataFrame, what: str) -> pd.DataFrame:
    """For rule and calendar tables: any failure stops the run with every problem listed."""
    from pipelines.core.settings import SettingsError

    validated, cases = failure_cases(model, frame)
    if len(cases):
        problems = "\n  ".join(describe_failures(cases))
        raise SettingsError(f"{what} is invalid:\n  {problems}")
    return validated


def _no_failures() -> pd.DataFrame:
    return pd.DataFrame(columns=["index", "column", "check", "failure_case"])
