"""The analysts' data dictionary (issue 12): every relation and column of the warehouse carries a
comment in the database, `pointledger docs` writes a browsable dictionary with the warehouse's own
types, and the README's table of relations is the dictionary's (one source, no drift)."""
from __future__ import annotations

import tomllib
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from pipelines.cli import main
from pipelines.core import dictionary as D

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def state(sample_run):
    """The whole sample inbox posted once: every system's relations exist."""
    return sample_run.state


def _source() -> dict:
    with open(ROOT / "sql" / "warehouse" / "dictionary.toml", "rb") as f:
        return tomllib.load(f)


def test_every_relation_and_column_an_analyst_queries_has_a_comment_in_the_database(state):
    con = duckdb.connect(str(state / "warehouse.duckdb"), read_only=True)
    try:
        assert D.gaps(con) == []
        # the lake is out of the analysts' way: nothing internal in the schema they query
        assert con.sql("select count(*) from duckdb_views() where schema_name = 'main' and view_name like 'lake%'").fetchall() == [(0,)]
        assert con.sql("select count(*) from duckdb_views() where schema_name = 'internal'").fetchall()[0][0] > 10
        cols = con.sql("select table_name, column_name, comment from duckdb_columns() where schema_name = 'main' "
                       "and table_name not like 'lake%' and not internal").fetchall()
        assert cols and [c for c in cols if not c[2]] == []
        source = _source()
        views = dict(con.sql("select view_name, comment from duckdb_views() where schema_name = 'main' and not internal "
                             "and view_name not like 'lake%'").fetchall())
        tables = dict(con.sql("select table_name, comment from duckdb_tables() where schema_name = 'main'").fetchall())
        assert views["awards"] == source["relation"]["awards"]["grain"]
        assert tables["runs"] == source["relation"]["runs"]["grain"]
        comments = {(t, c): text for t, c, text in cols}
        # a relation's own description wins over the common one; the common one fills the rest
        assert comments[("awards", "points")] == source["relation"]["awards"]["columns"]["points"]
        assert comments[("se_holdings", "organisation")] == source["common"]["organisation"]
    finally:
        con.close()


def test_a_relation_or_column_the_dictionary_does_not_describe_is_a_gap(state):
    source = _source()
    source["relation"].pop("runs")
    del source["relation"]["awards"]["columns"]["basis"]
    source["relation"]["awards"]["columns"]["no_such_column"] = "x"
    con = duckdb.connect(str(state / "warehouse.duckdb"), read_only=True)
    try:
        found = D.gaps(con, source)
    finally:
        con.close()
    assert "relation runs: not in dictionary.toml" in found
    assert "column awards.basis: no description" in found
    assert "column awards.no_such_column: described but not in the warehouse" in found


def test_comments_survive_the_next_night_updating_the_warehouse_in_place(office):
    office.post("sofu-mahjong/a.txt", "2026-11-03\n・1位A 40000\n・2位B 30000\n・3位C 20000\n・4位D 10000\n")
    office.run()
    office.post("sofu-mahjong/b.txt", "2026-11-04\n・1位A 40000\n・2位B 30000\n・3位C 20000\n・4位D 10000\n")
    office.run()
    assert office.query("select comment from duckdb_views() where view_name = 'mahjong_leaderboard'")["comment"][0] \
        == _source()["relation"]["mahjong_leaderboard"]["grain"]
    assert office.query("select comment from duckdb_columns() where schema_name = 'main' and table_name = 'mahjong_leaderboard' "
                        "and column_name = 'average'")["comment"][0] == \
        _source()["relation"]["mahjong_leaderboard"]["columns"]["average"]


def test_pointledger_docs_writes_the_dictionary_with_the_warehouse_types(state, tmp_path):
    out = tmp_path / "dict"
    result = CliRunner().invoke(main, ["docs", "--state", str(state), "--out", str(out)])
    assert result.exit_code == 0, result.output
    html = (out / "index.html").read_text(encoding="utf-8")
    md = (out / "dictionary.md").read_text(encoding="utf-8")
    for relation in _source()["relation"]:
        assert f'<section id="{relation}"' in html and f"## `{relation}`" in md
    # types as the database holds them (AwardLine.points is DECIMAL(12,2); posted_on a DATE)
    assert "| `points` | DECIMAL(12,2) |" in md and "| `posted_on` | DATE |" in md
    # the runs table too: dates as DATE, timestamps as TIMESTAMP
    assert "| `as_of` | DATE | The run date. |" in md and "| `started_at` | TIMESTAMP | When the run started (UTC). |" in md
    # the example query is escaped like any text of the page
    assert "where organisation = &#39;sofu-mahjong&#39;" in html


def test_every_date_column_of_the_analysts_relations_is_a_date(state):
    """Issue 12: dates as DATE. A column named as a date (`date`, `*_date`, `effective_from`,
    `as_of`, `posted_on`, `starts_on`/`ends_on`) is a DATE in every relation of the main schema;
    the Swedish rule versions, ranking parameters and conversion fee limits were VARCHAR. A club's
    number of members is a whole number, `member_count` (it was `members`, text, a name that is a
    list of member numbers in se_results)."""
    import duckdb

    con = duckdb.connect(str(state / "warehouse.duckdb"), read_only=True)
    try:
        columns = con.execute("select table_name, column_name, data_type from duckdb_columns() where schema_name = 'main'"
                              ).fetchall()
    finally:
        con.close()
    dated = [(t, c, ty) for t, c, ty in columns
             if c in ("date", "effective_from", "as_of", "posted_on", "starts_on", "ends_on") or c.endswith("_date")]
    assert {t for t, _, _ in dated} >= {"se_rule_versions", "se_ranking_parameters", "se_conversion_fee_limits", "awards"}
    assert [(t, c, ty) for t, c, ty in dated if ty != "DATE"] == []
    assert ("se_clubs", "member_count", "BIGINT") in columns  # `members` is a list in se_results


def test_pointledger_docs_without_a_warehouse_says_so(tmp_path):
    result = CliRunner().invoke(main, ["docs", "--state", str(tmp_path / "nothing")])
    assert result.exit_code == 1 and "run `pointledger run` first" in result.output


def test_the_readme_table_is_the_dictionary():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start, end = text.index(D.README_START), text.index(D.README_END) + len(D.README_END)
    assert text[start:end] == D.readme_table(_source())
    for relation in _source()["relation"]:
        assert f"| `{relation}`" in text[start:end]
