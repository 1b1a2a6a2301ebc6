"""pandera validation at stage boundaries, with failures turned into readable messages."""
from __future__ import annotations

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
        return model.validate(frame, lazy=True, inplace=True), _no_failures()
    except SchemaErrors as errors:
        cases = errors.failure_cases[["index", "column", "check", "failure_case"]].copy()
        return frame, cases


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
