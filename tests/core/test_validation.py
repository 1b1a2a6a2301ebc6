"""schemas/__init__.py answers pandera's dtype check of a passing `Series[str]` column with one
True instead of one per row; what fails, and how it is reported, must stay pandera's own."""
from __future__ import annotations

import pandas as pd
import pandera.pandas as pa
import pytest
from pandera.engines import pandas_engine
from pandera.errors import SchemaErrors
from pandera.typing import Series

import schemas  # noqa: F401 - the adjustment is made on import


class Names(pa.DataFrameModel):
    name: Series[str] = pa.Field(nullable=True)

    class Config:
        strict = True


def test_a_string_column_passes_with_one_answer():
    column = pd.Series(["Åström", "田中", None])
    string = pandas_engine.STRING()
    assert string.check(pandas_engine.Engine.dtype(column.dtype), column) is True
    # pandera's own answer: the same verdict, row by row
    assert list(string.check.__wrapped__(string, pandas_engine.Engine.dtype(column.dtype), column)) == [True] * 3
    assert len(Names.validate(pd.DataFrame({"name": column}))) == 3


def test_a_column_with_a_number_among_the_strings_still_fails_at_that_row():
    frame = pd.DataFrame({"name": pd.Series(["Ken", 7, "ぽん太"], dtype=object)})
    with pytest.raises(SchemaErrors) as caught:
        Names.validate(frame, lazy=True)
    cases = caught.value.failure_cases
    assert cases["column"].tolist() == ["name"]
    assert cases["failure_case"].tolist() == [7] and cases["index"].tolist() == [1]


def test_an_empty_column_keeps_pandera_answer():
    column = pd.Series([], dtype="str")
    string = pandas_engine.STRING()
    assert len(string.check(pandas_engine.Engine.dtype(column.dtype), column)) == 0
