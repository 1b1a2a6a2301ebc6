"""SM finals with their own tables (seed p. 16), through the nightly run.

Tabell H2, finals of SM pairs for seniors, women, juniors: "1:a plats 10 poäng 2:a plats 5 poäng 3:e
plats 3 poäng 4:e plats 2 poäng"; mixed: 10, 5, 4, 3. "Placeringarna därefter får poäng efter tabell
D. [...] För SM-finaler gäller att man följer aktuella bronspoängskalor och multiplicerar
bronspoängen med tre." Tabell D row 20 (seed p. 11): 20 14 10 7 5 sp, then bronze to a third;
Tabell A1 row 20 places 6 and 7: 6 and 4 bp, × 3 = 18 and 12 bp. Row 16: 16 11 8 6 sp, A1 places
5 and 6: 7 and 5 bp, × 3 = 21 and 15.

Tabell G2, SM team final for veterans and juniors, per player: "8 lag 7-4 gp, 9-12 lag 7-5-3 gp
minst 13 lag 10-5-3-2 gp. Detta gäller vid matcher med färre brickor än 12. Vid fler (12+) brickor
gäller annan skala. Kontakta kansliet."

Tabell H1, the open SM pairs final: "I omgång 1 utdelas silverpoäng till de 16 första enligt 100-par
skalan. (33+1+(170-34)/2=34+68=102) och ytterligare 41 par får bronspoäng. Vid färre antal enligt samma
metod. I omgång 2A utdelas guldpoäng enligt följande 50, 35, 25, 20, 15, 12, 10, 8, 6, 4, 3, 2 och 1
samt brons till och med 18:e plats. I omgång 2B utdelas 10-7-6-5 gp om minst 100 par deltar. Annars
får de tre första gp enligt normal skala och därefter sp och bp till berättigade. Dock högst till
16:e respektive övriga första tredjedelen. För SM-finaler gäller att man följer aktuella
bronspoängskalor och multiplicerar bronspoängen med tre i omgång två och med två i omgång ett."
Ranking (p. 5): "I SM-par final ger varje guldpoäng 9 rankingpoäng."
"""
from __future__ import annotations


import pytest

import reference as R
from office import Office
from se_helpers import ORG, register

H2 = {"datum": "2024-11-16", "nivå": "guld", "form": "par", "brickor": "52", "sanktion": "SBF 2024/SM"}
G2 = {"datum": "2024-11-17", "nivå": "guld", "form": "lagbarometer", "sanktion": "SBF 2024/SM"}


def _post(office, name: str, n: int, per: int, **settings) -> None:
    office.post(f"{ORG}/bk-lavec/{name}.event.txt", "".join(f"{k}: {v}\n" for k, v in settings.items()))
    rows = [f"{i + 1};{i + 1};{' '.join(str(200000 + per * i + j) for j in range(per))}" for i in range(n)]
    office.post(f"{ORG}/bk-lavec/{name}.standings.csv", "plac;nr;medlemmar\n" + "\n".join(rows) + f"\n# {name}\n")


def _by_place(office, name: str, per: int) -> dict[int, tuple[str, int]]:
    """{place: (denomination, points)} of every member of each entrant (all members must agree)."""
    df = office.query("select player_id, denomination, points from awards where event_id = ?", [f"{ORG}/bk-lavec/{name}"])
    out: dict[int, set] = {}
    for p, d, v in zip(df["player_id"], df["denomination"], df["points"]):
        out.setdefault((int(p) - 200000) // per + 1, set()).add((d, int(v)))
    assert all(len(v) == 1 for v in out.values()), out
    counts = df.groupby("player_id").size()
    assert (counts == 1).all()
    return {k: next(iter(v)) for k, v in sorted(out.items())}


def _quarantine(office, *names: str) -> list[str]:
    """The quarantine reasons of these events' files."""
    files = [f"{ORG}/bk-lavec/{name}.{kind}" for name in names for kind in ("event.txt", "standings.csv")]
    return list(office.query("select reason from quarantine where source_file in (select unnest(?))", [files])["reason"])


H1 = {"nivå": "guld", "form": "par", "brickor": "99", "sanktion": "SBF 2024/SM-par"}  # 33 rounds of 3 boards
G2_TEAMS = [8, 10, 13]


@pytest.fixture(scope="module")
def night(tmp_path_factory) -> Office:
    """Every test's SM finals in one office and one nightly run, as the office receives a
    season's finals: each test reads its own events (their members are the same players)."""
    office = Office(tmp_path_factory.mktemp("sm-finals"))
    register(office)
    _post(office, "sm-seniorer", 20, 2, sm_final="h2", **H2)
    _post(office, "sm-mixed", 16, 2, sm_final="h2-mixed", **dict(H2, datum="2024-11-18"))
    for teams in G2_TEAMS:
        # each team meets every other once, 10 boards a match (fewer than 12: Tabell G2 holds)
        _post(office, f"sm-lag-veteraner-{teams}", teams, 4, sm_final="g2", matcher=str(teams - 1),
              brickor=str(10 * (teams - 1)), **G2)
    _post(office, "sm-lag-juniorer", 8, 4, sm_final="g2", matcher="7", brickor="84", **G2)          # 12 a match
    _post(office, "sm-par-silver", 20, 2, sm_final="h2", **dict(H2, nivå="silver"))
    _post(office, "sm-fel-form", 20, 2, sm_final="g2", matcher="7", **dict(H2, datum="2024-11-19"))
    _post(office, "sm-okand", 20, 2, sm_final="h3", **dict(H2, datum="2024-11-20"))
    _post(office, "sm-par-omg1", 170, 2, sm_final="h1-1", mött="33", datum="2024-05-11", **H1)
    _post(office, "sm-par-omg1-90", 90, 2, sm_final="h1-1", mött="20", datum="2024-05-12", **H1)
    _post(office, "sm-par-2a", 54, 2, sm_final="h1-2a", datum="2024-05-12", **H1)
    _post(office, "sm-par-2a-40", 40, 2, sm_final="h1-2a", datum="2024-05-13", **H1)
    _post(office, "sm-par-2b", 120, 2, sm_final="h1-2b", mött="23", datum="2024-05-12", **H1)
    _post(office, "sm-par-2b-80", 80, 2, sm_final="h1-2b", mött="19", datum="2024-05-13", **H1)
    _post(office, "sm-par-omg1-liten", 10, 2, sm_final="h1-1", mött="9", datum="2024-05-11", **H1)
    office.run()
    return office


def test_h2_seniors_20_pairs_and_mixed_16_pairs(night):
    assert _quarantine(night, "sm-seniorer", "sm-mixed") == []
    assert _by_place(night, "sm-seniorer", 2) == {1: ("gp", 10), 2: ("gp", 5), 3: ("gp", 3), 4: ("gp", 2), 5: ("sp", 5),
                                                   6: ("bp", 18), 7: ("bp", 12)}
    # the mixed list's members are 200000 ... as well (each event is scored on its own): first members
    mixed = night.query("select player_id, denomination, points from awards where event_id = ? and player_id in ('200000', "
                         "'200002', '200004', '200006', '200008', '200010')", [f"{ORG}/bk-lavec/sm-mixed"])
    got = {(int(p) - 200000) // 2 + 1: (d, int(v)) for p, d, v in zip(mixed["player_id"], mixed["denomination"], mixed["points"])}
    assert got == {1: ("gp", 10), 2: ("gp", 5), 3: ("gp", 4), 4: ("gp", 3), 5: ("bp", 21), 6: ("bp", 15)}


@pytest.mark.parametrize("teams, expected", [
    (8, {1: ("gp", 7), 2: ("gp", 4)}),
    (10, {1: ("gp", 7), 2: ("gp", 5), 3: ("gp", 3)}),
    (13, {1: ("gp", 10), 2: ("gp", 5), 3: ("gp", 3), 4: ("gp", 2)}),
])
def test_g2_by_the_number_of_teams(night, teams, expected):
    assert _quarantine(night, f"sm-lag-veteraner-{teams}") == []
    assert _by_place(night, f"sm-lag-veteraner-{teams}", 4) == expected


def test_g2_with_12_board_matches_and_wrong_settings_are_quarantined(night):
    wrong = ["sm-lag-juniorer", "sm-par-silver", "sm-fel-form", "sm-okand"]
    reasons = " | ".join(_quarantine(night, *wrong))
    assert "84 boards in 7 matches is more than 11 boards a match" in reasons and "kansliet" in reasons
    assert "write nivå: guld, found silver" in reasons
    assert "sm_final: g2 is a lagbarometer final, but form is par" in reasons
    assert "sm_final: expected h1-1, h1-2a, h1-2b (the open SM pairs final's rounds), h2, h2-mixed or g2" in reasons
    held = night.query("select count(*) as n from awards where event_id in (select unnest(?))",
                       [[f"{ORG}/bk-lavec/{name}" for name in wrong]])
    assert held["n"][0] == 0


def test_h1_round_1(night):
    assert _quarantine(night, "sm-par-omg1", "sm-par-omg1-90") == []
    got = _by_place(night, "sm-par-omg1", 2)
    silver, _ = R._split(R.D[100])
    assert [got[k] for k in range(1, 17)] == [("sp", v) for v in silver]
    assert silver[:4] == [100, 67, 50, 42] and len(silver) == 16
    bronze = [got[k] for k in range(17, 58)]
    assert len(bronze) == 41 and all(d == "bp" and v % 2 == 0 and v <= 70 for d, v in bronze)  # × 2, at most 7 sp
    assert 58 not in got
    # "Vid färre antal enligt samma metod": 90 pairs meeting 20, the reference's not-all-met list
    got90 = _by_place(night, "sm-par-omg1-90", 2)
    assert [got90[k] for k in sorted(got90)] == R.silver_pairs_not_all_met(90, 20)


def test_h1_round_2a(night):
    assert _quarantine(night, "sm-par-2a", "sm-par-2a-40") == []
    gold = [50, 35, 25, 20, 15, 12, 10, 8, 6, 4, 3, 2, 1]
    got = _by_place(night, "sm-par-2a", 2)
    assert [got[k] for k in range(1, 14)] == [("gp", v) for v in gold]
    # bronze through place 18, × 3 of the field's bronze scale (Tabell A2 row 54)
    assert [got[k] for k in range(14, 19)] == [("bp", 3 * v) for v in R.bronze_pairs(54)[13:18]]
    assert max(got) == 18
    # 40 pairs: A2 row 40 has 14 places (its last 4 bp); through place 18 the places after it stay at
    # the minimum 4 (2/3 of 4 is below it): 3 × 4 = 12 bp (our decision, docs/sweden.md)
    got40 = _by_place(night, "sm-par-2a-40", 2)
    assert got40[14] == ("bp", 3 * R.bronze_pairs(40)[13])
    assert [got40[k] for k in range(15, 19)] == [("bp", 12)] * 4 and max(got40) == 18
    # 9 ranking points per gold point (seed p. 5): the winners' 50 gp are 450 rp
    rp = night.query("select rp from se_ranking_results where event_id = ? and member = '200000'",
                      [f"{ORG}/bk-lavec/sm-par-2a"])
    assert rp["rp"][0] == 450


def test_h1_round_2b(night):
    assert _quarantine(night, "sm-par-2b", "sm-par-2b-80") == []
    # at least 100 pairs: 10 7 6 5 gp, then Tabell D's row of 1 + 23 + 96/2 = 72 from place 5 to the 16th
    got = _by_place(night, "sm-par-2b", 2)
    silver72, _ = R._split(R.D[72])
    assert [got[k] for k in range(1, 5)] == [("gp", 10), ("gp", 7), ("gp", 6), ("gp", 5)]
    assert [got[k] for k in range(5, 17)] == [("sp", v) for v in silver72[4:16]]
    bronze = [got[k] for k in range(17, 41)]  # then bronze to the first third (40 of 120)
    assert len(bronze) == 24 and all(d == "bp" and v <= 10 * silver72[15] for d, v in bronze) and max(got) == 40
    # fewer than 100: the three first in gold by the normal scale (1 + 19 + 60/2 = 50: 50 34 25 sp -> 5 4 3 gp),
    # silver to the quarter (13 places of Tabell D row 50), bronze × 3 of A2 row 80 to a third (27), at most
    # the lowest silver place's 3 sp = 30 bp
    got80 = _by_place(night, "sm-par-2b-80", 2)
    silver50, _ = R._split(R.D[50])
    assert [got80[k] for k in range(1, 4)] == [("gp", 5), ("gp", 4), ("gp", 3)]
    assert [got80[k] for k in range(4, 14)] == [("sp", v) for v in silver50[3:13]]
    assert [got80[k] for k in range(14, 28)] == [("bp", min(30, 3 * v)) for v in R.bronze_pairs(80)[13:27]]
    assert max(got80) == 27


def test_h1_too_few_pairs_is_quarantined(night):
    assert "SM final h1-1: at least 12 pairs are needed for its table, found 10" in " | ".join(_quarantine(night, "sm-par-omg1-liten"))
