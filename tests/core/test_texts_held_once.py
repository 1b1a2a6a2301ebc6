"""Texts held once per distinct value (`memory.texts_held_once`: a history's result rows repeat
their event's file, digest and run on every row) are the same texts to everything after them:
they pass their model's text type at validation, uncoerced, the model's checks still find what is
wrong in them, and the lake files they are written to equal those of the plain text columns."""
from __future__ import annotations

from datetime import date

import pandas as pd
import pandera.pandas as pa
import pyarrow as pa_arrow
import pyarrow.parquet as pq

from pipelines.core.lake import Lake, StagedRun
from pipelines.core.memory import is_held_once, texts_held_once
from pipelines.core.settings import StatePaths
from pipelines.core.validation import failure_cases
from schemas.common import DATE, INT, TEXT


class Row(pa.DataFrameModel):
    organisation: TEXT = pa.Field()
    event_date: DATE = pa.Field()
    source_file: TEXT = pa.Field()
    level: TEXT = pa.Field(isin=["brons", "silver"])
    place: INT = pa.Field(ge=1)
    note: TEXT = pa.Field(nullable=True)

    class Config:
        strict = True
        coerce = True
        unique = ["source_file", "place"]


def _frame(levels=("brons", "brons", "silver", "silver")):
    d = date
    return pd.DataFrame({
        "organisation": ["a-club", "a-club", "b-club", "a-club"],
        "event_date": [d(2024, 8, 1), d(2024, 8, 1), d(2024, 8, 2), d(2024, 9, 5)],
        "source_file": ["a-club/tisdag.csv", "a-club/tisdag.csv", "b-club/lördag.csv", "a-club/åttonde.csv"],
        "level": list(levels), "place": [1, 2, 1, 1], "note": ["", None, "x", ""],
    }).astype({"organisation": TEXT, "event_date": DATE, "source_file": TEXT, "level": TEXT, "place": INT, "note": TEXT})


def test_the_texts_are_the_same_held_once():
    plain = _frame()
    held = texts_held_once(plain, ["organisation", "source_file", "level"])
    assert all(is_held_once(held[c].dtype) for c in ["organisation", "source_file", "level"])
    assert not is_held_once(held["note"].dtype)
    # three distinct files, each text stored once
    assert held["source_file"].array._pa_array.chunk(0).dictionary.to_pylist() == [
        "a-club/tisdag.csv", "b-club/lördag.csv", "a-club/åttonde.csv"]
    pd.testing.assert_frame_equal(held.astype({c: TEXT for c in ["organisation", "source_file", "level"]}), plain)


def test_held_texts_pass_their_model_as_they_are_and_its_checks_still_run():
    held = texts_held_once(_frame(), ["organisation", "source_file", "level"])
    validated, cases = failure_cases(Row, held)
    assert cases.empty
    assert is_held_once(validated["source_file"].dtype)  # not spelt out again
    wrong = texts_held_once(_frame(levels=("brons", "guld", "silver", "silver")), ["organisation", "source_file", "level"])
    _, cases = failure_cases(Row, wrong)
    assert cases[["column", "failure_case"]].values.tolist() == [["level", "guld"]]
    # the grain: the same file and place twice
    twice = texts_held_once(_frame().assign(place=pd.Series([1, 1, 1, 1], dtype=INT)), ["source_file"])
    _, cases = failure_cases(Row, twice)
    assert set(cases["column"]) >= {"source_file", "place"}


def test_a_frame_with_held_texts_and_a_column_to_coerce_is_coerced_around_them():
    held = texts_held_once(_frame(), ["source_file"]).astype({"place": "int64"})  # numpy ints: to coerce
    validated, cases = failure_cases(Row, held)
    assert cases.empty
    assert validated["place"].dtype == INT and is_held_once(validated["source_file"].dtype)


def test_the_lake_files_of_held_texts_equal_those_of_plain_texts(tmp_path):
    written = {}
    for kind, frame in [("plain", _frame()), ("held", texts_held_once(_frame(), ["organisation", "source_file", "level"]))]:
        staged = StagedRun(Lake.open(StatePaths(tmp_path / kind)), "run-1")
        rels = staged.write("rows", Row, frame, month_column="event_date")
        written[kind] = {rel: pq.read_table(staged.root / rel) for rel in rels}
    assert list(written["held"]) == list(written["plain"]) == [
        "rows/org=a-club/month=2024-08/part-run-1.parquet", "rows/org=a-club/month=2024-09/part-run-1.parquet",
        "rows/org=b-club/month=2024-08/part-run-1.parquet"]
    for rel, table in written["held"].items():
        assert table.schema.field("source_file").type == pa_arrow.string()
        assert table.equals(written["plain"][rel], check_metadata=True)
