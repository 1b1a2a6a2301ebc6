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


# failure_cases skips pandera's coercion when every column has its model's type already: the
# checks, and what they report, are pandera's own either way

def _award_lines(changes: dict[int, dict] | None = None) -> pd.DataFrame:
    import pyarrow as pa_arrow
    from decimal import Decimal
    from datetime import date

    from schemas.common import arrow_schema
    from schemas.ledger import AwardLine

    row = {"organisation": "o", "system": "mahjong", "event_id": "e", "event_date": date(2026, 11, 3), "player_id": "Ken",
           "denomination": "league", "points": Decimal("7.00"), "rule_version": "r", "basis": "1st 7 = 7", "season": "s",
           "source_file": "f", "source_sha256": "a" * 64, "location": "line 4", "award_id": "a1", "run_id": "r1",
           "entry_type": "award", "reverses_award_id": None, "posted_on": date(2026, 11, 4)}
    rows = [row, {**row, "player_id": "B", "award_id": "a2"}, {**row, "player_id": "C", "award_id": "a3"}]
    for i, change in (changes or {}).items():
        rows[i] = {**rows[i], **change}
    return pa_arrow.Table.from_pylist(rows, schema=arrow_schema(AwardLine)).to_pandas(types_mapper=pd.ArrowDtype)


def test_typed_frame_reports_what_pandera_reports():
    from pipelines.core.validation import failure_cases
    from schemas.ledger import AwardLine

    frame = _award_lines({1: {"entry_type": "bonus"}, 2: {"award_id": "a1", "basis": ""}})
    from pipelines.core.validation import _schema_for

    assert _schema_for(AwardLine, frame).coerce is False  # the typed frame skips the coercion
    _, cases = failure_cases(AwardLine, frame.copy())
    with pytest.raises(SchemaErrors) as caught:
        AwardLine.validate(frame.copy(), lazy=True)  # pandera's own, with its coercion
    expected = caught.value.failure_cases[["index", "column", "check", "failure_case"]]
    key = ["column", "check", "index"]
    assert (cases.astype(str).sort_values(key).reset_index(drop=True)
            .equals(expected.astype(str).sort_values(key).reset_index(drop=True)))
    assert set(cases["check"]) >= {"isin(['award', 'reversal'])", "str_length(1, None)"}


def test_a_frame_with_one_untyped_column_reports_what_pandera_reports():
    """One column to coerce (points held as text, one of them not a number) beside typed columns
    with failures of their own: the same failure cases as pandera's own validation, coercion
    failure included."""
    from pipelines.core.validation import _schema_for, failure_cases
    from schemas.ledger import AwardLine

    frame = _award_lines({1: {"entry_type": "bonus"}}).astype({"points": object})
    frame.loc[2, "points"] = "seven"
    assert [name for name, column in _schema_for(AwardLine, frame).columns.items() if column.coerce] == ["points"]
    _, cases = failure_cases(AwardLine, frame.copy())
    with pytest.raises(SchemaErrors) as caught:
        AwardLine.validate(frame.copy(), lazy=True)
    expected = caught.value.failure_cases[["index", "column", "check", "failure_case"]]
    key = ["column", "check", "index"]
    assert (cases.astype(str).sort_values(key).reset_index(drop=True)
            .equals(expected.astype(str).sort_values(key).reset_index(drop=True)))
    assert set(cases["column"]) == {"entry_type", "points"}


def test_untyped_frame_is_still_coerced():
    from pipelines.core.validation import failure_cases
    from schemas.common import arrow_schema
    from schemas.ledger import AwardLine

    frame = _award_lines().astype({"player_id": object, "points": object})
    from pipelines.core.validation import _schema_for

    schema = _schema_for(AwardLine, frame)
    # only the two untyped columns are coerced; the typed ones are checked as they are
    assert schema.coerce is False
    assert {name for name, column in schema.columns.items() if column.coerce} == {"player_id", "points"}
    validated, cases = failure_cases(AwardLine, frame)
    assert len(cases) == 0
    assert validated["player_id"].dtype == pd.ArrowDtype(arrow_schema(AwardLine).field("player_id").type)
    assert validated["points"].dtype == pd.ArrowDtype(arrow_schema(AwardLine).field("points").type)


class VictoryPoints(pa.DataFrameModel):
    team: Series[str]
    vp: Series[pandas_engine.Decimal(6, 2)]

    class Config:
        strict = True
        coerce = True


def test_a_decimal_column_held_in_objects_is_coerced_as_pandera_does():
    """An object column looks like the type of pandera's Decimal (held in Python objects), but its
    coercion works on the values: 12.345 is quantized to 12.34 (half to even, the decimal
    context's default) and the float 7.5 becomes Decimal('7.50'). Skipping it would have turned
    both into failures."""
    from decimal import Decimal

    from pipelines.core.validation import _schema_for, failure_cases

    frame = pd.DataFrame({"team": pd.Series(["A", "B"], dtype="str"),
                          "vp": pd.Series([Decimal("12.345"), 7.5], dtype=object)})
    assert _schema_for(VictoryPoints, frame).columns["vp"].coerce is True
    validated, cases = failure_cases(VictoryPoints, frame.copy())
    assert len(cases) == 0
    assert validated["vp"].tolist() == [Decimal("12.34"), Decimal("7.50")]
    assert validated["vp"].tolist() == VictoryPoints.validate(frame.copy(), lazy=True)["vp"].tolist()


def test_geopandas_is_marked_absent_and_pandera_still_answers_no_geometry():
    import sys

    # geopandas is not among the dependencies: schemas/ marks it absent once, so pandera's
    # question for every column ("a geometry type?") fails its import at once
    assert "geopandas" in sys.modules and sys.modules["geopandas"] is None
    with pytest.raises(ImportError):
        import geopandas  # noqa: F401
    assert pandas_engine.is_geopandas_dtype(pd.Int64Dtype()) is False
    assert len(Names.validate(pd.DataFrame({"name": pd.Series(["Åström"])}))) == 1
