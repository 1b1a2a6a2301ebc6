"""Every number of every table of the seed (000_d2c6b2cebc90bc8c.txt), typed from the document,
against the pipeline's computation (compute through award_components on synthetic fields).

Each table is a verbatim transcription: header = the printed columns, '-' = a blank cell.
"""
from __future__ import annotations

from decimal import Decimal
from functools import lru_cache

import pytest

from jcbl_helpers import by_entrant, components, field, table_cases

D = Decimal
DATE = "2024-06-02"

# --------------------------------------------------------------------------- transcriptions

# ウィークリー クラス2 ペア戦 MP表(BP): 順位＼ペア数 10ペア 20ペア 30ペア 上限
WEEKLY_PAIRS = """
place 10 20 30 cap
1  0.20 0.40 0.60 1.00
2  0.14 0.28 0.42 0.70
3  0.10 0.20 0.29 0.49
4  0.07 0.14 0.21 0.34
5  -    0.10 0.14 0.24
6  -    0.07 0.10 0.17
7  -    0.05 0.07 0.12
8  -    -    0.05 0.08
9  -    -    0.03 0.06
10 -    -    0.02 0.04
11 -    -    0.02 0.03
"""

# ウィークリー クラス2 チーム戦 MP表(BP): 6チーム 12チーム 18チーム 上限
WEEKLY_TEAMS = """
place 6 12 18 cap
1 0.24 0.48 0.72 1.00
2 0.17 0.34 0.50 0.70
3 0.12 0.24 0.35 0.49
4 -    0.16 0.25 0.34
5 -    0.12 0.17 0.24
6 -    -    0.12 0.17
7 -    -    0.08 0.12
"""

# CCG クラス3 ペア戦 順位によるMP表（BP): 10ペア 20ペア 30ペア
CCG_PLACING = """
place 10 20 30
1  0.88 1.05 1.23
2  0.61 0.74 0.86
3  0.44 0.53 0.61
4  0.35 0.42 0.49
5  -    0.34 0.39
6  -    0.27 0.31
7  -    0.22 0.25
8  -    -    0.20
9  -    -    0.16
10 -    -    0.13
11 -    -    0.11
"""

# CCG クラス3 ペア戦 24ボード スコアによるMP表（BP）
CCG_SCORE = """
score bp
70 0.47
65 0.39
60 0.32
55 0.24
50 0.16
"""

# イーブンチャンス RP表: 10チーム 15チーム 20チーム 25チーム
EC_RP = """
place 10 15 20 25
1 2.75 3.44 4.13 4.81
2 1.38 1.72 2.06 2.41
3 0.92 1.15 1.38 1.60
4 0.69 0.86 1.03 1.20
5 -    0.69 0.83 0.96
6 -    0.57 0.69 0.80
7 -    -    0.59 0.69
8 -    -    -    0.60
9 -    -    -    0.53
"""

# イーブンチャンス BP表 6bd×8rd 20VP: 勝ちVP BP
EC_BP = """
vp bp
160 1.88
140 1.64
120 1.41
100 1.17
80  0.94
60  0.70
40  0.47
20  0.23
"""

# ウィメンズチーム フライトA 平日 RP表: 12チーム 18チーム 24チーム
WA_RP = """
place 12 18 24
1 4.17 5.31 6.44
2 2.08 2.65 3.22
3 1.39 1.77 2.15
4 1.04 1.33 1.61
5 0.83 1.06 1.29
6 -    0.88 1.07
7 -    0.76 0.92
8 -    -    0.81
9 -    -    0.72
"""

# ウィメンズチーム フライトA 7bd×8rd 20.00VP
WA_BP = """
vp bp
160 3.01
140 2.64
120 2.26
100 1.88
80  1.51
60  1.13
40  0.75
20  0.38
"""

# ウィメンズチーム フライトB 平日 RP表
WB_RP = """
place 12 18 24
1 2.32 2.95 3.58
2 1.16 1.47 1.79
3 0.77 0.98 1.19
4 0.58 0.74 0.89
5 0.46 0.59 0.72
6 -    0.49 0.60
7 -    0.42 0.51
8 -    -    0.45
9 -    -    0.40
"""

# ウィメンズチーム フライトB 7bd×8rd 20.00VP
WB_BP = """
vp bp
160 1.67
140 1.47
120 1.26
100 1.05
80  0.84
60  0.63
40  0.42
20  0.21
"""

# STF OPEN オーバーオール順位RP表: 18ペア 22ペア 26ペア 30ペア
STF_OPEN = """
place 18 22 26 30
1  3.04 3.36 3.68 4.00
2  2.13 2.35 2.58 2.80
3  1.52 1.68 1.84 2.00
4  1.22 1.34 1.47 1.60
5  0.97 1.08 1.18 1.28
6  0.78 0.86 0.94 1.02
7  0.62 0.69 0.75 0.82
8  -    0.55 0.60 0.66
9  -    -    0.48 0.52
10 -    -    0.39 0.42
11 -    -    -    0.36
"""

# STF △1000 オーバーオール順位RP表: 10ペア 14ペア 18ペア 22ペア
STF_1000 = """
place 10 14 18 22
1 1.95 2.21 2.47 2.73
2 1.37 1.55 1.73 1.91
3 0.98 1.11 1.24 1.37
4 0.78 0.88 0.99 1.09
5 -    0.71 0.79 0.87
6 -    -    0.63 0.70
7 -    -    0.51 0.56
8 -    -    -    0.45
"""

# STF △500 オーバーオール順位RP表: 6ペア 10ペア 14ペア 18ペア
STF_500 = """
place 6 10 14 18
1 1.43 1.65 1.87 2.09
2 1.00 1.16 1.31 1.46
3 0.72 0.83 0.94 1.05
4 -    0.66 0.75 0.84
5 -    -    0.60 0.67
6 -    -    -    0.54
7 -    -    -    0.43
"""

# スコアによるBP表 26ボード(セッション毎); 45 → 0.20* (lower strat, top half only), 40 → 0**
STF_SCORE = """
score bp
70 1.17
65 0.98
60 0.78
55 0.59
50 0.39
45 0.20
40 0
"""

# SRR フライトABC 9チーム オーバーオール順位RP表: フライトA フライトB フライトC
SRR_ABC_TEAM_RP = """
place A B C
1 3.14 1.83 1.63
2 1.57 0.91 0.82
3 1.05 0.61 0.54
4 0.78 0.46 0.41
"""

# SRR フライトABC 54ペア オーバーオール順位RP表
SRR_ABC_PAIR_RP = """
place rp
1 3.33
2 2.33
3 1.67
4 1.33
5 1.07
6 0.85
7 0.68
8 0.55
9 0.44
10 0.35
11 0.30
12 0.28
13 0.26
14 0.24
15 0.22
16 0.21
17 0.20
18 0.19
19 0.18
"""

# SRR フライトABC 54ペア スコアによるBP表 24ボード
SRR_ABC_SCORE = """
score bp
70 0.61
65 0.51
60 0.41
55 0.30
50 0.20
"""

# SRR フライトABC 6bd×8rd 30VP 勝ちVP BP表: フライトA フライトB フライトC
SRR_ABC_VP = """
vp A B C
240 2.25 1.31 1.17
210 1.97 1.15 1.03
180 1.69 0.98 0.88
150 1.41 0.82 0.73
120 1.13 0.66 0.59
90  0.84 0.49 0.44
60  0.56 0.33 0.29
30  0.28 0.16 0.15
"""

# SRR フライトDEF 9チーム オーバーオール順位RP表: フライトD フライトE フライトF
SRR_DEF_TEAM_RP = """
place D E F
1 1.44 1.24 1.05
2 0.72 0.62 0.52
3 0.48 0.41 0.35
4 0.36 0.31 0.26
"""

# SRR フライトDEF 54ペア オーバーオール順位RP表
SRR_DEF_PAIR_RP = """
place rp
1 1.85
2 1.30
3 0.93
4 0.74
5 0.59
6 0.47
7 0.38
8 0.30
9 0.24
10 0.19
11 0.17
12 0.15
13 0.14
14 0.13
15 0.12
16 0.12
17 0.11
18 0.10
19 0.10
"""

# SRR フライトDEF 54ペア スコアによるBP表 24ボード
SRR_DEF_SCORE = """
score bp
70 0.34
65 0.28
60 0.23
55 0.17
50 0.11
"""

# SRR フライトDEF 6bd×8rd 30VP 勝ちVP BP表: フライトD フライトE フライトF
SRR_DEF_VP = """
vp D E F
240 1.03 0.89 0.75
210 0.90 0.78 0.66
180 0.77 0.67 0.56
150 0.64 0.56 0.47
120 0.52 0.45 0.38
90  0.39 0.33 0.28
60  0.26 0.22 0.19
30  0.13 0.11 0.09
"""

TABLES = {
    "weekly_pairs": WEEKLY_PAIRS, "weekly_teams": WEEKLY_TEAMS, "ccg_placing": CCG_PLACING, "ccg_score": CCG_SCORE,
    "ec_rp": EC_RP, "ec_bp": EC_BP, "wa_rp": WA_RP, "wa_bp": WA_BP, "wb_rp": WB_RP, "wb_bp": WB_BP,
    "stf_open": STF_OPEN, "stf_1000": STF_1000, "stf_500": STF_500, "stf_score": STF_SCORE,
    "srr_abc_team_rp": SRR_ABC_TEAM_RP, "srr_abc_pair_rp": SRR_ABC_PAIR_RP, "srr_abc_score": SRR_ABC_SCORE,
    "srr_abc_vp": SRR_ABC_VP, "srr_def_team_rp": SRR_DEF_TEAM_RP, "srr_def_pair_rp": SRR_DEF_PAIR_RP,
    "srr_def_score": SRR_DEF_SCORE, "srr_def_vp": SRR_DEF_VP,
}
CASES = [c for name, text in TABLES.items() for c in table_cases(text, name)]

# --------------------------------------------------------------------------- computations


@lru_cache(maxsize=None)
def weekly(kind: str, n: int, class_level: int) -> dict:
    unit = "pair" if kind == "weekly_pairs" else "team"
    lines = components(dict(event_id=f"w{n}", event_date=DATE, kind=kind, class_level=class_level), field(unit, n))
    return by_entrant(lines, "placing")


def weekly_value(kind: str, col: str, place: str) -> Decimal:
    if col == "cap":  # class 5 in a field of 100: every paid place is at its cap
        return weekly(kind, 100, 5).get(("P" if kind == "weekly_pairs" else "T") + place, D(0))
    return weekly(kind, int(col), 2).get(("P" if kind == "weekly_pairs" else "T") + place, D(0))


@lru_cache(maxsize=None)
def ccg_placing(n: int) -> dict:
    pct = [D("50.00")] * n
    lines = components(dict(event_id=f"c{n}", event_date=DATE, kind="ccg_pairs", class_level=3, sessions=1,
                            boards_per_session=24), field("pair", n, session_1_pct=pct))
    return by_entrant(lines, "placing")


def ccg_score(score: str) -> Decimal:
    lines = components(dict(event_id="cs", event_date=DATE, kind="ccg_pairs", class_level=3, sessions=1,
                            boards_per_session=24), field("pair", 10, session_1_pct=[D(score)] + [D(50)] * 9))
    return by_entrant(lines, "session_1").get("P1", D(0))


TEAM_EVENTS = {
    "ec": dict(kind="even_chance_teams", boards_per_match=6, vp_scale=20, sessions=2),
    "wa": dict(kind="womens_teams", boards_per_match=7, vp_scale=20, sessions=2, weekday=True, team_flights=2),
    "wb": dict(kind="womens_teams", boards_per_match=7, vp_scale=20, sessions=2, weekday=True, team_flights=2),
}


@lru_cache(maxsize=None)
def team_event(ev: str, n: int, vp: int = 0) -> dict:
    flight = {"ec": "", "wa": "A", "wb": "B"}[ev]
    st = field("team", n, flight=flight, winning_vp=[D(vp)] * n)
    lines = components(dict(event_id=f"{ev}{n}", event_date=DATE, **TEAM_EVENTS[ev]), st)
    return {c: by_entrant(lines, c) for c in ("placing", "winning_vp")}


def team_rp(ev: str, col: str, place: str) -> Decimal:
    flight = {"ec": "", "wa": "A", "wb": "B"}[ev]
    return team_event(ev, int(col))["placing"].get(f"T{flight}{place}", D(0))


def team_bp(ev: str, vp: str) -> Decimal:
    flight = {"ec": "", "wa": "A", "wb": "B"}[ev]
    return team_event(ev, 10, int(vp))["winning_vp"][f"T{flight}1"]


STF = dict(kind="stf_pairs", sessions=2, boards_per_session=26, strats=[("A", None), ("B", 1000), ("C", 500)])


@lru_cache(maxsize=None)
def stf_strat(strat: str, n: int) -> tuple[dict, dict]:
    """A field in which strat `strat` has exactly n pairs, ranked below enough stronger pairs
    that their awards in the upper strats are zero (outside those strats' top 35%): so the
    printed strat table is what applies (best of the strats), re-ranked 1..n without gaps."""
    from pipelines.jcbl import field_cut
    import pandas as pd
    if strat == "A":
        above = 0
    else:
        above = next(k for k in range(1, 60) if field_cut(k + n, D("0.35")) <= k)
    holding = {"A": 5000, "B": 700, "C": 0}[strat]
    upper = {"A": 5000, "B": 5000, "C": 700}[strat]
    st = field("pair", above + n, session_1_pct=D(50), session_2_pct=D(50))
    hold = pd.DataFrame({
        "player_id": [p for ps in st["players"] for p in ps.split()],
        "masterpoints": [D(upper if i < above else holding) for i in range(above + n) for _ in range(2)],
    })
    lines = components(dict(event_id=f"stf{strat}{n}", event_date=DATE, **STF), st, hold)
    placing = lines[lines["component"] == "placing"]
    winners = {e: b for e, b in zip(placing["entrant"], placing["basis"])}
    pts = by_entrant(lines, "placing")
    # entrant of strat place p is the p-th weakest-strat pair
    names = list(st["entrant"])[above:]
    return ({str(p): pts.get(names[p - 1], D(0)) for p in range(1, n + 1)},
            {str(p): winners.get(names[p - 1], "") for p in range(1, n + 1)})


def stf_score(score: str) -> Decimal:
    """Score BP of a strat-C pair that is 1st of 3 in its strat's session ranking."""
    import pandas as pd
    st = field("pair", 6, session_1_pct=[D(80), D(75), D(70), D(score), D(30), D(30)], session_2_pct=D(30))
    hold = pd.DataFrame({"player_id": [p for ps in st["players"] for p in ps.split()],
                         "masterpoints": [D(5000)] * 6 + [D(0)] * 6})
    lines = components(dict(event_id="stfs", event_date=DATE, **STF), st, hold)
    return by_entrant(lines, "session_1").get("P4", D(0))


@lru_cache(maxsize=None)
def srr() -> dict:
    """One SRR&Pairs event: 6 team flights of 9 teams (team_flights=6) and 2 pair flights of 54."""
    import pandas as pd
    teams = pd.concat([field("team", 9, flight=f, winning_vp=[D(v) for v in (240, 210, 180, 150, 120, 90, 60, 30, 0)])
                       for f in "ABCDEF"], ignore_index=True)
    pairs = pd.concat([field("pair", 54, flight=f, session_1_pct=[D(v) for v in (70, 65, 60, 55, 50)] + [D(45)] * 49,
                             session_2_pct=D(30)) for f in "AB"], ignore_index=True)
    lines = components(dict(event_id="srr", event_date=DATE, kind="srr_pairs", sessions=2, boards_per_session=24,
                            boards_per_match=6, vp_scale=30, team_flights=6, pair_flights=2), pd.concat([teams, pairs]))
    return {c: by_entrant(lines, c) for c in ("team_placing", "team_winning_vp", "pair_placing", "session_1")}


SCORE_ROW = {"70": 1, "65": 2, "60": 3, "55": 4, "50": 5}
VP_ROW = {"240": 1, "210": 2, "180": 3, "150": 4, "120": 5, "90": 6, "60": 7, "30": 8}


def computed(name: str, col: str, row: str) -> Decimal:
    if name in ("weekly_pairs", "weekly_teams"):
        return weekly_value(name, col, row)
    if name == "ccg_placing":
        return ccg_placing(int(col)).get(f"P{row}", D(0))
    if name == "ccg_score":
        return ccg_score(row)
    if name in ("ec_rp", "wa_rp", "wb_rp"):
        return team_rp(name[:2], col, row)
    if name in ("ec_bp", "wa_bp", "wb_bp"):
        return team_bp(name[:2], row)
    if name in ("stf_open", "stf_1000", "stf_500"):
        return stf_strat({"stf_open": "A", "stf_1000": "B", "stf_500": "C"}[name], int(col))[0][row]
    if name == "stf_score":
        return stf_score(row)
    if name.startswith("srr_"):
        r = srr()
        flights = "ABC" if "_abc_" in name else "DEF"
        pair_flight = "A" if flights == "ABC" else "B"
        if name.endswith("team_rp"):
            return r["team_placing"].get(f"T{col}{row}", D(0))
        if name.endswith("pair_rp"):
            return r["pair_placing"].get(f"P{pair_flight}{row}", D(0))
        if name.endswith("score"):
            return r["session_1"].get(f"P{pair_flight}{SCORE_ROW[row]}", D(0))
        if name.endswith("vp"):
            return r["team_winning_vp"].get(f"T{col}{VP_ROW[row]}", D(0))
    raise AssertionError(name)


def test_every_printed_value_is_transcribed():
    # per table: the printed cells (blank cells excluded)
    counts = {name: len(table_cases(text, name)) for name, text in TABLES.items()}
    assert counts == {
        "weekly_pairs": 33, "weekly_teams": 22, "ccg_placing": 22, "ccg_score": 5,
        "ec_rp": 26, "ec_bp": 8, "wa_rp": 21, "wa_bp": 8, "wb_rp": 21, "wb_bp": 8,
        "stf_open": 36, "stf_1000": 24, "stf_500": 19, "stf_score": 7,
        "srr_abc_team_rp": 12, "srr_abc_pair_rp": 19, "srr_abc_score": 5, "srr_abc_vp": 24,
        "srr_def_team_rp": 12, "srr_def_pair_rp": 19, "srr_def_score": 5, "srr_def_vp": 24,
    }
    assert len(CASES) == 380


@pytest.mark.parametrize("name,col,row,expected", CASES, ids=[f"{n}[{c},{r}]" for n, c, r, _ in CASES])
def test_seed_table_value(name, col, row, expected):
    assert computed(name, col, row) == expected


def test_stf_strat_tables_are_won_in_their_own_strat():
    """The strat-table values above are what the best-of-strats rule picks, and the basis says so."""
    _, basis = stf_strat("B", 14)
    assert "strat B (△1000)" in basis["1"] and "place 1:" in basis["1"]
    _, basis = stf_strat("C", 18)
    assert "strat C (△500)" in basis["7"] and "place 7:" in basis["7"]
