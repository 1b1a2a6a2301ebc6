"""The method choice: column by players, by rounds, or the higher of the two.

Printed column headings: '1 to 11 | 12 to 23 | 24 to 32 | 33 to 64 | over 64' players and
'3 | 4 | 5 | 6 | 7+' rounds. Fewer than 3 rounds uses the 3-round column (our decision, RULES §2).
Expected points are the printed Advanced/Open '1st' row: 1.75 2.00 2.50 3.00 4.00, and the
Novice '2nd' row: 0.25 0.38 0.50 0.63 0.75.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

ADVANCED_FIRST = {1: "1.75", 2: "2.00", 3: "2.50", 4: "3.00", 5: "4.00"}
NOVICE_SECOND = {1: "0.25", 2: "0.38", 3: "0.50", 4: "0.63", 5: "0.75"}


def _winner_points(bg, rules, *, players: int, rounds: int, method: str, level="Advanced/Open", place="1st"):
    rows = [("Winner", place, 1), *bg.filler(players - 1)]
    data = bg.results_bytes(bg.settings(level=level, method=method, rounds=rounds), rows)
    awards, quarantine = bg.award_lines(data, rules)
    assert quarantine.empty, quarantine.to_dict("records")
    line = awards.set_index("player_id").loc["Winner"]
    return line["points"], line["basis"]


@pytest.mark.parametrize(
    "players,column",
    [(1, 1), (2, 1), (11, 1), (12, 2), (23, 2), (24, 3), (32, 3), (33, 4), (64, 4), (65, 5), (80, 5)],
)
def test_column_by_players_at_each_boundary(bg, rules, players, column):
    points, basis = _winner_points(bg, rules, players=players, rounds=3, method="players")
    assert points == Decimal(ADVANCED_FIRST[column])
    assert basis.startswith(f"Advanced/Open, {players} players → column ")


@pytest.mark.parametrize(
    "rounds,column",
    [(1, 1), (2, 1), (3, 1), (4, 2), (5, 3), (6, 4), (7, 5), (8, 5), (12, 5)],
)
def test_column_by_rounds_including_fewer_than_three(bg, rules, rounds, column):
    points, basis = _winner_points(bg, rules, players=8, rounds=rounds, method="rounds")
    assert points == Decimal(ADVANCED_FIRST[column])
    label = {1: "3 rounds", 2: "4 rounds", 3: "5 rounds", 4: "6 rounds", 5: "7+ rounds"}[column]
    assert f"{rounds} rounds → column {label}," in basis


@pytest.mark.parametrize(
    "players,rounds,column",
    [
        (11, 7, 5),   # rounds win
        (65, 3, 5),   # players win
        (24, 4, 3),   # players column 3 beats rounds column 2
        (12, 6, 4),   # rounds column 4 beats players column 2
        (33, 6, 4),   # both column 4
        (11, 2, 1),   # both column 1 (fewer than 3 rounds)
        (12, 3, 2),   # boundary 11/12 decides
        (23, 5, 3),   # rounds decide
        (32, 5, 3),
        (64, 5, 4),
    ],
)
def test_method_max_takes_the_higher_column(bg, rules, players, rounds, column):
    points, _ = _winner_points(bg, rules, players=players, rounds=rounds, method="max")
    assert points == Decimal(ADVANCED_FIRST[column])


def test_method_players_ignores_rounds_and_rounds_ignores_players(bg, rules):
    by_players, _ = _winner_points(bg, rules, players=11, rounds=7, method="players")
    by_rounds, _ = _winner_points(bg, rules, players=65, rounds=3, method="rounds")
    assert by_players == Decimal("1.75")
    assert by_rounds == Decimal("1.75")


@pytest.mark.parametrize("players,column", [(11, 1), (12, 2), (23, 2), (24, 3), (32, 3), (33, 4), (64, 4), (65, 5)])
def test_novice_second_place_by_players(bg, rules, players, column):
    points, _ = _winner_points(bg, rules, players=players, rounds=4, method="players", level="Novice", place="2nd")
    assert points == Decimal(NOVICE_SECOND[column])


def test_basis_of_method_max_names_both_columns(bg, rules):
    _, basis = _winner_points(bg, rules, players=24, rounds=4, method="max")
    assert basis == (
        "Advanced/Open, max(24 players → column 24–32, 4 rounds → column 4 rounds) = column 24–32, "
        "1st 2.50 vs 1 win × .08 = 0.08 → 2.50 × 1 = 2.50"
    )
