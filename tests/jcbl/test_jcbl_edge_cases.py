"""Edge cases the seed implies, with expected values worked out by hand from the formulas."""
from __future__ import annotations

from decimal import Decimal

import pandas as pd
import pytest

from jcbl_helpers import awards, by_entrant, components, field, rules
from pipelines.jcbl import JcblInputError, check_event, compute_awards, field_cut, make_event, winning_vp

D = Decimal
DATE = "2024-06-02"
CCG3 = dict(event_id="ccg", event_date=DATE, kind="ccg_pairs", class_level=3, sessions=1, boards_per_session=24)
STF = dict(event_id="stf", event_date=DATE, kind="stf_pairs", sessions=2, boards_per_session=26,
           strats=[("A", None), ("B", 1000), ("C", 500)])


@pytest.mark.parametrize("n,cut", [(1, 1), (2, 1), (3, 2), (6, 3), (9, 4), (10, 4), (12, 5), (14, 5), (15, 6), (20, 7), (30, 11), (54, 19)])
def test_field_cut_rounds_up(n, cut):
    assert field_cut(n, D("0.35")) == cut


def ccg(n, ranks=None, pcts=None):
    st = field("pair", n, session_1_pct=pcts or D(50))
    if ranks:
        st["rank"] = ranks
    return components(CCG3, st)


def test_ccg_field_between_printed_columns():
    # 15 pairs: top 6 paid; 0.04 × 55 × ratio × 7/16
    got = by_entrant(ccg(15), "placing")
    expected = {"P1": "0.96", "P2": "0.67", "P3": "0.48", "P4": "0.39", "P5": "0.31", "P6": "0.25"}  # 0.9625, 0.67375, 0.48125, 0.385, 0.308, 0.2464
    assert got == {k: D(v) for k, v in expected.items()}


def test_tie_splits_the_sum_of_the_places():
    # 20 pairs, two pairs 2nd=: (0.735 + 0.525) / 2 = 0.63 each; the next pair is 4th
    got = by_entrant(ccg(20, ranks=[1, 2, 2] + list(range(4, 21))), "placing")
    assert got["P2"] == got["P3"] == D("0.63")
    assert got["P4"] == D("0.42")


def test_tie_straddling_the_cut_pools_the_in_cut_awards():
    # 10 pairs, top 4 paid. 4th= with two pairs: (0.35 + 0) / 2 = 0.175 → 0.18
    got = by_entrant(ccg(10, ranks=[1, 2, 3, 4, 4, 6, 7, 8, 9, 10]), "placing")
    assert got["P4"] == got["P5"] == D("0.18")
    # three pairs 3rd=: (0.4375 + 0.35 + 0) / 3 = 0.2625 → 0.26
    got = by_entrant(ccg(10, ranks=[1, 2, 3, 3, 3, 6, 7, 8, 9, 10]), "placing")
    assert got["P3"] == got["P4"] == got["P5"] == D("0.26")
    assert "P6" not in got
    basis = ccg(10, ranks=[1, 2, 3, 3, 3, 6, 7, 8, 9, 10])
    assert "places 3–5 tied (3 pairs, top 4 paid)" in basis[basis["entrant"] == "P3"]["basis"].iloc[0]


def test_tie_entirely_outside_the_cut_gets_nothing():
    got = by_entrant(ccg(10, ranks=[1, 2, 3, 4, 5, 5, 7, 8, 9, 10]), "placing")
    assert set(got) == {"P1", "P2", "P3", "P4"}


@pytest.mark.parametrize("class_level,expected", [
    # 30 pairs: raw 0.02×30×0.7^(p−1)×k/2, cap 1.00×0.7^(p−1)
    (3, ["0.90", "0.63", "0.44", "0.31", "0.22", "0.15", "0.11", "0.07", "0.05", "0.04", "0.03"]),
    (4, ["1.00", "0.70", "0.49", "0.34", "0.24", "0.17", "0.12", "0.08", "0.06", "0.04", "0.03"]),
    (5, ["1.00", "0.70", "0.49", "0.34", "0.24", "0.17", "0.12", "0.08", "0.06", "0.04", "0.03"]),
    (1, ["0.30", "0.21", "0.15", "0.10", "0.07", "0.05", "0.04", "0.02", "0.02", "0.01", "0.01"]),
])
def test_weekly_pairs_classes_and_caps(class_level, expected):
    got = by_entrant(components(dict(event_id="w", event_date=DATE, kind="weekly_pairs", class_level=class_level),
                                field("pair", 30)), "placing")
    assert [got.get(f"P{p}", D(0)) for p in range(1, 12)] == [D(v) for v in expected]


def test_weekly_class5_teams_hit_the_caps():
    # 18 teams class 5: 0.04×18×2.5 = 1.8 → 1.00; place 7: 0.72×0.117649×2.5 = 0.21 → cap 0.117649 → 0.12
    lines = components(dict(event_id="w", event_date=DATE, kind="weekly_teams", class_level=5), field("team", 18))
    got = by_entrant(lines, "placing")
    assert got["T1"] == D("1.00") and got["T7"] == D("0.12")
    assert "min(" in lines[lines["entrant"] == "T1"]["basis"].iloc[0]


def test_weekly_tie_under_caps_pools_capped_place_awards():
    # class 5, 30 pairs, 1st= two pairs: (1.00 + 0.70)/2 = 0.85 (caps apply per place, then pooled)
    st = field("pair", 30)
    st["rank"] = [1, 1] + list(range(3, 31))
    got = by_entrant(components(dict(event_id="w", event_date=DATE, kind="weekly_pairs", class_level=5), st), "placing")
    assert got["P1"] == got["P2"] == D("0.85")


def stf_session(scores, holdings):
    st = field("pair", len(scores), session_1_pct=[D(s) for s in scores], session_2_pct=D(30))
    hold = pd.DataFrame({"player_id": [p for ps in st["players"] for p in ps.split()],
                         "masterpoints": [D(h) for h in holdings for _ in range(2)]})
    return by_entrant(components(STF, st, hold), "session_1")


def test_below_50_in_a_lower_strat_top_half_is_paid():
    # 4 strat-C pairs (0 MP) under 4 open pairs: P5 has 45% and is 1st of 4 in strat C → 0.0015×26×5 = 0.195 → 0.20
    got = stf_session(["70", "60", "55", "52", "45", "44", "30", "30"], [5000] * 4 + [0] * 4)
    assert got["P5"] == D("0.20")
    assert got["P6"] == D("0.16")  # 44%: 2nd of 4 in strat C, top half: 0.0015×26×4 = 0.156
    # the same 45% for an open-only pair is not paid
    got = stf_session(["70", "60", "55", "52", "45", "44", "30", "30"], [5000] * 8)
    assert "P5" not in got and "P6" not in got


def test_below_50_outside_the_lower_strat_top_half_is_not_paid():
    # strat B of 5 pairs: 2.5 → places 1-2 are the top half; the 3rd (48%) is not paid
    got = stf_session(["70", "49", "48.5", "48", "47", "46"], [5000] + [700] * 5)
    assert got["P2"] == D("0.35") and got["P3"] == D("0.33")  # 0.351, 0.3315
    assert "P4" not in got


def test_exactly_40_percent_gets_nothing_even_in_the_lower_strat_top_half():
    got = stf_session(["70", "40", "39", "38"], [5000, 0, 0, 0])
    assert "P2" not in got
    got = stf_session(["70", "40.5", "39", "38"], [5000, 0, 0, 0])
    assert got["P2"] == D("0.02")  # 0.0015×26×0.5 = 0.0195


def test_exactly_50_percent_is_paid_in_any_strat():
    got = stf_session(["70", "60", "50", "49"], [5000] * 4)
    assert got["P3"] == D("0.39") and "P4" not in got


def test_stf_strat_rerank_and_best_applies():
    # 6 pairs: P1,P2 open players; P3..P6 strat B (700 MP). In strat B P3 is 1st of 4.
    st = field("pair", 6, session_1_pct=D(50), session_2_pct=D(50))
    hold = pd.DataFrame({"player_id": [p for ps in st["players"] for p in ps.split()],
                         "masterpoints": [D(5000)] * 4 + [D(700)] * 8})
    lines = components(STF, st, hold)
    got = by_entrant(lines, "placing")
    # strat A (6 pairs, 3 paid): 1st 2.08, 2nd 1.456→1.46, 3rd 1.04; strat B (4 pairs, 2 paid): 1st 0.08×24×13/16 = 1.56
    # P3: A 3rd 0.08×26×0.5 = 1.04 < B 1st 1.56; P4: A 4th is outside A's top 3, B 2nd of 4 (top 2):
    # 0.08×24×0.7×13/16 = 1.092 → 1.09; P5, P6: outside both cuts
    assert got == {"P1": D("2.08"), "P2": D("1.46"), "P3": D("1.56"), "P4": D("1.09")}
    assert "strat B" in lines[lines["entrant"] == "P3"]["basis"].iloc[0]


def test_team_of_five_or_six_all_get_the_award():
    st = field("team", 10, winning_vp=[D(100)] * 10)
    st.loc[0, "players"] = "A1 A2 A3 A4 A5"
    st.loc[1, "players"] = "B1 B2 B3 B4 B5 B6"
    lines = awards(dict(event_id="ec", event_date=DATE, kind="even_chance_teams", boards_per_match=6, vp_scale=20), st)
    first = lines[lines["player_id"].str.startswith("A")]
    second = lines[lines["player_id"].str.startswith("B")]
    assert len(first) == 5 * 2 and len(second) == 6 * 2
    assert set(first[first["denomination"] == "RP"]["points"]) == {D("2.75")}
    assert set(second[second["denomination"] == "RP"]["points"]) == {D("1.38")}
    assert set(second[second["denomination"] == "BP"]["points"]) == {D("1.17")}


def test_winning_vp_counts_only_matches_won():
    vps = pd.Series(["15.20 4.80 10 12.5 20", "", "10.01 9.99"])
    assert list(winning_vp(vps, D(20))) == [D("47.70"), D(0), D("10.01")]
    st = field("team", 4, match_vps=["15 15 15 5", "5 5 5 15", "10 10 10 10", "12 8 12 8"])
    lines = components(dict(event_id="ec", event_date=DATE, kind="even_chance_teams", boards_per_match=6, vp_scale=20), st)
    got = by_entrant(lines, "winning_vp")
    assert got == {"T1": D("0.53"), "T2": D("0.18"), "T4": D("0.28")}  # 45, 15, 24 VP × 0.01171875


def test_weekday_coefficient_only_where_the_kind_says():
    ec = dict(event_id="ec", event_date=DATE, kind="even_chance_teams", boards_per_match=6, vp_scale=20)
    got = by_entrant(components(ec | {"weekday": True}, field("team", 10, winning_vp=D(0))), "placing")
    assert got["T1"] == D("2.41")  # 2.75 × 14/16 = 2.40625
    wk = dict(event_id="w", event_date=DATE, kind="weekly_pairs", class_level=2, weekday=True)
    assert by_entrant(components(wk, field("pair", 10)), "placing")["P1"] == D("0.20")


def test_output_columns_and_types():
    lines = awards(CCG3, field("pair", 10, session_1_pct=[D("62.5")] + [D(50)] * 9))
    assert list(lines.columns) == ["organisation", "event_id", "event_date", "player_id", "denomination", "points",
                                   "rule_version", "basis", "source_file", "location"]
    assert str(lines["event_date"].dtype).startswith("datetime64")
    assert all(isinstance(p, Decimal) and p.as_tuple().exponent == -2 for p in lines["points"])
    p1 = lines[lines["player_id"] == "P1a"]
    assert list(p1["denomination"]) == ["BP"]
    # placing 0.875 → 0.88 and session 0.0015×24×22.5×7/16 = 0.354375 → 0.35, added: 1.23
    assert p1["points"].iloc[0] == D("1.23")
    assert "CCG pairs class 3, placing, 10 pairs, place 1: 0.04×50×1×7/16 = 0.88" in p1["basis"].iloc[0]
    assert set(lines["rule_version"]) == {"jcbl-2018-12"}


def test_problems_are_reported_not_guessed():
    # SRR pairs needs flights, sessions and boards; a 55-pair field needs ratio places beyond 19
    ev = make_event(event_id="srr", event_date=DATE, kind="srr_pairs", sessions=2, boards_per_session=24,
                    boards_per_match=6, vp_scale=30, team_flights=6, pair_flights=2)
    st = field("pair", 55, flight="A", session_1_pct=D(50), session_2_pct=D(50))
    q = check_event(ev, st, None, rules())
    assert any("ratio list" in r for r in q["reason"])
    with pytest.raises(JcblInputError) as e:
        compute_awards(ev, st, None, rules())
    assert len(e.value.quarantine) == len(q)
    st = field("pair", 10, flight="", session_1_pct=D(50))
    reasons = " | ".join(check_event(ev, st, None, rules())["reason"])
    assert "expected a flight A/B for pair P1, found nothing" in reasons
    assert "expected the session 2 percentage of pair P1" in reasons
    q = check_event(make_event(event_id="old", event_date="2010-01-01", kind="weekly_pairs", class_level=2), field("pair", 4), None, rules())
    assert "no JCBL rule version in effect on 2010-01-01" in q["reason"].iloc[0]
    q = check_event(make_event(event_id="w", event_date=DATE, kind="weekly_pairs"), field("pair", 4), None, rules())
    assert "needs a class" in q["reason"].iloc[0]
