"""Team series through the nightly run (`pointledger run`, night by night): series file, match
files, a walkover, a corrected match, the final standings with bonus and closing lines, the views
and the page. Every expected number is a hand computation from the seed (B2: 64 bp won, 32 drawn;
E2: 20 sp won, 10 drawn; member share = points × own halves / 8 halves; B2 bonus for 4 teams:
30 bp to the winner's members with at least 1/3 of the halves; decimals rounded up once at the end).
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from office import Office
from se_helpers import MEMBERS, ORG, register

CLUB = f"{ORG}/malmo-bk"
SERIES = f"{CLUB}/klubbserien"
E = MEMBERS[0:5]      # Lag Ek: e1..e5
G = MEMBERS[10:14]    # Lag Gran
T = MEMBERS[20:25]    # Lag Tall: t1..t5
B = MEMBERS[30:34]    # Lag Björk


def match(rnd, day, home, away, hvp, avp, halves=None, walkover=False, series="klubbserien", extra=""):
    lines = [f"series: {series}", f"round: {rnd}", f"date: {day}", f"home: {home}", f"away: {away}",
             f"home_vp: {hvp}", f"away_vp: {avp}"]
    if walkover:
        lines.append("walkover: ja")
    for key, players in (halves or {}).items():
        lines.append(f"{key}: {', '.join(players)}")
    return "\n".join(lines) + "\n" + extra


def halves(h1, h2, a1, a2):
    return {"home_first_half": h1, "home_second_half": h2, "away_first_half": a1, "away_second_half": a2}


SERIES_FILE = "series: klubbserien\nname: Klubbserien 2026 <Malmö>\ntable: B2\nboards: 24\nscale: 30\nteams: 4\ndouble: nej\n"


def holdings(office, denomination="bp"):
    df = office.query(f"select member, {denomination} as p from se_holdings")
    return {m: Decimal(p) for m, p in zip(df["member"], df["p"]) if Decimal(p) != 0}


def lines_of(office, source_file):
    return office.query("select player_id, denomination, points, entry_type, basis from awards where source_file = ? "
                        "order by player_id, entry_type", [source_file])


@pytest.fixture
def office(tmp_path):
    o = Office(tmp_path)
    register(o)
    return o


def test_a_season_night_by_night(office):
    # night 1: the series file and round 1
    office.post(f"{SERIES}.series.txt", SERIES_FILE)
    office.post(f"{SERIES}/r1-ek-gran.match.txt", match(1, "2026-10-01", "Lag Ek", "Lag Gran", 18, 12,
                                                        halves(E[:4], E[:3] + [E[4]], G, G)))
    office.post(f"{SERIES}/r1-tall-bjork.match.txt", match(1, "2026-10-01", "Lag Tall", "Lag Björk", 15, 15,
                                                           halves(T[:4], T[:3] + [T[4]], B, B)))
    assert office.run(date(2026, 10, 2)).exit_code == 0
    # Ek won 18-12: 64 × 2/8 = 16 (e1-e3), 64 × 1/8 = 8 (e4, e5); Gran lost: nothing; 15-15 drawn: 32 × h/8
    assert holdings(office) == {E[0]: 16, E[1]: 16, E[2]: 16, E[3]: 8, E[4]: 8,
                                T[0]: 8, T[1]: 8, T[2]: 8, T[3]: 4, T[4]: 4, **{b: 8 for b in B}}
    basis = lines_of(office, f"{SERIES}/r1-ek-gran.match.txt")
    assert list(basis["basis"])[0] == "round 1, Lag Ek – Lag Gran 18-12 won: 64 × 2/8 (halves played of the team's halves) = 16.00"

    # night 2: a drawn 13-17 and a walkover (recorded, no lines)
    office.post(f"{SERIES}/r2-ek-tall.match.txt", match(2, "2026-10-08", "Lag Ek", "Lag Tall", 13, 17,
                                                        halves(E[:4], E[:4], T[:4], T[1:5])))
    office.post(f"{SERIES}/r2-gran-bjork.match.txt", match(2, "2026-10-08", "Lag Gran", "Lag Björk", 18, 0, walkover=True))
    assert office.run(date(2026, 10, 9)).exit_code == 0
    assert len(lines_of(office, f"{SERIES}/r2-gran-bjork.match.txt")) == 0
    m = office.query("select round, home, away, result, home_points, away_points from se_series_matches "
                     "where series = ? order by date, home", [SERIES])
    assert list(m["result"]) == ["won", "drawn", "drawn", "walkover"]
    assert [Decimal(v) for v in m["home_points"]] == [64, 32, 32, 0]
    wo = m[m["result"] == "walkover"].iloc[0]
    assert (Decimal(wo["home_points"]), Decimal(wo["away_points"])) == (0, 0)

    # night 3: round 3, and round 1 corrected (18-12 was 17-13: a draw for both)
    office.post(f"{SERIES}/r3-ek-bjork.match.txt", match(3, "2026-10-15", "Lag Ek", "Lag Björk", 20, 10,
                                                         halves(E[:4], E[:4], B, B)))
    office.post(f"{SERIES}/r3-gran-tall.match.txt", match(3, "2026-10-15", "Lag Gran", "Lag Tall", 12, 18,
                                                          halves(G, G, T[:4], T[:4])))
    before = {p: set(lines_of(office, p)["basis"]) for p in (f"{SERIES}/r1-tall-bjork.match.txt", f"{SERIES}/r2-ek-tall.match.txt")}
    office.post(f"{SERIES}/r1-ek-gran.match.txt", match(1, "2026-10-01", "Lag Ek", "Lag Gran", 17, 13,
                                                        halves(E[:4], E[:3] + [E[4]], G, G)))
    assert office.run(date(2026, 10, 16)).exit_code == 0
    r1 = lines_of(office, f"{SERIES}/r1-ek-gran.match.txt")
    # the corrected match alone: its five old lines reversed, nine new ones (Ek drawn 8/4, Gran drawn 8)
    assert (r1["entry_type"] == "reversal").sum() == 5
    new = r1[(r1["entry_type"] == "award") & r1["basis"].str.contains("17-13")]
    assert sorted(Decimal(p) for p in new["points"]) == sorted([Decimal(8)] * 7 + [Decimal(4)] * 2)
    for p, b in before.items():  # other matches' lines untouched
        assert set(lines_of(office, p)["basis"]) == b and (lines_of(office, p)["entry_type"] == "reversal").sum() == 0
    # standings after each evening (VP to date); the final night ties Ek and Tall on 50 VP
    s = office.query("select night, place, team, matches, points from se_series_standings where series = ? "
                     "order by night, place, team", [SERIES])
    last = s[s["night"] == s["night"].max()]
    assert list(zip(last["place"], last["team"], last["matches"])) == [
        (1, "Lag Ek", 3), (1, "Lag Tall", 3), (3, "Lag Gran", 3), (4, "Lag Björk", 3)]
    assert [Decimal(v) for v in last["points"]] == [32 + 32 + 64, 32 + 32 + 64, 32, 32]
    first = s[s["night"] == s["night"].min()]
    assert list(zip(first["place"], first["team"])) == [(1, "Lag Ek"), (2, "Lag Björk"), (2, "Lag Tall"), (4, "Lag Gran")]

    # night 4: the final standings: B2 bonus for 4 teams, 30 bp to the winner's members with
    # at least 2 of the team's 6 halves (e5 played 1: none); no closing lines (all shares whole)
    office.post(f"{SERIES}.final.csv", "plac;lag\n1;Lag Ek\n2;Lag Tall\n3;Lag Gran\n4;Lag Björk\n")
    assert office.run(date(2026, 10, 17)).exit_code == 0
    fin = lines_of(office, f"{SERIES}.final.csv")
    assert sorted(zip(fin["player_id"], [Decimal(p) for p in fin["points"]])) == [(e, Decimal(30)) for e in E[:4]]
    assert holdings(office) == {E[0]: 62, E[1]: 62, E[2]: 62, E[3]: 58, E[4]: 4, **{g: 8 for g in G},
                                # Tall: round 1 drawn 8/8/8/4/4, round 2 drawn (t1 and t5 one half) 4/8/8/8/4, round 3 won 16 × 4
                                T[0]: 8 + 4 + 16, T[1]: 8 + 8 + 16, T[2]: 8 + 8 + 16, T[3]: 4 + 8 + 16, T[4]: 4 + 4,
                                **{b: 8 for b in B}}
    # the final places with each team's record (VP after penalties, the walkover's 18-0 counted) and the
    # bonus its players got: Ek 17 + 13 + 20 = 50 VP, Tall 15 + 17 + 18 = 50, Gran 13 + 18 + 12 = 43,
    # Björk 15 + 0 + 10 = 25; the bonus 4 × 30 bp to Ek alone
    assert final_places(office) == [(1, "Lag Ek", 3, 50, 128, 120, 0, 0), (2, "Lag Tall", 3, 50, 128, 0, 0, 0),
                                    (3, "Lag Gran", 3, 43, 32, 0, 0, 0), (4, "Lag Björk", 3, 25, 32, 0, 0, 0)]
    page = (office.state / "publications" / ORG / "malmo-bk" / "serie-klubbserien" / "index.html").read_text()
    assert "Lag Björk" in page and f"<td>{E[0]}</td><td>Spelare 000 Åström</td><td>62.00</td>" in page
    assert "<h2>Slutställning</h2>" in page and "<td>1</td><td>Lag Ek</td><td>3</td><td>50.00</td><td>128.00</td><td>120.00 bp</td>" in page
    assert "Ställning efter 2026-10-15" in page
    # running again posts nothing
    assert office.run(date(2026, 10, 18)).exit_code == 0
    assert len(lines_of(office, f"{SERIES}.final.csv")) == 4

    # a match corrected after the final reposts its own lines; the final standings sent again
    # (a comment line added) reverse the final's own lines and recompute bonus and closing lines:
    # round 3 Ek-Björk 20-10 becomes 16-14 (drawn: 32 × 2/8 = 8 each instead of 16), and e4 now
    # played 1 + 2 + 2 = 5 halves still, so the bonus stands; Ek e1-e3 62 - 8 = 54, e4 58 - 8 = 50
    office.post(f"{SERIES}/r3-ek-bjork.match.txt", match(3, "2026-10-15", "Lag Ek", "Lag Björk", 16, 14,
                                                         halves(E[:4], E[:4], B, B)))
    office.post(f"{SERIES}.final.csv", "# corrected after round 3\nplac;lag\n1;Lag Ek\n2;Lag Tall\n3;Lag Gran\n4;Lag Björk\n")
    assert office.run(date(2026, 10, 19)).exit_code == 0
    fin = lines_of(office, f"{SERIES}.final.csv")
    assert (fin["entry_type"] == "reversal").sum() == 4 and (fin["entry_type"] == "award").sum() == 8
    other = [f"{SERIES}/r1-tall-bjork.match.txt", f"{SERIES}/r2-ek-tall.match.txt", f"{SERIES}/r3-gran-tall.match.txt"]
    assert all((lines_of(office, p)["entry_type"] == "reversal").sum() == 0 for p in other)
    assert holdings(office) == {E[0]: 54, E[1]: 54, E[2]: 54, E[3]: 50, E[4]: 4, **{g: 8 for g in G},
                                T[0]: 28, T[1]: 32, T[2]: 32, T[3]: 28, T[4]: 8, **{b: 16 for b in B}}
    # the corrected final's rows replace the first: Ek 17 + 13 + 16 = 46 VP and 3 × 32 points; Björk 15 + 0 + 14
    # = 29 VP and 32 + 0 + 32 points (both draws)
    assert final_places(office) == [(1, "Lag Ek", 3, 46, 96, 120, 0, 0), (2, "Lag Tall", 3, 50, 128, 0, 0, 0),
                                    (3, "Lag Gran", 3, 43, 32, 0, 0, 0), (4, "Lag Björk", 3, 29, 64, 0, 0, 0)]


def final_places(office) -> list[tuple]:
    fp = office.query("select place, team, matches, vp, match_points, bonus_bp, bonus_sp, bonus_gp from se_series_final_places "
                      "where series = ? order by place", [SERIES])
    return [(int(r.place), r.team, int(r.matches), *(int(Decimal(v)) for v in (r.vp, r.match_points, r.bonus_bp, r.bonus_sp,
                                                                                 r.bonus_gp))) for r in fp.itertuples()]


def test_truncated_shares_and_closing_lines(office):
    """E3 division I of 2 (sp, 20 won, 10 drawn): a 15-15 draw interrupted after 12 of 24 boards gets
    half scale (E3's rule), 10 / 2 = 5 sp:
    e1 (both halves) 5 × 2/8 = 1.25, e2-e7 (one half) 5/8 = 0.625, posted 0.62; then Ek 20-10
    won 20: e1-e4 5 each. Totals rounded up once: e1 6.25 -> 7 (closing 0.75), e2-e4 5.625 -> 6
    (posted 5.62, closing 0.38), e5-e7 0.625 -> 1 (closing 0.38), Gran g1-g4 1.25 -> 2 (0.75)."""
    s = f"{CLUB}/e3serien"
    office.post(f"{s}.series.txt", "table: E3\ndivisions: 2\ndivision: 1\nboards: 24\nscale: 30\n")
    ek1, ek2 = [E[0], E[1], E[2], E[3]], [E[0], T[0], T[1], T[2]]
    office.post(f"{s}/r1.match.txt", match(1, "2026-11-01", "Lag Ek", "Lag Gran", 15, 15, halves(ek1, ek2, G, G),
                                           series="e3serien", extra="boards_played: 12\n"))
    office.post(f"{s}/r2.match.txt", match(2, "2026-11-08", "Lag Ek", "Lag Gran", 20, 10, halves(E[:4], E[:4], G, G),
                                           series="e3serien"))
    assert office.run(date(2026, 11, 9)).exit_code == 0
    r1 = lines_of(office, f"{s}/r1.match.txt").set_index("player_id")
    assert Decimal(r1.loc[E[1], "points"]) == Decimal("0.62")
    assert r1.loc[E[1], "basis"].endswith("= 5/8, posted 0.62 (the rest is carried to the series' closing line)")
    assert Decimal(r1.loc[E[0], "points"]) == Decimal("1.25")
    office.post(f"{s}.final.csv", "plac;lag\n1;Lag Ek\n2;Lag Gran\n")
    assert office.run(date(2026, 11, 10)).exit_code == 0
    close = lines_of(office, f"{s}.final.csv").set_index("player_id")
    expected = {E[0]: "0.75", E[1]: "0.38", E[2]: "0.38", E[3]: "0.38", T[0]: "0.38", T[1]: "0.38", T[2]: "0.38",
                **{g: "0.75" for g in G}}
    assert {p: str(Decimal(v)) for p, v in close["points"].items()} == expected
    assert "exact 45/8 rounded up to 6" in close.loc[E[1], "basis"]
    assert holdings(office, "sp") == {E[0]: 7, E[1]: 6, E[2]: 6, E[3]: 6, T[0]: 1, T[1]: 1, T[2]: 1, **{g: 2 for g in G}}


def test_bad_files_are_quarantined_never_crash(office):
    office.post(f"{SERIES}.series.txt", SERIES_FILE.replace("table: B2", "table: B9"))
    office.post(f"{SERIES}/r1.match.txt", match(1, "2026-10-01", "Lag Ek", "Lag Gran", 18, 12, halves(E[:4], E[:4], G, G)))
    office.post(f"{CLUB}/other/r1.match.txt", match(1, "2026-10-01", "Lag Ek", "Lag Gran", 18, 12,
                                                   halves(E[:4], E[:3] + ["999999"], G, G), series="nosuch"))
    office.post(f"{CLUB}/nosuch.final.csv", "plac;lag\n1;Lag Ek\n")

    assert office.run(date(2026, 10, 2)).exit_code == 3
    q = office.query("select source_file, location, reason from quarantine order by source_file, location")
    reasons = dict(zip(q["source_file"] + " @ " + q["location"], q["reason"]))
    assert any("table: expected one of B2" in r for k, r in reasons.items() if k.startswith(f"{SERIES}.series.txt"))
    assert any("held back until the series file" in r for k, r in reasons.items() if k.startswith(f"{SERIES}/r1.match.txt"))
    assert any("missing setting 'table'" in r for k, r in reasons.items() if k.startswith(f"{CLUB}/other/r1.match.txt"))
    assert any("waiting for the series file" in r for k, r in reasons.items() if k.startswith(f"{CLUB}/nosuch.final.csv"))
    # the corrected series file releases the held match (read again from the inbox)
    office.post(f"{SERIES}.series.txt", SERIES_FILE)
    office.post(f"{SERIES}/both.match.txt", match(2, "2026-10-02", "Lag Ek", "Lag Gran", 18, 12,
                                                  halves(E[:4], E[:4], G[:3] + [E[0]], G)))
    assert office.run(date(2026, 10, 3)).exit_code == 3
    q = office.query("select reason from quarantine where source_file = ?", [f"{SERIES}/both.match.txt"])
    assert list(q["reason"]) == [f"a player is named for both teams: {E[0]}"]
    assert holdings(office) == {e: 16 for e in E[:4]}


def test_a_match_dated_after_the_run_is_a_typo(office):
    office.post(f"{SERIES}.series.txt", SERIES_FILE)
    office.post(f"{SERIES}/r1.match.txt", match(1, "2027-10-01", "Lag Ek", "Lag Gran", 18, 12, halves(E[:4], E[:4], G, G)))
    assert office.run(date(2026, 10, 2)).exit_code == 3
    q = office.query("select location, reason from quarantine where source_file = ?", [f"{SERIES}/r1.match.txt"])
    assert list(zip(q["location"], q["reason"])) == [
        ("line 3", "date: 2027-10-01 is after the date of this run (2026-10-02); check the year, month and day")]
    assert lines_of(office, f"{SERIES}/r1.match.txt").empty


@pytest.mark.parametrize("seed", [2])
def test_generated_double_series_through_the_run_matches_the_reference(office, seed):
    """The generated 10-team double series of test_series_season (its hand-rule reference, made
    from the seed's wording, not from the program) through `pointledger run`: 90 matches on night 1,
    the corrected match and the final standings on night 2. Every member's series total without
    the bonus (whole numbers, so the one rounding is unaffected) equals the reference."""
    from test_series_season import _reference, _season, _text

    files = _season(seed)
    names = sorted({p for f in files for side in f[8].values() for p in side})
    number = dict(zip(names, MEMBERS[100:100 + len(names)]))

    def as_members(f):
        return f[:8] + ({k: [number[p] for p in v] for k, v in f[8].items()},)

    office.post(f"{CLUB}/s.series.txt", "table: B2\nboards: 24\nscale: 30\ndouble: ja\n")
    for f in files[:90]:
        office.post(f"{CLUB}/s/{f[0]}", _text(as_members(f)))
    assert office.run(date(2026, 10, 2)).exit_code == 0
    office.post(f"{CLUB}/s/{files[90][0]}", _text(as_members(files[90])))
    teams = sorted({f[2] for f in files})
    office.post(f"{CLUB}/s.final.csv", "plac;lag\n" + "".join(f"{i};{t}\n" for i, t in enumerate(teams, start=1)))
    assert office.run(date(2026, 10, 3)).exit_code == 0
    got = office.query("select player_id, sum(points) as p from awards where system = 'sweden' "
                       "and event_id not like '%#=bonus' group by player_id")
    got = {p: Decimal(v) for p, v in zip(got["player_id"], got["p"]) if Decimal(v) != 0}
    want = {number[p]: Decimal(v) for p, v in _reference(files).items() if v}
    assert got == want
    # the bonus: B2 row for 10 teams, double series × 2, only to members with 1/3 of the halves
    # (seed B2 bonus row for 10 teams: 90 / 60 / 30; "Vid dubbelserier ... räknas bonus dubbelt")
    bonus = office.query("select location, points from awards where event_id like '%#=bonus'")
    by_place = {loc.split("place ")[1]: Decimal(p) for loc, p in zip(bonus["location"], bonus["points"])}
    assert by_place == {"1": 180, "2": 120, "3": 60}


def _both(players):
    return players, players


def test_g1_final_place_bonus_and_e7_conversion_to_gold(office):
    """G1 (SM final, 20 boards, 12 / 6 gp, scale 20: 14-6 won, 10-10 drawn): A beats B 14-6, A-C
    10-10, B beats C 15-5; 4 players a side, both halves: won 12 × 2/8 = 3, drawn 6 × 2/8 = 1.5.
    Places 1-3 get 28 / 20 / 14 gp each player who played at least two 20-board matches (a4 and a5
    played one each: none). Totals rounded up once: a1-a3 3 + 1.5 + 28 = 32.5 -> 33 (closing 0.50),
    a4 3, a5 1.5 -> 2, b 3 + 20 = 23, c 1.5 + 14 = 15.5 -> 16.
    E7 division III of 4 (32 / 16 sp): X beats Y 18-12 and Z 20-10 (8 sp a player each), Y-Z
    15-15 (4 each). Places 1-2 have their series sp converted to gp (1 gp = 10 sp, assumed):
    x 16 sp -> 1.6 -> 2 gp and 0 sp; y 4 sp -> 0.4 -> 1 gp; z (3rd) keeps 4 sp."""
    a, b, c = MEMBERS[40:45], MEMBERS[50:54], MEMBERS[60:64]
    sm = f"{CLUB}/sm-lag"
    office.post(f"{sm}.series.txt", "table: G1\nboards: 20\nscale: 20\n")
    office.post(f"{sm}/1.match.txt", match(1, "2026-11-01", "A", "B", 14, 6, halves(a[:4], a[:4], b, b), series="sm-lag"))
    office.post(f"{sm}/2.match.txt", match(2, "2026-11-02", "A", "C", 10, 10, halves(a[:3] + [a[4]], a[:3] + [a[4]], c, c),
                                           series="sm-lag"))
    office.post(f"{sm}/3.match.txt", match(3, "2026-11-03", "B", "C", 15, 5, halves(b, b, c, c), series="sm-lag"))
    office.post(f"{sm}.final.csv", "plac;lag\n1;A\n2;B\n3;C\n")
    x, y, z = MEMBERS[70:74], MEMBERS[80:84], MEMBERS[90:94]
    d3 = f"{CLUB}/allsvenskan-3"
    office.post(f"{d3}.series.txt", "table: E7\ndivisions: 4\ndivision: 3\nboards: 24\nscale: 30\n")
    office.post(f"{d3}/1.match.txt", match(1, "2026-11-01", "X", "Y", 18, 12, halves(x, x, y, y), series="allsvenskan-3"))
    office.post(f"{d3}/2.match.txt", match(2, "2026-11-02", "Y", "Z", 15, 15, halves(y, y, z, z), series="allsvenskan-3"))
    office.post(f"{d3}/3.match.txt", match(3, "2026-11-03", "X", "Z", 20, 10, halves(x, x, z, z), series="allsvenskan-3"))
    office.post(f"{d3}.final.csv", "plac;lag\n1;X\n2;Y\n3;Z\n")
    assert office.run(date(2026, 11, 4)).exit_code == 0
    gp, sp = holdings(office, "gp"), holdings(office, "sp")
    assert gp == {a[0]: 33, a[1]: 33, a[2]: 33, a[3]: 3, a[4]: 2, **{m: 23 for m in b}, **{m: 16 for m in c},
                  **{m: 2 for m in x}, **{m: 1 for m in y}}
    assert sp == {m: 4 for m in z}
    # national ranking (seed section 7): each finished series is one result per player, on the points
    # played (no bonus): G1 gold × 15: a1-a3 (3 + 1.5) × 15 = 67.5 -> 68, a4 3 × 15 = 45, a5 1.5 × 15 =
    # 22.5 -> 23, b 45, c 23; E7 on the sp played ("Rankingpoäng baseras dock på det inspelade antalet
    # silverpoäng"), 1 rp each: x 16, y 4, z 4
    rr = office.query("select member, event_id, rp, counted from se_ranking_results where event_id in (?, ?)", [sm, d3])
    assert dict(zip(rr["member"], (int(v) for v in rr["rp"]))) == {
        a[0]: 68, a[1]: 68, a[2]: 68, a[3]: 45, a[4]: 23, **{m: 45 for m in b}, **{m: 23 for m in c},
        **{m: 16 for m in x}, **{m: 4 for m in y}, **{m: 4 for m in z}}
    assert rr["counted"].all()
    # the final places' awards summed per team: G1 3 × 28, 4 × 20, 4 × 14 gp; E7 x 4 × 16 sp moved to 4 × 1.6 gp
    fp = office.query("select series, team, bonus_sp, bonus_gp from se_series_final_places order by series, place")
    assert [(r.team, Decimal(r.bonus_sp), Decimal(r.bonus_gp)) for r in fp.itertuples()] == [
        ("X", Decimal(-64), Decimal("6.40")), ("Y", Decimal(-16), Decimal("1.60")), ("Z", 0, 0),
        ("A", 0, 84), ("B", 0, 80), ("C", 0, 56)]
    close = office.query("select player_id, denomination, points from awards where event_id = ?", [f"{sm}#=total"])
    assert {(p, d, str(Decimal(v))) for p, d, v in zip(close["player_id"], close["denomination"], close["points"])} == \
        {(a[0], "gp", "0.50"), (a[1], "gp", "0.50"), (a[2], "gp", "0.50"), (a[4], "gp", "0.50"),
         *((m, "gp", "0.50") for m in c)}


def test_page_escapes_names_and_a_bad_final_is_quarantined_with_its_line(office):
    s = f"{CLUB}/cup"
    office.post(f"{s}.series.txt", "table: B2\nboards: 24\nscale: 30\n")
    office.post(f"{s}/1.match.txt", match(1, "2026-10-01", "Lag <Ek> & Co", "Lag Gran", 18, 12, halves(E[:4], E[:4], G, G),
                                          series="cup"))
    office.post(f"{s}.final.csv", "plac;lag\n1;Lag Gran\n1;Lag <Ek> & Co\n2;Lag Okänd\n")
    assert office.run(date(2026, 10, 2)).exit_code == 3
    page = (office.state / "publications" / ORG / "malmo-bk" / "serie-cup" / "index.html").read_text()
    assert "Lag &lt;Ek&gt; &amp; Co" in page and "<Ek>" not in page
    q = office.query("select location, reason from quarantine where source_file = ? order by location", [f"{s}.final.csv"])
    got = dict(zip(q["location"], q["reason"]))
    assert "place 1 is given twice" in got["line 3"]
    assert "lag: expected a team of the series' matches (Lag <Ek> & Co, Lag Gran), found 'Lag Okänd'" == got["line 4"]
    assert holdings(office) == {e: 16 for e in E[:4]}  # the match stands; no bonus, no closing lines


def test_a_copy_of_the_final_in_a_sub_folder_is_quarantined_and_the_series_awards_once(office):
    # found by the mutation campaign's batches: two final standings of one series (the second in a
    # sub-folder) both became "internal error" quarantine, the good one included. One series has
    # one final, beside its series file; the copy is quarantined with where the final belongs.
    office.post(f"{SERIES}.series.txt", SERIES_FILE)
    office.post(f"{SERIES}/r1-ek-gran.match.txt", match(1, "2026-10-01", "Lag Ek", "Lag Gran", 18, 12,
                                                        halves(E[:4], E[:3] + [E[4]], G, G)))
    office.post(f"{SERIES}/r1-tall-bjork.match.txt", match(1, "2026-10-01", "Lag Tall", "Lag Björk", 15, 15,
                                                           halves(T[:4], T[:3] + [T[4]], B, B)))
    final = "plac;lag\n1;Lag Ek\n2;Lag Tall\n3;Lag Gran\n4;Lag Björk\n"
    office.post(f"{SERIES}.final.csv", final)
    office.post(f"{CLUB}/kopia/klubbserien.final.csv", "# a copy\n" + final)
    assert office.run(date(2026, 10, 2)).exit_code == 3
    q = office.query("select source_file, reason from quarantine")
    assert list(q["source_file"]) == [f"{CLUB}/kopia/klubbserien.final.csv"]
    assert list(q["reason"]) == [f"the final standings of series 'klubbserien' are read only beside its series file, "
                                 f"as {SERIES}.final.csv; move this file there (or remove it if it is a copy)"]
    # B2 bonus for 4 teams: 30 bp to each Ek member with at least 1/3 of the team's 2 halves
    # (all five played at least one half); shares 16/16/16/8/8 are whole: no closing lines
    fin = lines_of(office, f"{SERIES}.final.csv")
    assert sorted(zip(fin["player_id"], [Decimal(p) for p in fin["points"]])) == [(e, Decimal(30)) for e in E]


def _two_series_posted(office) -> tuple[str, Path]:
    """The club series (Ek beat Gran 18-12) and a winter series (Tall beat Björk 18-12), each one
    match, posted on 2026-10-02: (the winter series' id, the club's publication folder)."""
    office.post(f"{SERIES}.series.txt", SERIES_FILE)
    office.post(f"{SERIES}/r1-ek-gran.match.txt", match(1, "2026-10-01", "Lag Ek", "Lag Gran", 18, 12,
                                                        halves(E[:4], E[:4], G, G)))
    other = f"{CLUB}/vinterserien"
    office.post(f"{other}.series.txt", SERIES_FILE.replace("klubbserien", "vinterserien"))
    office.post(f"{other}/r1.match.txt", match(1, "2026-10-01", "Lag Tall", "Lag Björk", 18, 12,
                                               halves(T[:4], T[:4], B, B), series="vinterserien"))
    assert office.run(date(2026, 10, 2)).exit_code == 0
    pages = office.state / "publications" / ORG / "malmo-bk"
    return other, pages


def test_a_withdrawn_series_loses_its_page_as_in_a_fresh_run(office):
    other, pages = _two_series_posted(office)
    assert (pages / "serie-klubbserien" / "index.html").is_file() and (pages / "serie-vinterserien" / "index.html").is_file()
    # the winter series' only match is corrected into a version that is quarantined (a VP that
    # is not a number): its lines are reversed, the series has no standing match, and its page
    # goes as a fresh run would not write it; the other series' page stays
    office.post(f"{other}/r1.match.txt", match(1, "2026-10-01", "Lag Tall", "Lag Björk", "arton", 12,
                                               halves(T[:4], T[:4], B, B), series="vinterserien"))
    assert office.run(date(2026, 10, 3)).exit_code == 3
    assert not (pages / "serie-vinterserien").exists()
    assert (pages / "serie-klubbserien" / "index.html").is_file()
    assert holdings(office) == {e: 16 for e in E[:4]}  # Ek won 18-12: 64 × 2/8 each; Tall's lines reversed


def test_a_night_that_changes_nothing_of_a_series_writes_nothing_of_it(office):
    """Two series posted; a night with nothing new writes no publication at all (the series pages
    were rewritten every night before, with their workbooks, and the site linked them again). A
    night that adds a match to one series rewrites that series' folder, not the other's."""
    _, pages = _two_series_posted(office)
    winter = (pages / "serie-vinterserien" / "index.html").stat()
    quiet = office.run(date(2026, 10, 2))
    assert quiet.exit_code == 0 and quiet.report["publications"] == []
    office.post(f"{SERIES}/r2-ek-tall.match.txt", match(2, "2026-10-08", "Lag Ek", "Lag Tall", 13, 17,
                                                        halves(E[:4], E[:4], T[:4], T[:4])))
    night = office.run(date(2026, 10, 9))
    assert night.exit_code == 0
    assert str(pages / "serie-klubbserien") in night.report["publications"]
    assert not any("serie-vinterserien" in p for p in night.report["publications"])
    after = (pages / "serie-vinterserien" / "index.html").stat()
    assert (after.st_ino, after.st_mtime_ns) == (winter.st_ino, winter.st_mtime_ns)


def test_a_match_held_for_an_unknown_member_posts_when_the_new_register_arrives(tmp_path):
    # the register knows the 600 members of se_helpers except the newcomer 299999 (Ek's e4 seat)
    o = Office(tmp_path)
    register(o)
    o.post(f"{SERIES}.series.txt", SERIES_FILE)
    newcomer = "299999"
    o.post(f"{SERIES}/r1-ek-gran.match.txt", match(1, "2026-10-01", "Lag Ek", "Lag Gran", 18, 12,
                                                   halves(E[:3] + [newcomer], E[:3] + [newcomer], G, G)))
    assert o.run(date(2026, 10, 2)).exit_code == 3
    q = o.query("select reason from quarantine where source_file = ?", [f"{SERIES}/r1-ek-gran.match.txt"])
    assert list(q["reason"]) == [f"member number {newcomer} is not in the member register; "
                                 "name the players of each half by member number"]
    assert holdings(o) == {}
    # the office sends the new register with the newcomer; the match file is not sent again
    register(o, members=MEMBERS + [newcomer])
    assert o.run(date(2026, 10, 3)).exit_code == 0
    # Ek won 18-12: 64 bp × 2/8 halves = 16 to each of e1-e3 and the newcomer
    assert holdings(o) == {E[0]: 16, E[1]: 16, E[2]: 16, newcomer: 16}
    assert o.query("select count(*) as n from quarantine where is_open")["n"][0] == 0
