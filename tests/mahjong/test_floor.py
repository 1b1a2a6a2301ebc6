"""The benchmark's floor (`pipelines/bench/floor_mahjong.py`, issue 13) scores what the run scores.

The floor is the least work that writes the league's outputs; its time means something only if it
computes the same points. Over a generated league that crosses the change of season (season-2
from 2026-10-01: every bust -1, the 3-koro second -1, yakuman +1), its points per player and
season are compared with the awards of `pointledger run` on the same posts: two independent
readings of the same rules (Arrow arrays over the rule tables against the run's SQL)."""
from __future__ import annotations

from datetime import date, timedelta

import pyarrow.compute as pc
import pyarrow.parquet as pq

from pipelines.bench import floor_mahjong, mahjong
from pipelines.core import run as nightly
from pipelines.core.sql import fetch, open_database
from pipelines.mahjong.synth import generate_games, write_text_posts


def test_the_floor_scores_every_player_and_season_as_the_run_does(tmp_path):
    games = generate_games(40, 4_000, date(2026, 9, 21), 20, seed=11)
    # yakuman on both sides of the change of season (worth 0 in season-1, +1 in season-2)
    for day in ("2026-09-25", "2026-10-05", "2026-10-08"):
        games.loc[games.index[(games["date"] == day) & (games["rank"] == 2)][0], "yakuman"] = 1
    data = mahjong._data_dir(tmp_path)
    posts = tmp_path / "inbox" / mahjong.ORG
    write_text_posts(games, posts)
    as_of = games["date"].max().date() + timedelta(days=1)
    nightly.run(tmp_path / "inbox", tmp_path / "var", as_of, data)

    seats = floor_mahjong.seats(posts, data / "rules" / "mahjong")
    assert seats.num_rows == len(games)
    con = open_database(tmp_path / "var" / "warehouse.duckdb", read_only=True)
    try:
        run = fetch(con, "select player_id, season, (sum(points) * 100)::bigint as run_hundredths, "
                         "count(*) as games from awards where organisation = ? group by all", [mahjong.ORG])
    finally:
        con.close()
    floor = (seats.select(["player", "season", "points_hundredths"]).to_pandas()
             .groupby(["player", "season"], as_index=False)
             .agg(hundredths=("points_hundredths", "sum"), games=("points_hundredths", "size")))
    both = run.merge(floor, left_on=["player_id", "season"], right_on=["player", "season"], how="outer",
                     indicator=True)
    assert (both["_merge"] == "both").all() and len(both) == 80  # 40 players, two seasons each
    assert (both["run_hundredths"] == both["hundredths"]).all()
    assert (both["games_x"] == both["games_y"]).all()
    # the yakuman were read, not ignored by both: without their lines, season-2 has one point less
    # per yakuman of October (+1 each) and season-1 the same (0 each)
    plain = tmp_path / "without-yakuman"
    plain.mkdir()
    for post in posts.iterdir():
        lines = post.read_text(encoding="utf-8").split("\n")
        (plain / post.name).write_text("\n".join(x for x in lines if "役満" not in x), encoding="utf-8")
    october = int(games.loc[games["date"] >= "2026-10-01", "yakuman"].sum())
    assert october >= 2 and games["yakuman"].sum() > october
    without = floor_mahjong.seats(plain, data / "rules" / "mahjong").to_pandas().groupby("season")["points_hundredths"].sum()
    by_season = run.groupby("season")["run_hundredths"].sum()
    assert by_season["season-2"] - without["season-2"] == 100 * october and by_season["season-1"] == without["season-1"]

    out = tmp_path / "floor"
    pages = floor_mahjong.write_outputs(seats, out)
    assert pages == 80 and len(list((out / "players").iterdir())) == 80
    files = sorted((out / "lake").rglob("*.parquet"))
    assert [f.parent.name for f in files] == ["month=2026-09", "month=2026-10"]
    assert sum(pc.sum(pq.read_table(f)["points_hundredths"]).as_py() for f in files) == int(floor["hundredths"].sum())
