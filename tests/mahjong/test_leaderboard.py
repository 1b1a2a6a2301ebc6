"""The bi-monthly leaderboard: minimum games, games bonus, average rounding, ties, snapshots."""
from __future__ import annotations

from decimal import Decimal

# Placing points 7/4/2/0 make any total easy to build: a list of places per player. Scores vary
# from game to game (the same date, players and scores twice would be one game posted twice);
# they never bust anyone or leave 2nd below 20000.


def scores(i: int) -> list[int]:
    return [40000 + 100 * i, 30000, 20000, 10000 - 100 * i]


def post_games(office, day: str, players_by_game: list[tuple[str, str, str, str]], name: str) -> None:
    lines = [day]
    for i, table in enumerate(players_by_game):
        for place, (player, score) in enumerate(zip(table, scores(i)), start=1):
            lines.append(f"・{place}位{player} {score}")
        lines.append("")
    office.post(f"sofu-mahjong/{name}.txt", "\n".join(lines))


def test_sixty_games_and_180_points_make_182(office):
    # Seed: ２ヶ月で６０戦し、ポイントが１８０点だった場合、４０戦がボーナス対象になり１８２点
    # P: 20 × 1st (140) + 20 × 3rd (40) + 20 × 4th (0) = 180 points in 60 games.
    games = [("P", "Q", "R", "S")] * 20 + [("Q", "R", "P", "S")] * 20 + [("Q", "R", "S", "P")] * 20
    post_games(office, "2026-10-05", games[:30], "d1")
    post_games(office, "2026-11-05", games[30:], "d2")
    office.run()
    row = office.query(
        "select * from mahjong_leaderboard where player_id = 'P' and as_of = date '2026-11-30'"
    ).iloc[0]
    assert (row["games"], row["points"], row["bonus"], row["total"]) == (60, Decimal("180"), Decimal("2"), Decimal("182"))
    assert row["average"] == Decimal("3.033")  # 182 / 60 = 3.0333…
    assert bool(row["eligible"])


def test_average_87_over_23_and_the_seed_erratum(office):
    # Seed: ２３戦して８７点獲得の場合、８７÷２３＝3.6086…＝3.609 (erratum: 87/23 = 3.7826… → 3.783;
    # 3.6086… is 83/23). We post both players: X with 87 points, Y with 83, in 23 games each.
    x_games = [("X", "F1", "F2", "F3")] * 9 + [("F1", "X", "F2", "F3")] * 6 + [("F1", "F2", "F3", "X")] * 8
    y_games = [("Y", "G1", "G2", "G3")] * 9 + [("G1", "Y", "G2", "G3")] * 5 + [("G1", "G2", "G3", "Y")] * 9
    post_games(office, "2026-10-10", x_games + y_games, "d1")
    office.run()
    rows = office.query("select player_id, games, total, average from mahjong_leaderboard where player_id in ('X', 'Y') order by player_id")
    assert rows["games"].tolist() == [23, 23]
    assert rows["total"].tolist() == [Decimal("87"), Decimal("83")]
    assert rows["average"].tolist() == [Decimal("3.783"), Decimal("3.609")]


def test_minimum_games_and_games_needed(office):
    post_games(office, "2026-10-10", [("A", "B", "C", "D")] * 19 + [("A", "B", "C", "E")], "d1")
    office.run()
    rows = office.query(
        "select player_id, games, eligible, rank, games_needed from mahjong_leaderboard order by player_id"
    ).set_index("player_id")
    assert rows.loc["A", "games"] == 20 and bool(rows.loc["A", "eligible"]) and rows.loc["A", "rank"] == 1
    assert rows.loc["D", "games"] == 19 and not bool(rows.loc["D", "eligible"])
    assert rows.loc["D", "games_needed"] == 1 and rows["rank"].isna()["D"]
    assert rows.loc["E", "games_needed"] == 19


def test_ties_on_the_average_share_a_rank(office):
    # A and B alternate 1st/2nd for 20 games each: both average (10×7 + 10×4)/20 = 5.5
    games = [("A", "B", "C", "D"), ("B", "A", "C", "D")] * 10
    post_games(office, "2026-10-10", games, "d1")
    office.run()
    rows = office.query("select player_id, average, rank from mahjong_leaderboard order by player_id").set_index("player_id")
    assert rows.loc["A", "average"] == rows.loc["B", "average"] == Decimal("5.5")
    assert rows.loc["A", "rank"] == rows.loc["B", "rank"] == 1
    assert rows.loc["C", "rank"] == 3  # "3", not "2": two players share 1st


def test_one_snapshot_per_month_end_and_final_at_period_end(office):
    post_games(office, "2026-10-10", [("A", "B", "C", "D")] * 2, "d1")
    post_games(office, "2026-11-10", [("D", "C", "B", "A")] * 1, "d2")
    office.run()
    rows = office.query("select as_of, games, points from mahjong_leaderboard where player_id = 'A' order by as_of")
    assert [str(d) for d in rows["as_of"]] == ["2026-10-31", "2026-11-30"]
    assert rows["games"].tolist() == [2, 3]
    assert rows["points"].tolist() == [Decimal("14"), Decimal("14")]


def test_season_one_periods_have_no_games_bonus(office):
    # 桜華杯 Aug–Sep 2026 is under season 1 rules: 40 games give no bonus.
    post_games(office, "2026-08-10", [("A", "B", "C", "D")] * 40, "d1")
    office.run()
    row = office.query("select * from mahjong_leaderboard where player_id = 'A'").iloc[0]
    assert row["period_name"] == "桜華杯" and str(row["period_start"]) == "2026-08-01"
    assert row["bonus"] == Decimal("0") and row["total"] == Decimal("280")


def test_an_edited_calendar_gives_its_periods_the_next_night(office):
    """The league's periods and snapshots are made once per process while its calendar stays as
    it is; an office that edits the calendar has the new periods in the warehouse the next night."""
    post_games(office, "2026-11-05", [("P", "Q", "R", "S")], "d1")
    office.run()
    query = ("select period, period_start, period_end from mahjong_periods "
             "where period_start <= date '2026-11-05' and period_end >= date '2026-11-05'")
    # two-month cups from the anchor 2026-06-01: June–July, August–September, October–November
    row = office.query(query).iloc[0]
    assert (row["period"], str(row["period_start"]), str(row["period_end"])) == ("2026-10", "2026-10-01", "2026-11-30")
    calendar = office.data / "calendars" / "sofu-mahjong.toml"
    text = calendar.read_text(encoding="utf-8")
    calendar.write_text(text.replace("months_per_period = 2", "months_per_period = 3")
                            .replace("anchor = 2026-06-01", "anchor = 2026-07-01"), encoding="utf-8")
    office.run()
    # three-month cups from 2026-07-01: July–September, October–December
    row = office.query(query).iloc[0]
    assert (row["period"], str(row["period_start"]), str(row["period_end"])) == ("2026-10", "2026-10-01", "2026-12-31")
    snapshots = office.query("select as_of from mahjong_snapshots where period = '2026-10' order by as_of")
    assert [str(d) for d in snapshots["as_of"]] == ["2026-10-31", "2026-11-30", "2026-12-31"]
