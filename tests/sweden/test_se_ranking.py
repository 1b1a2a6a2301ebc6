"""The national ranking (seed section 7): ranking points per result, and the list as of each night.

Expected values are the seed's own example (22.5 gp -> 338 rp) and hand computations from its rates
(1 sp = 1 rp, 1 gp = 15 rp; exceptions), shown in the comments. The list's window and count are
tested on hand-made result rows through the warehouse SQL (se_ranking_results, se_ranking); one
nightly run scores a gold event and checks the ranking uses the unrounded award.
"""
from __future__ import annotations

import csv
import io
from datetime import date
from decimal import Decimal
from fractions import Fraction

import pandas as pd
import pytest

from pipelines.core.sql import connect, sql_text
from pipelines.sweden.ranking import event_kind, parameters_table, ranking_points
from pipelines.sweden.rules import load_rules
from schemas.common import empty_frame
from schemas.sweden_series import SeSeriesRanking
from se_helpers import ORG, post_event, register


@pytest.fixture(scope="module")
def rules():
    return load_rules()


def rp(rules, kind, **exact):
    return ranking_points({d: Fraction(v) for d, v in exact.items()}, kind, rules, "se-2009")[0]


def test_the_seeds_example_22_5_gp_gives_338(rules):
    # "om man får 22,5 gp som ger 23 gp, räknas ranking på 22,5 vilket ger 338 rp": 22.5 × 15 = 337.5 → 338
    assert rp(rules, "guld", gp="45/2") == 338
    assert rp(rules, "guld", gp=23) == 345  # not on the rounded 23 gp (23 × 15)


def test_rates_and_every_exception(rules):
    assert rp(rules, "silver", sp=12) == 12  # 1 sp = 1 rp
    assert rp(rules, "guld", sp=7) == 11  # sp in a gold event: 7 × 1.5 = 10.5 → 11
    assert rp(rules, "förhöjt guld", gp=10) == 150  # 10 × 15
    assert rp(rules, "sm-parfinal", gp="45/2") == 203  # SM pairs final: 22.5 × 9 = 202.5 → 203
    assert rp(rules, "allsvenskan-div3", gp="5/2") == 25  # division III: 2.5 gp came from 25 sp: 25 rp
    # division III is a silver series (Tabell E7, "Silver, Lagserie": "Rankingpoäng baseras dock på
    # det inspelade antalet silverpoäng"), not a gold event: 1 rp a silver point, not 1.5
    assert rp(rules, "allsvenskan-div3", sp=20) == 20
    assert rp(rules, "april-oktober-silver", sp=40) == 0
    assert rp(rules, "simultan", sp=40) == 0
    assert rp(rules, "utland", gp=5) == 0
    assert rp(rules, "bonus", gp=2) == 0
    assert rp(rules, "brons", sp=3) == 0  # not a ranking event at all
    assert ranking_points({"gp": Fraction(9, 2)}, "guld", rules, "se-2009") == (68, "guld: 4.5 gp × 15 = 67.5 → 68 rp")


def test_event_kind():
    assert event_kind({"level": "guld", "ranking": ""}) == "guld"
    assert event_kind({"level": "guld", "ranking": "sm-parfinal"}) == "sm-parfinal"
    assert event_kind({"level": "silver", "simultan": True}) == "simultan"
    assert event_kind({"level": "silver", "gemensam_lista": True}) == "simultan"


def ranking_warehouse(results: list[tuple], runs: list[tuple], unpaid: tuple = ()):
    """results: (member, event_id, event_date, rp); runs: (run_id, as_of)."""
    rules = load_rules()
    con = connect()
    r = pd.DataFrame(results, columns=["members", "event_id", "event_date", "rp"])
    r = r.assign(organisation=ORG, event_name=r["event_id"], level="silver", club="10001", competition="", place_label="1", entrant="1", rp_players="",
                 sp=r["rp"], gp=0, rp_basis="", event_date=pd.to_datetime(r["event_date"]).dt.date)
    con.register("_r", r)
    con.execute("create table se_result_rows as select * replace (cast(rp as decimal(12, 2)) as rp, [members] as members) from _r")
    # the ledger: each member's sp from each result (a member marked "-" in `unpaid` got nothing)
    paid = r[~r["members"].isin(unpaid)]
    con.register("_a", pd.DataFrame({"organisation": ORG, "system": "sweden", "event_id": paid["event_id"],
                                     "player_id": paid["members"], "denomination": "sp", "points": paid["rp"].astype(str)}))
    con.execute("create table awards as select * replace (cast(points as decimal(12, 2)) as points) from _a")
    con.register("_runs", pd.DataFrame(runs, columns=["run_id", "as_of"]))
    con.execute("create table runs as select * from _runs")
    members = sorted({m for m, *_ in results})
    tables = {"se_members": pd.DataFrame({"member": members, "name": [f"Spelare {m}" for m in members], "club": "10001",
                                          "organisation": ORG}),
              "se_clubs": pd.DataFrame({"organisation": [ORG], "club": ["10001"], "name": ["BK Lavec"]}),
              "se_ranking_parameters": parameters_table(rules)}
    for name, frame in tables.items():
        con.register(f"_{name}", frame)
        con.execute(f"create table {name} as select * from _{name}")
    # no team series here: an empty lake table and no sources
    con.execute("create schema internal")
    con.register("_series", empty_frame(SeSeriesRanking))
    con.execute("create table internal.lake_se_series_ranking as select * from _series")
    con.execute("create table sources (organisation varchar, source_file varchar, sha256 varchar, run_id varchar, is_current boolean)")
    for view in ("se_ranking_results", "se_ranking"):
        con.execute(f"create view {view} as {sql_text('warehouse/' + view)}")
    return con


def q(con, sql):
    return con.sql(sql).to_arrow_table().to_pandas(types_mapper=pd.ArrowDtype)


def test_window_best_18_ties_and_expiry_without_new_input():
    results = (
        # A: 19 results of 100 .. 82 rp within the window: the best 18 count, 100 + ... + 83 = 18 × 183 / 2 = 1647
        [("A", f"a{i}", "2026-06-01", 100 - i) for i in range(19)]
        # B: one result exactly 24 months before the as-of date (2024-12-02 as of 2026-12-02) counts,
        # one a day older does not: 1647 rp = A's total, a tie
        + [("B", "b-old", "2024-12-02", 1647), ("B", "b-older", "2024-12-01", 500)]
        # C: a result after the as-of date is not yet in the list
        + [("C", "c1", "2026-11-30", 10), ("C", "c-late", "2026-12-05", 900)]
    )
    con = ranking_warehouse(results, [("20261202T000000Z-aaaa", "2026-12-02")])
    ranking = q(con, "select * from se_ranking order by rank, member")
    assert list(zip(ranking["rank"], ranking["member"], ranking["ranking_points"])) == [
        (1, "A", Decimal("1647.00")), (1, "B", Decimal("1647.00")), (3, "C", Decimal("10.00"))]
    assert list(ranking["results_counted"]) == [18, 1, 1]
    assert str(ranking["oldest_counted"][1]) == "2024-12-02" and str(ranking["as_of"][0]) == "2026-12-02"
    detail = q(con, "select * from se_ranking_results where member = 'A' and not counted")
    assert list(detail["rp"]) == [Decimal("82.00")] and detail["not_counted_reason"][0] == "utanför de 18 bästa"
    older = q(con, "select not_counted_reason from se_ranking_results where event_id = 'b-older'")
    assert older["not_counted_reason"][0] == "äldre än fönstret"

    # a reserve who played too little: on the list, but the ledger gave nothing: no ranking points
    con2 = ranking_warehouse(results + [("D", "a0", "2026-06-01", 100)], [("20261202T000000Z-aaaa", "2026-12-02")], unpaid=("D",))
    assert "D" not in set(q(con2, "select member from se_ranking")["member"])

    # the next night, nothing new: B's result is now 24 months and a day old and drops out
    con.execute("insert into runs values ('20261203T000000Z-bbbb', '2026-12-03')")
    ranking = q(con, "select * from se_ranking order by rank, member")
    assert list(zip(ranking["rank"], ranking["member"])) == [(1, "A"), (2, "C")]


def test_nightly_run_ranks_on_the_unrounded_gold(office):
    # p. 16: 52 pairs, gold: the winners' 52 sp become ⌈5.2⌉ = 6 gp; their ranking points are on
    # 5.2 gp: 5.2 × 15 = 78 (not 6 × 15 = 90). The 4th pair's 22 sp (D row 52) in a gold event: 22 × 1.5 = 33.
    register(office)
    post_event(office, "malmo-bk", "guld", 52, nivå="guld", brickor="60", sanktion="FSB-G-1", datum="2026-11-01")
    office.run(date(2026, 11, 2))
    r = office.query("select place, gp, sp, rp, rp_basis from se_results order by place")
    assert r["gp"][0] == Decimal("6.00") and r["rp"][0] == Decimal("78.00")
    assert r["rp_basis"][0] == "guld: 5.2 gp × 15 = 78 rp"
    assert r["sp"][3] == Decimal("22.00") and r["rp"][3] == Decimal("33.00")
    ranking = office.query("select * from se_ranking order by rank, member")
    assert list(ranking["member"][:2]) == ["200000", "200001"] and list(ranking["rank"][:2]) == [1, 1]
    assert ranking["ranking_points"][0] == Decimal("78.00") and str(ranking["as_of"][0]) == "2026-11-02"
    _the_nights_tables_hold_the_views_rows(office.state / "warehouse.duckdb", ORG)


def test_an_unknown_ranking_kind_is_refused(office):
    register(office)
    post_event(office, "malmo-bk", "guld", 52, nivå="guld", brickor="60", sanktion="FSB-G-1", datum="2026-11-01",
               ranking="em-final")
    office.run(date(2026, 11, 2))
    q = office.query("select reason from quarantine")
    assert any("ranking: 'em-final' is not a kind of" in x for x in q["reason"])


def test_a_tie_shares_the_unrounded_gold(office):
    # 52 pairs, gold, the first two tied: they share places 1 and 2 of D row 52 (52 and 35 sp, seed p. 11):
    # gold ⌈(6 + 4) / 2⌉ = 5 gp each; ranking on (5.2 + 3.5) / 2 = 4.35 gp: 4.35 × 15 = 65.25 → 66 rp
    register(office)
    places = ["1", "1"] + [str(i + 1) for i in range(2, 52)]
    post_event(office, "malmo-bk", "guld", 52, places=places, nivå="guld", brickor="60", sanktion="FSB-G-1", datum="2026-11-01")
    office.run(date(2026, 11, 2))
    r = office.query("select place_label, gp, rp from se_results order by place, entrant")
    assert list(r["place_label"][:2]) == ["1=", "1="] and list(r["gp"][:2]) == [Decimal("5.00")] * 2
    assert list(r["rp"][:2]) == [Decimal("66.00")] * 2


def test_ranking_page_escaped_stamped_with_results_one_click_away():
    from pipelines.sweden.ranking_page import render_ranking

    ranking = pd.DataFrame({"rank": [1, 1, 3], "member": ["1", "2", "3"], "name": ["<b>Åsa</b>", "=Bo", "Cia"],
                            "club": ["10001", "10002", "10001"], "club_name": ["BK <Lavec>", "Sundsvalls BK", "BK <Lavec>"],
                            "ranking_points": [Decimal("78.00"), Decimal("78.00"), Decimal("33.00")],
                            "results_counted": [1, 1, 1], "oldest_counted": [date(2026, 11, 1)] * 3})
    results = pd.DataFrame({"member": ["1", "1", "2", "3"], "event_id": ["e1", "e0", "e1", "e1"],
                            "event_name": ["Guld <i>", "Gammal", "Guld <i>", "Guld <i>"],
                            "event_date": [date(2026, 11, 1), date(2024, 1, 1), date(2026, 11, 1), date(2026, 11, 1)],
                            "place_label": ["1", "2", "1", "4"], "rp": [Decimal("78.00"), Decimal("50.00"), Decimal("78.00"), Decimal("33.00")],
                            "counted": [True, False, True, True], "not_counted_reason": [None, "äldre än fönstret", None, None]})
    files = render_ranking(ranking, results, "2026-11-02", "se-2009", 24, 18, "Svensk Bridge")
    html = files["index.html"]
    assert "<b>Åsa" not in html and "&lt;b&gt;Åsa&lt;/b&gt;" in html and "Guld &lt;i&gt;" in html and "BK &lt;Lavec&gt;" in html
    assert "Per 2026-11-02, regelversion se-2009" in html and 'type="search"' in html and "aria-sort" in html
    assert 'name="viewport"' in html and "<details>" in html and "äldre än fönstret" in html
    assert html.index("&lt;b&gt;Åsa") < html.index("=Bo") < html.index(">Cia")
    lines = files["ranking.csv"].splitlines()
    # the two tied first are 1= (as on every list); the publishing step splits plac and plac_label
    assert lines[1:] == ["1=;1;<b>Åsa</b>;10001;BK <Lavec>;78;1;2026-11-01;2026-11-02",
                         "1=;2;'=Bo;10002;Sundsvalls BK;78;1;2026-11-01;2026-11-02",
                         "3;3;Cia;10001;BK <Lavec>;33;1;2026-11-01;2026-11-02"]
    assert '<td class="n" data-value="1">1=</td>' in html and '<td class="n" data-value="3">3</td>' in html


def test_nightly_run_publishes_the_ranking(office):
    # the same 52-pair gold event: the winners 78 rp each (5.2 gp × 15), tied first; the 4th pair 33 (22 sp × 1.5)
    register(office)
    post_event(office, "malmo-bk", "guld", 52, nivå="guld", brickor="60", sanktion="FSB-G-1", datum="2026-11-01")
    office.run(date(2026, 11, 2))
    folder = office.state / "publications" / ORG / "ranking"
    # (the publishing step gives every CSV a numeric plac and its plac_label, and a BOM for spreadsheets)
    rows = list(csv.DictReader(io.StringIO((folder / "ranking.csv").read_text(encoding="utf-8-sig")), delimiter=";"))
    got = [(r["plac"], r["plac_label"], r["medlemsnummer"], r["rankingpoäng"], r["antal_resultat"], r["per"]) for r in rows[:4]]
    # 2nd place: D row 52 place 2 = 35 sp -> 3.5 gp (4 posted): 3.5 × 15 = 52.5 -> 53, shared by the pair
    assert got == [("1", "1=", "200000", "78", "1", "2026-11-02"), ("1", "1=", "200001", "78", "1", "2026-11-02"),
                   ("3", "3=", "200002", "53", "1", "2026-11-02"), ("3", "3=", "200003", "53", "1", "2026-11-02")]
    assert "Per 2026-11-02, regelversion se-2009" in (folder / "index.html").read_text(encoding="utf-8")


def test_a_result_expires_on_the_next_night_without_new_input(office):
    # the gold event of 2 November 2024 is exactly 24 months old on 2 November 2026: it counts (78 rp);
    # the next night, with no new file, it is older than 24 months and the ranking is empty
    register(office)
    post_event(office, "malmo-bk", "guld", 52, nivå="guld", brickor="60", sanktion="FSB-G-1", datum="2024-11-02")
    office.run(date(2026, 11, 2))
    r = office.query("select member, ranking_points, oldest_counted from se_ranking where member = '200000'")
    assert r["ranking_points"][0] == Decimal("78.00") and str(r["oldest_counted"][0]) == "2024-11-02"
    # the member's page: position among the 26 ranked (13 silver-or-better pairs of 52: a quarter),
    # the 78 rp and the counted result; rewritten the night the result expires, with no new input
    from pipelines.core.site import PLAYERS, player_slug

    page = (office.state / "publications" / ORG / PLAYERS / f"{player_slug('200000')}.html").read_text(encoding="utf-8")
    assert "nationell ranking: plats 1 av 26, 78 rp (1 resultat räknas); räknade resultat: 2024-11-02" in page
    assert "(plac 1) 78 rp" in page
    office.run(date(2026, 11, 3))
    assert office.query("select count(*) as n from se_ranking")["n"][0] == 0
    reasons = office.query("select distinct not_counted_reason from se_ranking_results")
    assert list(reasons["not_counted_reason"]) == ["äldre än fönstret"]
    page = (office.state / "publications" / ORG / PLAYERS / f"{player_slug('200000')}.html").read_text(encoding="utf-8")
    assert "nationell ranking" not in page and "2024-11-02" in page  # the award line stays, the position goes
    page = (office.state / "publications" / ORG / "ranking" / "index.html").read_text(encoding="utf-8")
    assert "Per 2026-11-03" in page


def test_a_part_time_barometer_player_ranks_on_the_part_played(office):
    # a silver team barometer of 8 teams (Tabell E1: the winner ⌈1.5 × 8⌉ = 12 sp per player); the
    # winners' fifth player played 5 of 14 matches (at least a third): paid ⌈12 × 5/14⌉ = 5 sp, and
    # ranked on the same part, unrounded: 12 × 5/14 = 4.29 → 5 rp, not the team's 12
    register(office)
    extra = (["spelat"], lambda i: ["14 14 14 14 5"])
    post_event(office, "malmo-bk", "baro-silver", 8, per=5, extra=extra, nivå="silver", form="lagbarometer", brickor="42",
               matcher="14", sanktion="SBF-S-1", datum="2026-10-03")
    office.run(date(2026, 11, 2))
    assert list(office.query("select reason from quarantine")["reason"]) == []
    rr = office.query("select member, rp, rp_basis from se_ranking_results where event_id like '%baro-silver' "
                      "and member in ('200000', '200004') order by member")
    assert [int(v) for v in rr["rp"]] == [12, 5]
    assert "200004 played 5/14 of the matches: silver: 30/7 sp × 1 = 30/7 → 5 rp" in rr["rp_basis"][1]
    paid = office.query("select points from awards where player_id = '200004' and event_id like '%baro-silver'")
    assert int(paid["points"][0]) == 5


def test_a_position_that_moves_without_own_lines_reads_as_the_page_rendered_whole(office, monkeypatch):
    """Night 1: the 52-pair gold event ranks 26 members, 200000 first of 26. Night 2 posts a second
    such event for other members only: 200000's own lines do not move, its position does (first of
    52, tied with the other winners), and only the notes of its page are put in again. The page
    then equals, byte for byte, the page rendered whole from the member's lines (the file removed,
    and the night run again)."""
    from pipelines.core import site
    from pipelines.core.site import PLAYERS, player_slug

    spliced = []

    def refresh_notes(page, notes_html, text):
        out = original(page, notes_html, text)
        spliced.append(out is not None and "200000" in page)
        return out

    original = site.refresh_notes
    monkeypatch.setattr(site, "refresh_notes", refresh_notes)
    path = office.state / "publications" / ORG / PLAYERS / f"{player_slug('200000')}.html"
    register(office)
    post_event(office, "malmo-bk", "guld-a", 52, nivå="guld", brickor="60", sanktion="FSB-G-1", datum="2026-11-01")
    office.run(date(2026, 11, 2))
    assert "nationell ranking: plats 1 av 26, 78 rp (1 resultat räknas)" in path.read_text(encoding="utf-8")
    post_event(office, "malmo-bk", "guld-b", 52, nivå="guld", brickor="60", sanktion="FSB-G-2", datum="2026-11-02", start=200)
    office.run(date(2026, 11, 3))
    refreshed = path.read_text(encoding="utf-8")
    assert any(spliced)  # the page's notes were put in, the page not rendered whole
    assert "nationell ranking: plats 1 av 52, 78 rp (1 resultat räknas)" in refreshed
    path.unlink()
    office.run(date(2026, 11, 3))
    assert path.read_text(encoding="utf-8") == refreshed



def _the_nights_tables_hold_the_views_rows(warehouse_file, organisation: str) -> None:
    """The night's publications read the ranking and the master-class level changes from temporary
    tables made once (tonight()): the rows the views give for the organisation; a relation that is
    not one of these is refused."""
    import duckdb

    from pipelines.core.sql import fetch
    from pipelines.sweden.ranking_page import tonight

    con = duckdb.connect(str(warehouse_file), read_only=True)
    try:
        for relation in ("se_ranking", "se_ranking_results", "se_level_changes"):
            name = tonight(con, relation, organisation)
            assert tonight(con, relation, organisation) == name  # made once, found again
            view = fetch(con, f"select * from {relation} where organisation = ? order by all", [organisation])
            table = fetch(con, f"select * from {name} order by all")
            assert len(view) > 0, relation
            pd.testing.assert_frame_equal(table, view)
            other = tonight(con, relation, "another-federation")
            assert other != name and fetch(con, f"select count(*) as n from {other}")["n"][0] == 0
        with pytest.raises(ValueError):
            tonight(con, "awards", organisation)
    finally:
        con.close()


def test_each_ranked_players_results_listed_counted_first_best_first():
    """The results under each ranked player on the ranking page: their own only, the counted ones
    first, then by ranking points and newest date (hand-ordered below); a result whose `counted` is
    unknown reads as not counted and comes last (the sort puts unknowns last); a ranked player
    without results has an empty list, and the
    results of a member who is not ranked are not shown."""
    import re

    import pyarrow as pa

    from pipelines.sweden.ranking_page import render_ranking

    ranking = pd.DataFrame({"rank": [1, 2], "member": ["7", "8"], "name": ["Ada", "Ben"], "club": ["10001", "10002"],
                            "club_name": ["BK Ess", None], "ranking_points": [Decimal("90.00"), Decimal("10.00")],
                            "results_counted": [2, 0], "oldest_counted": [date(2026, 1, 5), date(2026, 1, 5)]})
    results = pd.DataFrame({
        "member": ["9", "7", "7", "7", "7"],
        "event_id": ["x", "e1", "e2", "e3", "e4"], "event_name": ["Annan", "Ett", None, "Tre", "Fyra"],
        "event_date": [date(2026, 3, 1), date(2026, 1, 5), date(2026, 2, 1), date(2026, 3, 1), date(2026, 4, 1)],
        "place_label": ["1", "2", "1", "3=", "5"],
        "rp": [Decimal("99.00"), Decimal("40.00"), Decimal("50.00"), Decimal("40.00"), Decimal("60.00")],
        "counted": pd.array([True, True, True, False, None], dtype=pd.ArrowDtype(pa.bool_())),
        "not_counted_reason": [None, None, None, "utanför de 18 bästa", "okänt"]})
    html = render_ranking(ranking, results, "2026-05-01", "se-2009", 24, 18, "Svensk Bridge")["index.html"]
    rows = re.findall(r'<tr class="(not-counted)?"><td class="date">([^<]*)</td><td>([^<]*)</td><td class="n place">([^<]*)</td>'
                      r'<td class="n">([^<]*)</td><td>([^<]*)</td></tr>', html)
    assert rows == [("", "2026-02-01", "e2", "1", "50", "ja"),   # counted, 50 rp (no name: the event's id)
                    ("", "2026-01-05", "Ett", "2", "40", "ja"),  # counted, 40 rp
                    ("not-counted", "2026-03-01", "Tre", "3=", "40", "utanför de 18 bästa"),
                    ("not-counted", "2026-04-01", "Fyra", "5", "60", "okänt")]  # counted unknown: last, not counted
    assert "Annan" not in html
    ben = html[html.index(">Ben "):]
    assert "resultat (0 räknas)" in ben and '<td class="date">' not in ben


def test_the_ranking_points_grouping_is_pandas_groupby():
    """`_groups` (the ranking points' per-result grouping, without a sub-frame per group) gives
    pandas' own groupby: the same keys in the same (sorted) order, rows with a missing key left
    out, each group's values in their row order. Compared on random frames with repeats, ties
    and missing keys."""
    import numpy as np

    from pipelines.sweden.system import _groups

    rng = np.random.default_rng(8)
    for _ in range(30):
        n = int(rng.integers(0, 60))
        frame = pd.DataFrame({
            "competition": pd.array(rng.choice(["", "A", "B", "Å"], n), dtype="string"),
            "entrant": pd.array(rng.choice(["1", "2", "10", None], n, p=[0.3, 0.3, 0.3, 0.1]), dtype="string"),
            "share": rng.choice(["1", "1/2", "3/4"], n),
            "denomination": rng.choice(["sp", "gp"], n), "exact": rng.integers(0, 100, n).astype(str)})
        keys, values = ["competition", "entrant", "share"], ["denomination", "exact"]
        expected = [(k, list(zip(g["denomination"], g["exact"]))) for k, g in frame.groupby(keys)]
        assert list(_groups(frame, keys, values)) == expected
