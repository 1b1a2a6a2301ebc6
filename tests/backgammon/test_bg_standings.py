"""The points race: per club and calendar-year season, as of a date; ties share the better rank."""

from __future__ import annotations

from decimal import Decimal

import pandas as pd
import pytest

from pipelines.backgammon import backgammon_standings, compute_awards, parse_file


def _line(org, event, date, player, points, wins):
    return dict(organisation=org, event_id=f"{org}/{date}/{event}/main", event_date=pd.Timestamp(date),
                player_id=player, points=Decimal(points), matches_won=wins)


@pytest.fixture()
def lines():
    return pd.DataFrame(
        [
            _line("club-a", "e1", "2024-12-17", "Ann", "3.00", 4),   # last season
            _line("club-a", "e2", "2025-01-07", "Ann", "1.50", 3),
            _line("club-a", "e2", "2025-01-07", "Bob", "0.75", 2),
            _line("club-a", "e2", "2025-01-07", "Cat", "0.38", 1),
            _line("club-a", "e3", "2025-01-14", "Bob", "0.75", 2),
            _line("club-a", "e3", "2025-01-14", "Cat", "1.12", 3),
            _line("club-a", "e3", "2025-01-14", "Dov", "0.00", 0),
            _line("club-a", "e4", "2025-02-04", "Dov", "2.00", 4),   # after the first as_of
            _line("club-b", "e1", "2025-01-07", "Ann", "0.50", 1),   # another club: its own race
        ]
    )


def test_ties_share_the_better_rank(lines):
    table = backgammon_standings(lines, "2025-01-31")
    season = table[(table["club"] == "club-a") & (table["season"] == 2025)]
    # Ann 1.50; Bob 0.75 + 0.75 = 1.50; Cat 0.38 + 1.12 = 1.50; Dov 0.00 → 1=, 1=, 1=, 4
    assert season[["player", "rank", "rank_label", "points"]].values.tolist() == [
        ["Ann", 1, "1=", Decimal("1.50")],
        ["Bob", 1, "1=", Decimal("1.50")],
        ["Cat", 1, "1=", Decimal("1.50")],
        ["Dov", 4, "4", Decimal("0.00")],
    ]
    assert season.set_index("player")["events"].to_dict() == {"Ann": 1, "Bob": 2, "Cat": 2, "Dov": 1}
    assert season.set_index("player")["matches_won"].to_dict() == {"Ann": 3, "Bob": 4, "Cat": 4, "Dov": 0}


def test_seasons_are_calendar_years_and_as_of_cuts(lines):
    table = backgammon_standings(lines, "2025-02-28")
    last = table[(table["club"] == "club-a") & (table["season"] == 2024)]
    assert last[["player", "rank", "points", "events"]].values.tolist() == [["Ann", 1, Decimal("3.00"), 1]]
    now = table[(table["club"] == "club-a") & (table["season"] == 2025)].set_index("player")
    assert now.loc["Dov", "points"] == Decimal("2.00") and now.loc["Dov", "rank"] == 1
    assert now.loc["Ann", "rank_label"] == "2="
    assert set(table["as_of"]) == {pd.Timestamp("2025-02-28")}
    other = table[table["club"] == "club-b"]
    assert other[["player", "rank", "points"]].values.tolist() == [["Ann", 1, Decimal("0.50")]]


def test_nothing_before_the_first_event(lines):
    assert backgammon_standings(lines, "2024-01-01").empty


def test_standings_of_the_sample_inbox(bg, rules):
    events, players = [], []
    for path in sorted((bg.SAMPLES / "2025").glob("*.csv")):
        tables, _ = parse_file(path.name, path.read_bytes(), rules=rules)
        events.append(tables["events"])
        players.append(tables["players"])
    awards = compute_awards(pd.concat(events, ignore_index=True), pd.concat(players, ignore_index=True), rules)
    table = backgammon_standings(awards, "2025-03-31").set_index("player")
    # hand sums of the award lines worked out in test_bg_awards / test_bg_match_log / test_bg_quarantine
    assert table.loc["Rosa Quinn", ["rank", "points", "events", "matches_won"]].tolist() == [1, Decimal("5.00"), 1, 5]
    assert table.loc["Tariq Shah", ["rank", "points"]].tolist() == [2, Decimal("2.50")]
    assert table.loc["Mia Moreau", ["rank", "points"]].tolist() == [3, Decimal("2.25")]
    # Pia: main bracket 0.00 (lost round 1) + consolation 1.88; 0 + 3 matches won; two events
    assert table.loc["Pia Price", ["rank", "points", "events", "matches_won"]].tolist() == [4, Decimal("1.88"), 2, 3]
    # Finn: main 0.00 + consolation 0.95
    assert table.loc["Finn Fraser", ["points", "events", "matches_won"]].tolist() == [Decimal("0.95"), 2, 1]
    assert set(table["club"]) == {"ukbgclub"} and set(table["season"]) == {2025}
    # the race as of 2025-03-10 has only the championship of 2025-03-04
    early = backgammon_standings(awards, "2025-03-10")
    assert len(early) == 12


def test_points_read_back_from_the_warehouse(lines):
    """DuckDB DECIMAL(18,4) comes back as Decimal('1.5000'); text and floats are read exactly."""
    lines = lines.assign(points=lines["points"].map(lambda d: d.quantize(Decimal("0.0001"))).astype(object))
    lines.loc[0, "points"] = "3.00"
    lines.loc[1, "points"] = 1.5
    table = backgammon_standings(lines, "2025-01-31")
    season = table[(table["club"] == "club-a") & (table["season"] == 2025)].set_index("player")
    assert season["points"].to_dict() == {"Ann": Decimal("1.50"), "Bob": Decimal("1.50"),
                                          "Cat": Decimal("1.50"), "Dov": Decimal("0.00")}
