"""Promotions from the ledger (se_levels, se_level_changes, se_promotions, se_level_reversals).

The SQL views run over hand-made ledger lines in an in-memory DuckDB; the levels expected are the
seed's table (hand sums in the comments), and the SQL's verdict on every threshold case of
test_se_classes is held to the Python function's (two independent implementations of one rule).
One end-to-end test runs the nightly job on a 100-pair bronze event (A2 row 100: the winners get
200 bp = 2 mp, Klöver).
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import duckdb
import pandas as pd
import pytest

from pipelines.core.sql import connect, sql_text
from pipelines.sweden.classes import level_of, levels, rates, rates_table
from pipelines.sweden.rules import load_rules
from se_helpers import ORG, post_event, register
from test_se_classes import THRESHOLDS

VIEWS = ["warehouse/se_levels", "warehouse/se_level_changes", "warehouse/se_promotions", "warehouse/se_level_reversals"]


def warehouse(lines: list[tuple]) -> duckdb.DuckDBPyConnection:
    """lines: (member, run_id, posted_on, denomination, points, entry_type)."""
    rules = load_rules()
    con = connect()
    awards = pd.DataFrame(lines, columns=["player_id", "run_id", "posted_on", "denomination", "points", "entry_type"])
    awards = awards.assign(organisation=ORG, system="sweden", points=awards["points"].astype(str),
                           posted_on=pd.to_datetime(awards["posted_on"]).dt.date)
    con.register("_awards", awards)
    con.execute("create table awards as select * replace (cast(points as decimal(12, 2)) as points) from _awards")
    tables = {
        "se_rule_versions": rules.tables["rule_versions"][["rule_version", "effective_from"]].astype(str),
        "se_master_classes": rules.tables["master_classes"].drop(columns=["seed"]).astype(str),
        "se_class_rates": rates_table(rules),
        "se_members": pd.DataFrame({"member": ["1", "2", "3"], "name": ["Åsa <Ö>", "Bo", "Cia"],
                                    "club": ["10001", "10002", "10001"], "organisation": ORG}),
        "se_clubs": pd.DataFrame({"organisation": ORG, "club": ["10001", "10002"], "name": ["BK Lavec", "Sundsvalls BK"]}),
    }
    for name, frame in tables.items():
        con.register(f"_{name}", frame.reset_index(drop=True))
        con.execute(f"create table {name} as select * from _{name}")
    for view in VIEWS:
        con.execute(f"create view {view.split('/')[-1]} as {sql_text(view)}")
    return con


def q(con, sql):
    return con.sql(sql).to_arrow_table().to_pandas(types_mapper=pd.ArrowDtype)


def test_sql_agrees_with_the_seed_on_every_threshold():
    # each threshold case of test_se_classes as one member's holdings after one run; the SQL's level
    # on each track must be the Python function's, and the threshold level must be met at/not below
    table, r = levels(load_rules()), rates(load_rules())
    lines, expected = [], {}
    for i, (level, at, below) in enumerate(THRESHOLDS):
        for kind, (bp, sp, gp) in (("at", at), ("below", below)):
            member = f"{kind}-{i}"
            for denomination, points in (("bp", bp), ("sp", sp), ("gp", gp)):
                lines.append((member, "r1", "2026-01-05", denomination, points, "award"))
            expected[member] = level_of(bp, sp, gp, table, r)
    got = q(warehouse(lines), "select member, track, level from se_levels")
    for row in got.itertuples():
        assert (row.level if isinstance(row.level, str) else None) == expected[row.member][row.track], row
    assert len(got) == 2 * len(expected)
    # and the Python function itself puts each 'at' case at or above, each 'below' case below, the level
    ranks = dict(zip(table["level"], table["rank"]))
    tracks = dict(zip(table["level"], table["track"]))
    for i, (level, _, _) in enumerate(THRESHOLDS):
        at = got[(got["member"] == f"at-{i}") & (got["track"] == tracks[level])]["level"].iloc[0]
        assert ranks[at] >= ranks[level]


def test_a_promotion_is_found_on_the_right_night_and_a_reversal_is_reported():
    lines = [
        # member 1: 150 bp on 1 Jan (1.5 mp, nothing), +50 bp on 2 Jan (2 mp: Klöver),
        # +1,800 bp on 3 Jan (2,000 bp: Ruter by the worked example; 1,500 bp: Klöver 3-star),
        # then on 4 Jan a corrected list takes 100 bp back (1,900 bp: 19 - 5 = 14 mp after 50 sp, Klöver again; Klöver 3-star kept),
        # and on 5 Jan 100 bp more: Ruter regained (no second pin)
        ("1", "20260101T0000-a", "2026-01-01", "bp", 150, "award"),
        ("1", "20260102T0000-a", "2026-01-02", "bp", 50, "award"),
        ("1", "20260103T0000-a", "2026-01-03", "bp", 1800, "award"),
        ("1", "20260104T0000-a", "2026-01-04", "bp", -1800, "reversal"),
        ("1", "20260104T0000-a", "2026-01-04", "bp", 1700, "award"),
        ("1", "20260105T0000-a", "2026-01-05", "bp", 100, "award"),
        # member 2: 20 gp in one night: Klöver and Ruter at once, the pin is Ruter (15 mp, 2 gp)
        ("2", "20260102T0000-a", "2026-01-02", "gp", 20, "award"),
    ]
    con = warehouse(lines)
    p = q(con, "select member, name, club, level, reached_on, run_id, first_time from se_promotions order by member, run_id, level")
    got = [(m, lv, str(d), ft) for m, lv, d, ft in zip(p["member"], p["level"], p["reached_on"], p["first_time"])]
    assert got == [
        ("1", "klöver", "2026-01-02", True),  # 200 bp = 2 mp
        ("1", "klöver-3", "2026-01-03", True),  # 2,000 bp: 500, 1,000, 1,500 met, 2,500 not
        ("1", "ruter", "2026-01-03", True),  # the worked example: 2,000 bp
        ("1", "ruter", "2026-01-05", False),  # regained: no second pin
        ("2", "ruter", "2026-01-02", True),  # 20 gp: 20 mp, 2 gp; Hjärter needs 50 mp
    ]
    assert p["name"].iloc[0] == "Åsa <Ö>" and p["club"].iloc[0] == "10001"
    rev = q(con, "select member, level_lost, level_now, changed_on, run_id from se_level_reversals")
    assert [(m, a, b, str(d)) for m, a, b, d in zip(rev["member"], rev["level_lost"], rev["level_now"], rev["changed_on"])] == [
        ("1", "ruter", "klöver", "2026-01-04")]
    assert rev["run_id"].iloc[0] == "20260104T0000-a"


def test_nightly_run_posts_a_klover_promotion(office):
    register(office)
    # A2 row 100: the winners get 200 bp each = 2 mp, Klöver; the 2nd (A2 row 100 place 2) does not
    post_event(office, "bk-lavec", "2026-11-20-stor", 100, nivå="brons", brickor="24", datum="2026-11-20")
    office.run(date(2026, 11, 21))
    p = office.query("select member, level, reached_on, first_time from se_promotions where track = 'klass' order by member")
    assert list(p["member"]) == ["200000", "200001"]
    assert set(p["level"]) == {"klöver"} and {str(d) for d in p["reached_on"]} == {"2026-11-21"}
    h = office.query("select bp from se_holdings where member = '200000'")
    assert h["bp"][0] == Decimal("200.00")


def test_explain_shows_class_next_level_ranking_and_promotions(office):
    import duckdb as _duckdb

    from pipelines.sweden.publish import explain_player

    register(office)
    # A2 row 100: the winners 200 bp = 2 mp: Klöver; Ruter next: 15 mp with 50 sp or 2 gp (*: 20 bp = 1 sp)
    post_event(office, "bk-lavec", "2026-11-20-stor", 100, nivå="brons", brickor="24", datum="2026-11-20")
    office.run(date(2026, 11, 21))
    con = _duckdb.connect(str(office.state / "warehouse.duckdb"), read_only=True)
    try:
        lines = explain_player(con, "200000")
    finally:
        con.close()
    assert ("Sverige 200000 mästarklass: Klöver-/Klubbmästare; nästa: Ruter-/Kretsmästare: minst 15 mp, "
            "varav 50 sp eller 2 gp (20 bp räknas som 1 sp); innehav 200.00 bp, 0.00 sp, 0.00 gp") in lines
    assert "Sverige 200000 befordran 2026-11-21: Klöver-/Klubbmästare" in lines
    assert not any("ranking per" in x for x in lines)  # bronze gives no ranking points
