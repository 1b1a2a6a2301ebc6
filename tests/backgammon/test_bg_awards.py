"""Award = max(placing award, per-match award × matches won) × MP bonus multiplier.

Hand computations are written next to each expectation; table values are the printed ones.
"""

from __future__ import annotations

import shutil
from decimal import Decimal

import pandas as pd
import pytest

from pipelines.backgammon import compute_awards, load_rules, parse_results

CONTRACT_COLUMNS = [
    "organisation", "event_id", "event_date", "player_id", "denomination", "points",
    "rule_version", "basis", "source_file", "location",
]
EXTRA_COLUMNS = ["matches_won", "place_row", "event_name", "bracket"]


def _points(bg, rules, rows, **changes):
    data = bg.results_bytes(bg.settings(**changes), rows)
    awards, quarantine = bg.award_lines(data, rules)
    assert quarantine.empty, quarantine.to_dict("records")
    return awards.set_index("player_id")


def test_basis_example_of_the_issue(bg, rules):
    # Intermediate, 24 players → column 24–32; 2nd = 1.00 (printed); 5 wins × .04 = 0.20; × 1.5 = 1.50
    rows = [("Winner", "1st", 5), ("Runner Up", "2nd", 5), *bg.filler(22)]
    awards = _points(bg, rules, rows, level="Intermediate", method="players", rounds=5, multiplier="1.5")
    line = awards.loc["Runner Up"]
    assert line["points"] == Decimal("1.50")
    assert line["basis"] == "Intermediate, 24 players → column 24–32, 2nd 1.00 vs 5 wins × .04 = 0.20 → 1.00 × 1.5 = 1.50"


@pytest.mark.parametrize(
    "level,place,wins,expected,why",
    [
        ("Advanced/Open", "5-8 tie", 3, "0.24", "placing 0.22 < 3 × .08 = 0.24"),
        ("Advanced/Open", "4th", 5, "0.40", "placing 0.38 < 5 × .08 = 0.40"),
        ("Advanced/Open", "3/4 tie", 6, "0.48", "placing 0.44 < 6 × .08 = 0.48"),
        ("Intermediate", "5-8 tie", 5, "0.20", "placing 0.16 < 5 × .04 = 0.20"),
        ("Intermediate", "4th", 7, "0.28", "placing 0.27 < 7 × .04 = 0.28"),
        ("Novice", "5-8 tie", 4, "0.08", "placing 0.06 < 4 × .02 = 0.08"),
        ("Novice", "4th", 6, "0.12", "placing 0.11 < 6 × .02 = 0.12"),
        ("Intermediate", "5-8 tie", 4, "0.16", "placing 0.16 = 4 × .04 = 0.16"),
        ("Advanced/Open", "5-8 tie", 2, "0.22", "placing 0.22 > 2 × .08 = 0.16"),
    ],
)
def test_per_match_award_beats_placing_when_higher(bg, rules, level, place, wins, expected, why):
    # 8 players, 7 rounds, method players → column 1 (1 to 11)
    rows = [("Player", place, wins), *bg.filler(7)]
    awards = _points(bg, rules, rows, level=level, method="players", rounds=7)
    assert awards.loc["Player", "points"] == Decimal(expected), why


def test_per_match_wins_in_the_basis(bg, rules):
    rows = [("Player", "5-8 tie", 3), *bg.filler(7)]
    awards = _points(bg, rules, rows, level="Advanced/Open", method="players", rounds=5)
    assert awards.loc["Player", "basis"] == (
        "Advanced/Open, 8 players → column 1–11, 5-8 tie 0.22 vs 3 wins × .08 = 0.24 → 0.24 × 1 = 0.24"
    )


def test_players_without_place_get_only_the_per_match_award(bg, rules):
    # places below the 5-8 tie row: no placing award; Advanced 4 wins × .08 = 0.32; 0 wins → 0.00
    rows = [("Ninth", None, 4), ("Tenth", None, 0), ("Eleventh", None, 1), *bg.filler(9)]
    awards = _points(bg, rules, rows, level="Advanced/Open", method="players", rounds=5)
    assert awards.loc["Ninth", "points"] == Decimal("0.32")
    assert awards.loc["Tenth", "points"] == Decimal("0.00")
    assert awards.loc["Eleventh", "points"] == Decimal("0.08")
    assert "no place vs 4 wins × .08 = 0.32" in awards.loc["Ninth", "basis"]
    assert pd.isna(awards.loc["Ninth", "place_row"])


@pytest.mark.parametrize(
    "multiplier,expected,why",
    [
        ("1", "0.63", "Intermediate 2nd, 1 to 11: 0.63 × 1"),
        ("1.5", "0.95", "0.63 × 1.5 = 0.945 → 0.95 (half-up)"),
        ("2", "1.26", "0.63 × 2 = 1.26"),
        ("3", "1.89", "0.63 × 3 = 1.89"),
        ("1.25", "0.79", "0.63 × 1.25 = 0.7875 → 0.79"),
    ],
)
def test_multiplier_applies_last(bg, rules, multiplier, expected, why):
    rows = [("Winner", "1st", 3), ("Second", "2nd", 2), *bg.filler(6)]
    awards = _points(bg, rules, rows, level="Intermediate", method="players", rounds=3, multiplier=multiplier)
    assert awards.loc["Second", "points"] == Decimal(expected), why


def test_multiplier_applies_to_the_per_match_award_too(bg, rules):
    # Advanced 5-8 tie 0.22 vs 5 × .08 = 0.40 → 0.40 × 1.5 = 0.60
    rows = [("Player", "5-8 tie", 5), *bg.filler(7)]
    awards = _points(bg, rules, rows, level="Advanced/Open", method="players", rounds=5, multiplier="1.5")
    assert awards.loc["Player", "points"] == Decimal("0.60")
    assert awards.loc["Player", "basis"].endswith("→ 0.40 × 1.5 = 0.60")


@pytest.mark.parametrize(
    "level,place,players,multiplier,expected,why",
    [
        ("Novice", "5-8 tie", 15, "2.5", "0.23", "0.09 × 2.5 = 0.225 → 0.23 (RULES: 0.225 → 0.23)"),
        ("Novice", "3/4 tie", 70, "2.75", "1.05", "0.38 × 2.75 = 1.045 → 1.05 (RULES: 1.045 → 1.05)"),
        ("Intermediate", "5-8 tie", 15, "1.5", "0.29", "0.19 × 1.5 = 0.285 → 0.29 (half-even would give 0.28)"),
        ("Advanced/Open", "1/2 tie", 8, "1.5", "1.97", "1.31 × 1.5 = 1.965 → 1.97"),
    ],
)
def test_rounding_half_up_once_at_the_end(bg, rules, level, place, players, multiplier, expected, why):
    rows = [("Player", place, 0), *bg.filler(players - 1)]
    awards = _points(bg, rules, rows, level=level, method="players", rounds=3, multiplier=multiplier)
    line = awards.loc["Player"]
    assert line["points"] == Decimal(expected), why
    assert line["basis"].endswith(f", rounded half-up to {expected}")


def test_tied_players_each_get_the_tie_row(bg, rules):
    # Novice, 9 players → column 1: 1/2 tie 0.38 each, 3/4 tie 0.13 each (the printed tie rows)
    rows = [("A", "1/2 tie", 3), ("B", "1/2 tie", 3), ("C", "3/4 tie", 2), ("D", "3/4 tie", 1), *bg.filler(5)]
    awards = _points(bg, rules, rows, level="Novice", method="players", rounds=4)
    assert [awards.loc[p, "points"] for p in "ABCD"] == [Decimal("0.38"), Decimal("0.38"), Decimal("0.13"), Decimal("0.13")]


def test_multiplier_defaults_to_one(bg, rules):
    rows = [("Winner", "1st", 3), *bg.filler(7)]
    awards = _points(bg, rules, rows, level="Novice", method="players", rounds=3, multiplier=None)
    assert awards.loc["Winner", "points"] == Decimal("0.50")


def test_award_frame_contract(bg, rules):
    rows = [("Winner", "1st", 3), ("Member 1042", None, 1), *bg.filler(6)]
    awards, quarantine = bg.award_lines(bg.results_bytes(bg.settings(level="Novice", rounds=3), rows), rules)
    assert quarantine.empty
    assert list(awards.columns) == CONTRACT_COLUMNS + EXTRA_COLUMNS
    assert set(awards.columns) == set(CONTRACT_COLUMNS + EXTRA_COLUMNS)
    assert str(awards["event_date"].dtype).startswith("datetime64")
    assert (awards["denomination"] == "club_mp").all()
    assert (awards["rule_version"] == "ucmp-1").all()
    assert (awards["organisation"] == "testclub").all()
    assert (awards["event_id"] == "testclub/2025-05-06/test-night/main").all()
    assert all(isinstance(p, Decimal) and p.as_tuple().exponent == -2 for p in awards["points"])
    line = awards.set_index("player_id").loc["Member 1042"]
    assert (line["source_file"], line["location"], line["matches_won"]) == ("test.csv", "line 10", 1)


def test_event_id_is_stable_and_derived_from_the_event(bg, rules):
    rows = [("Winner", "1st", 3), *bg.filler(3)]
    data = bg.results_bytes(bg.settings(event="Tuesday Night — Open!", bracket="Consolation"), rows)
    first, _ = parse_results("a.csv", data, rules=rules)
    again, _ = parse_results("other/path.csv", data, rules=rules)
    assert first["events"]["event_id"].tolist() == ["testclub/2025-05-06/tuesday-night-open/consolation"]
    assert again["events"]["event_id"].tolist() == first["events"]["event_id"].tolist()


def test_a_batch_of_events_equals_each_event_alone(bg, rules):
    files = [
        bg.results_bytes(bg.settings(event="One", level="Advanced/Open", multiplier="2"),
                         [("A", "1st", 4), ("B", "2nd", 3), *bg.filler(20)]),
        bg.results_bytes(bg.settings(event="Two", level="Novice", method="rounds", rounds="7"),
                         [("A", "3rd", 5), ("C", "1st", 7), *bg.filler(3)]),
        bg.results_bytes(bg.settings(event="Three", level="Intermediate", method="max", multiplier="1.5"),
                         [("B", "5-8 tie", 4), ("C", None, 4), *bg.filler(40)]),
    ]
    parsed = [parse_results(f"f{i}.csv", d, rules=rules)[0] for i, d in enumerate(files)]
    alone = pd.concat([compute_awards(t["events"], t["players"], rules) for t in parsed], ignore_index=True)
    batch = compute_awards(
        pd.concat([t["events"] for t in parsed], ignore_index=True),
        pd.concat([t["players"] for t in parsed], ignore_index=True),
        rules,
    )
    key = ["event_id", "player_id"]
    pd.testing.assert_frame_equal(
        alone.sort_values(key, ignore_index=True), batch.sort_values(key, ignore_index=True)
    )
    got = batch.set_index(key)["points"]
    # One: Advanced, 22 players → column 12–23: 1st 2.00 × 2 = 4.00; 2nd 1.00 × 2 = 2.00
    assert got[("testclub/2025-05-06/one/main", "A")] == Decimal("4.00")
    assert got[("testclub/2025-05-06/one/main", "B")] == Decimal("2.00")
    # Two: Novice, 7 rounds → column 7+: 1st 1.50; 3rd 0.50 vs 5 × .02 = 0.10 → 0.50
    assert got[("testclub/2025-05-06/two/main", "C")] == Decimal("1.50")
    assert got[("testclub/2025-05-06/two/main", "A")] == Decimal("0.50")
    # Three: Intermediate, 42 players (33 to 64) vs 4 rounds → column 4: 5-8 tie 0.31 vs 0.16 → 0.31 × 1.5 = 0.465 → 0.47
    assert got[("testclub/2025-05-06/three/main", "B")] == Decimal("0.47")
    # ... no place: 4 × .04 = 0.16 × 1.5 = 0.24
    assert got[("testclub/2025-05-06/three/main", "C")] == Decimal("0.24")


def test_sample_championship_hand_computed(bg, rules):
    # Advanced/Open, 12 players (column 12–23) vs 5 rounds (column 5 rounds): max → column 3.
    # Printed column 3: 1st 2.50, 2nd 1.25, 3rd 0.83, 4th 0.55, 5-8 tie 0.31; per match .08; × 2.
    data = (bg.SAMPLES / "2025" / "2025-03-04-march-championship.csv").read_bytes()
    awards, quarantine = bg.award_lines(data, rules)
    assert quarantine.empty
    expected = {
        "Rosa Quinn": "5.00",   # 2.50 vs 5 × .08 = 0.40 → 2.50 × 2
        "Tariq Shah": "2.50",   # 1.25 vs 0.32
        "Uma Patel": "1.66",    # 0.83 vs 0.32
        "Victor Lund": "1.10",  # 0.55 vs 0.24
        "Wendy Ross": "0.62",   # 0.31 vs 0.24
        "Xavier Diaz": "0.62",
        "Yusuf Ali": "0.62",    # 0.31 vs 0.16
        "Zoe Park": "0.64",     # 0.31 vs 4 × .08 = 0.32 → per match wins → 0.32 × 2
        "Amir Haddad": "0.48",  # no place: 3 × .08 = 0.24 × 2
        "Bella Stone": "0.32",
        "Carl Moss": "0.16",
        "Dina Fox": "0.00",
    }
    assert dict(zip(awards["player_id"], awards["points"])) == {k: Decimal(v) for k, v in expected.items()}


def test_sample_novice_night_hand_computed(bg, rules):
    # Novice, method players, 9 players → column 1: 1/2 tie 0.38, 3/4 tie 0.13, 5-8 tie 0.06, .02 a match
    data = (bg.SAMPLES / "2025" / "2025-03-18-novice-night.csv").read_bytes()
    awards, quarantine = bg.award_lines(data, rules)
    assert quarantine.empty
    expected = {"Eli Grant": "0.38", "Fay Holt": "0.38", "Gus Irwin": "0.13", "Hana Ito": "0.13",
                "Ian Jarvis": "0.06", "Jo Klein": "0.06", "Kim Lee": "0.04", "Lou Mendes": "0.00",
                "Max Novak": "0.02"}
    assert dict(zip(awards["player_id"], awards["points"])) == {k: Decimal(v) for k, v in expected.items()}


def test_rule_version_in_force_on_the_event_date(bg, tmp_path):
    """A later version (here: a made-up one paying 0.60 for Novice 1st, 1 to 11) applies from its date on."""
    rules_dir = tmp_path / "rules"
    shutil.copytree(bg.ROOT / "data" / "rules" / "backgammon", rules_dir)
    for name in ["placing_awards.csv", "match_awards.csv", "columns.csv", "place_rows.csv", "elimination_places.csv"]:
        path = rules_dir / name
        lines = path.read_text().splitlines()
        new = [ln.replace("ucmp-1,", "test-2,", 1) for ln in lines[1:]]
        if name == "placing_awards.csv":
            new = [ln.replace(",Novice,1st,1,0.50", ",Novice,1st,1,0.60") for ln in new]
        path.write_text("\n".join(lines + new) + "\n")
    with (rules_dir / "rule_versions.csv").open("a") as f:
        f.write("test-2,2026-01-01,ROUND_HALF_UP,0.01,test,a later version\n")
    rules = load_rules(rules_dir)
    rows = [("Winner", "1st", 3), *bg.filler(7)]
    old = bg.award_lines(bg.results_bytes(bg.settings(level="Novice", date="2025-12-31"), rows), rules)[0]
    new = bg.award_lines(bg.results_bytes(bg.settings(level="Novice", date="2026-01-01"), rows), rules)[0]
    winner = old.set_index("player_id").loc["Winner"]
    assert (winner["rule_version"], winner["points"]) == ("ucmp-1", Decimal("0.50"))
    winner = new.set_index("player_id").loc["Winner"]
    assert (winner["rule_version"], winner["points"]) == ("test-2", Decimal("0.60"))


def test_an_empty_batch_gives_an_empty_typed_frame(rules):
    from pipelines.backgammon.frames import empty_tables

    tables = empty_tables("events", "players")
    awards = compute_awards(tables["events"], tables["players"], rules)
    assert awards.empty and list(awards.columns) == CONTRACT_COLUMNS + EXTRA_COLUMNS
    assert str(awards["event_date"].dtype).startswith("datetime64")
