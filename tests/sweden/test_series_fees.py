"""Club fees of team-series matches (seed 002, section 3 "Avgifter", p. 2; RULES.md §3 "Fees"):
"Kostnad per spelare och speltillfälle ... Lagtävling Brons 2.50 kr, Silver 3.00 kr*, Guld 10.00 kr";
"Vid lagtävling räknas ett speltillfälle som: Brons En match om minst 24 brickor, 12-23 brickor är ett
halvt speltillfälle, 6-11 brickor i serie/cup är ¼ speltillfälle. Silver (the same) ... Guld En
guldtävling är ett speltillfälle." Every expected amount below is a hand computation from these words.
The organising club (the club folder of the series) pays, in the month of the match date.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from office import Office
from se_helpers import MEMBERS, ORG, register
from test_series_run import halves, match

CLUB = f"{ORG}/malmo-bk"      # club 10004 in data/rules/sweden/clubs.csv
E, G, T, B = MEMBERS[0:5], MEMBERS[10:14], MEMBERS[20:25], MEMBERS[30:34]


@pytest.fixture
def office(tmp_path):
    o = Office(tmp_path)
    register(o)
    return o


def fees(office):
    df = office.query("select club, month, level, form, sessions, player_sessions, amount_sek from se_club_fees "
                      "order by month, level, form")
    return [(r.club, r.month, r.level, r.form, Decimal(r.sessions), Decimal(r.player_sessions), Decimal(r.amount_sek))
            for r in df.itertuples()]


def test_series_matches_are_charged_to_the_organising_club(office):
    # B2 klubbserie, 24 boards: 8 players (4 a side, both halves) × 1 session × 2.50 = 20.00 kr
    office.post(f"{CLUB}/klubbserie.series.txt", "table: B2\nboards: 24\nscale: 30\n")
    office.post(f"{CLUB}/klubbserie/r1.match.txt", match(1, "2026-10-01", "Lag Ek", "Lag Gran", 18, 12,
                                                        halves(E[:4], E[:4], G, G), series="klubbserie"))
    # E4 silverkort, 8 boards (6-11: a quarter session): 8 players × 1/4 × 3.00 (silver team) = 6.00 kr
    office.post(f"{CLUB}/silverkort.series.txt", "table: E4\nboards: 8\nscale: 30\n")
    office.post(f"{CLUB}/silverkort/r1.match.txt", match(1, "2026-10-02", "Lag Tall", "Lag Björk", 15, 15,
                                                        halves(T[:4], T[:4], B, B), series="silverkort"))
    # November, B2 again: a substitute (e5 plays the second half for e4) counts as a player of the
    # match: 5 + 4 = 9 players × 1 × 2.50 = 22.50 kr; a walkover is not played: nothing
    office.post(f"{CLUB}/klubbserie/r2.match.txt", match(2, "2026-11-05", "Lag Ek", "Lag Gran", 12, 18,
                                                        halves(E[:4], E[:3] + [E[4]], G, G), series="klubbserie"))
    office.post(f"{CLUB}/klubbserie/r3.match.txt", match(3, "2026-11-12", "Lag Gran", "Lag Ek", 18, 0,
                                                        walkover=True, series="klubbserie"))
    assert office.run(date(2026, 11, 13)).exit_code == 0
    assert fees(office) == [
        ("10004", "2026-10", "brons", "lag", Decimal("1.00"), Decimal("8.00"), Decimal("20.00")),
        ("10004", "2026-10", "silver", "lag", Decimal("0.25"), Decimal("2.00"), Decimal("6.00")),
        ("10004", "2026-11", "brons", "lag", Decimal("1.00"), Decimal("9.00"), Decimal("22.50")),
    ]
    # the monthly fee statement of the club (a month with series matches only has its page too)
    october = (office.state / "publications" / ORG / "malmo-bk" / "månad-2026-10" / "avgifter.csv").read_text(encoding="utf-8")
    assert "10004;2026-10;brons;lag;1,00;8,00;20,00" in october
    assert "10004;2026-10;silver;lag;0,25;2,00;6,00" in october
    november = (office.state / "publications" / ORG / "malmo-bk" / "månad-2026-11" / "avgifter.csv").read_text(encoding="utf-8")
    assert "10004;2026-11;brons;lag;1,00;9,00;22,50" in november


def test_a_result_list_and_a_series_match_of_one_month_are_one_statement(office):
    # a bronze pairs evening of 8 pairs, 24 boards: 16 players × 1 × 2.50 = 40.00 (par);
    # a B4 match of 16 boards (12-23: half a session): 8 players × 1/2 × 2.50 = 10.00 (lag)
    from se_helpers import post_event

    post_event(office, "malmo-bk", "2026-10-06-kvall", 8, nivå="brons", brickor="24", datum="2026-10-06", start=100)
    office.post(f"{CLUB}/b4.series.txt", "table: B4\nboards: 16\nscale: 30\n")
    office.post(f"{CLUB}/b4/r1.match.txt", match(1, "2026-10-07", "Lag Ek", "Lag Gran", 20, 10,
                                                halves(E[:4], E[:4], G, G), series="b4"))
    assert office.run(date(2026, 10, 8)).exit_code == 0
    assert fees(office) == [
        ("10004", "2026-10", "brons", "lag", Decimal("0.50"), Decimal("4.00"), Decimal("10.00")),
        ("10004", "2026-10", "brons", "par", Decimal("1.00"), Decimal("16.00"), Decimal("40.00")),
    ]
    month = (office.state / "publications" / ORG / "malmo-bk" / "månad-2026-10" / "avgifter.csv").read_text(encoding="utf-8")
    assert "10004;2026-10;brons;lag;0,50;4,00;10,00" in month and "10004;2026-10;brons;par;1,00;16,00;40,00" in month
    page = (office.state / "publications" / ORG / "malmo-bk" / "månad-2026-10" / "index.html").read_text(encoding="utf-8")
    assert "Lag Ek – Lag Gran" in page  # the match is listed among the month's competitions


def test_a_gold_series_is_one_session_per_player_at_its_final(office):
    # G1, 20 boards: "En guldtävling är ett speltillfälle": each player who played in the series is
    # one session, charged when the competition is complete (its final standings): Ek e1-e5 (e5 a
    # substitute in round 2) and Gran g1-g4 = 9 players × 1 × 10.00 = 90.00 kr; nothing before
    office.post(f"{CLUB}/smfinal.series.txt", "table: G1\nboards: 20\nscale: 20\n")
    office.post(f"{CLUB}/smfinal/r1.match.txt", match(1, "2026-10-01", "Lag Ek", "Lag Gran", 14, 6,
                                                      halves(E[:4], E[:4], G, G), series="smfinal"))
    assert office.run(date(2026, 10, 2)).exit_code == 0
    assert fees(office) == []
    office.post(f"{CLUB}/smfinal/r2.match.txt", match(2, "2026-10-02", "Lag Gran", "Lag Ek", 10, 10,
                                                      halves(G, G, E[:4], E[:3] + [E[4]]), series="smfinal"))
    office.post(f"{CLUB}/smfinal.final.csv", "plac;lag\n1;Lag Ek\n2;Lag Gran\n")
    assert office.run(date(2026, 10, 3)).exit_code == 0
    assert fees(office) == [("10004", "2026-10", "guld", "lag", Decimal("1.00"), Decimal("9.00"), Decimal("90.00"))]
