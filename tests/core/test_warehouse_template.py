"""A warehouse built afresh starts from the empty warehouse of its systems, made once per process
(pipelines/core/warehouse.py, `_seed_row_store`): it must be the warehouse the same night makes
without it, relation for relation, type for type, comment for comment and row for row, and
carry none of the office it was first made for."""
from __future__ import annotations

from datetime import date

import duckdb
import pandas as pd

from office import Office  # tests/office.py (on sys.path)
from pipelines.core import warehouse
from pipelines.core.dictionary import gaps
from pipelines.core.settings import StatePaths

# what differs between two runs of the same inbox by construction: the run, ids made from it, and
# when the test wrote the inbox files
VOLATILE = {"run_id", "award_id", "reverses_award_id", "started_at", "posted_on", "mtime_ns"}


def game(day: int, first: str) -> str:
    return f"2026-11-{day:02d}\n・1位{first} 40000\n・2位B 30000\n・3位C 20000\n・4位D 10000\n"


def _catalog(state) -> dict:
    """Every relation of the analysts' schema with its kind and comment, every column with its type
    and comment, and every relation's rows (run-dependent columns left out), ordered."""
    con = duckdb.connect(str(state / "warehouse.duckdb"), read_only=True)
    try:
        relations = con.execute(
            "select view_name, 'view', comment from duckdb_views() where not internal and schema_name = 'main' "
            "union all select table_name, 'table', comment from duckdb_tables() where schema_name = 'main' "
            "order by 1").fetchall()
        columns = con.execute("select table_name, column_name, data_type, comment from duckdb_columns() "
                              "where not internal and schema_name = 'main' order by 1, column_index").fetchall()
        rows = {}
        for name, _, _ in relations:
            names = [c for (t, c, _, _) in columns if t == name and c not in VOLATILE]
            listed = ", ".join(f'"{c}"' for c in names)
            rows[name] = con.execute(f'select {listed} from main."{name}" order by all').fetchall()
        # every relation and column described (the other systems' relations are not in this one)
        assert [g for g in gaps(con) if "but not in the warehouse" not in g] == []
    finally:
        con.close()
    return {"relations": relations, "columns": columns, "rows": rows}


def test_a_warehouse_from_another_offices_template_is_the_one_made_without_it(tmp_path, monkeypatch):
    monkeypatch.setattr(warehouse, "_TEMPLATES", {})
    for name in ("first", "second", "without", "third"):
        (tmp_path / name).mkdir()
    first = Office(tmp_path / "first")
    first.post("sofu-mahjong/a.txt", game(3, "A"))
    assert first.run().exit_code == 0
    assert len(warehouse._TEMPLATES) == 1  # made for the first office's warehouse

    second = Office(tmp_path / "second")
    second.post("sofu-mahjong/b.txt", game(4, "E"))
    second.post("sofu-mahjong/c.txt", game(5, "A"))
    assert second.run(as_of=date(2026, 12, 3)).exit_code == 0
    assert len(warehouse._TEMPLATES) == 1  # the same systems and tables: the same template, reused

    # the independent warehouse: the same inbox and night, every view made and described afresh
    without = Office(tmp_path / "without")
    without.post("sofu-mahjong/b.txt", game(4, "E"))
    without.post("sofu-mahjong/c.txt", game(5, "A"))
    with monkeypatch.context() as m:
        m.setattr(warehouse, "_seed_row_store", lambda *args, **kwargs: None)
        assert without.run(as_of=date(2026, 12, 3)).exit_code == 0

    got, expected = _catalog(second.state), _catalog(without.state)
    assert got["relations"] == expected["relations"]
    assert got["columns"] == expected["columns"]
    assert got["rows"] == expected["rows"]
    assert len(got["rows"]["balances"]) == 5  # A, B, C, D and E: the second office's players only
    # the row store holds no runs (the template's were emptied), and its rule tables are the
    # second office's own: the same rows, or the template would not have been reused
    store = duckdb.connect(str(StatePaths(second.state).warehouse_rows), read_only=True)
    try:
        assert store.execute("select count(*) from main.runs").fetchall() == [(0,)]
        assert (store.execute("select * from main.mahjong_rule_versions order by all").fetchall()
                == got["rows"]["mahjong_rule_versions"])
    finally:
        store.close()

    # an office whose rule table differs gets a template of its own, and its own rows
    third = Office(tmp_path / "third")
    third.post("sofu-mahjong/b.txt", game(4, "E"))
    versions = third.data / "rules" / "mahjong" / "rule_versions.csv"
    text = versions.read_text(encoding="utf-8")
    assert text.count("2026-10-01") == 1  # season 2 begins a day later: a rule table of its own
    versions.write_text(text.replace("2026-10-01", "2026-10-02"), encoding="utf-8")
    assert third.run(as_of=date(2026, 12, 3)).exit_code == 0
    assert len(warehouse._TEMPLATES) == 2
    con = duckdb.connect(str(third.state / "warehouse.duckdb"), read_only=True)
    try:
        starts = {str(d) for (d,) in con.execute("select effective_from from mahjong_rule_versions").fetchall()}
    finally:
        con.close()
    assert starts == {"2000-01-01", "2026-10-02"}


def test_a_column_typed_otherwise_or_other_rows_make_another_template():
    """The template keeps the data tables' rows, so its key holds them: a template is reused only
    by an office whose rule tables are the same, row for row and type for type."""
    dates = pd.DataFrame({"as_of": [date(2026, 12, 2)], "n": [1]})
    other_dates = pd.DataFrame({"as_of": [date(2025, 1, 1)], "n": [7]})
    texts = pd.DataFrame({"as_of": ["2026-12-02"], "n": [1]})
    nothing = pd.DataFrame({"as_of": [None], "n": [1]})
    key = lambda frame: warehouse._template_key({}, {"t": frame}, [], dates.iloc[0:0])  # noqa: E731
    assert key(dates) == key(dates.copy())  # the same rows and types
    assert key(dates) != key(other_dates)  # other values, the same types
    assert len({key(dates), key(texts), key(nothing), key(dates.astype({"n": "float64"}))}) == 4
    # the runs table's rows are the night's own, never the template's: only its types count
    runs_key = lambda runs: warehouse._template_key({}, {"t": dates}, [], runs)  # noqa: E731
    assert runs_key(dates) == runs_key(other_dates)
