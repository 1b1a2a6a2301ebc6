"""Every worked example of the league rules (seed 003), through the pipeline's award SQL.

Each test posts one game as a league member would and reads the award from the ledger. The
expected values are the seed's own arithmetic, quoted in each test.
"""
from __future__ import annotations

from decimal import Decimal

SEASON2_DAY = "2026年11月3日"
SEASON1_DAY = "2026年9月3日"


def game(day: str, *lines: str) -> str:
    return "\n".join([day, *lines]) + "\n"


def points(office, player: str) -> Decimal:
    rows = office.query("select points from awards where player_id = ?", [player])
    assert len(rows) == 1
    return rows["points"].iloc[0]


def test_seed_example_game_posts_with_yakuman(office):
    # The seed's own 記入例 (posting example), verbatim, under season 2 rules.
    office.post("sofu-mahjong/example.txt", game(
        SEASON2_DAY, "・１位らつみ 55000", "・２位りつみ 28000", "・３位るつみ 22000", "・４位れつみ -5000",
        "らつみさんが役満、四暗刻を和了しました。"))
    assert office.run().exit_code == 0
    assert points(office, "らつみ") == Decimal("8")   # 1位 7 + 役満 1 (2nd has 28000: no 3-koro)
    assert points(office, "りつみ") == Decimal("4")
    assert points(office, "るつみ") == Decimal("2")
    assert points(office, "れつみ") == Decimal("-1")  # 飛びラスは０－１＝－１点


def test_two_busts_third_place_gets_two_minus_one(office):
    # ２人飛び時の３位は２－１＝１点 (season 2: every busted player loses 1)
    office.post("sofu-mahjong/a.txt", game(
        SEASON2_DAY, "・1位A 70000", "・2位B 33000", "・3位C -1000", "・4位D -2000"))
    office.run()
    assert points(office, "C") == Decimal("1")
    assert points(office, "D") == Decimal("-1")


def test_sankoro_top_gets_eight_and_second_gets_three(office):
    # ３コロトップの場合、７＋１＝８点獲得 / ３コロトップされた時の２位の獲得点は４－１＝３点
    office.post("sofu-mahjong/a.txt", game(
        SEASON2_DAY, "・1位A 45000", "・2位B 19900", "・3位C 18100", "・4位D 17000"))
    office.run()
    assert points(office, "A") == Decimal("8")
    assert points(office, "B") == Decimal("3")
    assert points(office, "C") == Decimal("2")
    assert points(office, "D") == Decimal("0")


def test_yakuman_and_sankoro_top_gets_nine(office):
    # 役満和了し、３コロトップだった場合、７＋１＋１＝９点獲得
    office.post("sofu-mahjong/a.txt", game(
        SEASON2_DAY, "・1位A 62000", "・2位B 15000", "・3位C 12000", "・4位D 11000",
        "Aさんが役満、国士無双を和了しました。"))
    office.run()
    assert points(office, "A") == Decimal("9")


def test_yakuman_counts_whatever_the_place(office):
    # 役満和了者には順位に関わらず１点与える: a 3rd place with a yakuman gets 2 + 1
    office.post("sofu-mahjong/a.txt", game(
        SEASON2_DAY, "・1位A 40000", "・2位B 30000", "・3位C 20000", "・4位D 10000",
        "Cさんが役満、大三元を和了しました。"))
    office.run()
    assert points(office, "C") == Decimal("3")


def test_second_exactly_20000_is_not_sankoro(office):
    # 3-koro is "２位を20000点未満にした": 20000 itself is not below 20000
    office.post("sofu-mahjong/a.txt", game(
        SEASON2_DAY, "・1位A 40000", "・2位B 20000", "・3位C 20000", "・4位D 20000"))
    office.run()
    assert points(office, "A") == Decimal("7")
    assert points(office, "B") == Decimal("4")


def test_season1_only_busted_last_loses_and_sankoro_second_keeps_four(office):
    # 【今までは飛びラスのみ減点対象】【今までは２位なら４点】; no yakuman bonus before season 2
    office.post("sofu-mahjong/a.txt", game(
        SEASON1_DAY, "・1位A 71000", "・2位B 19000", "・3位C 11000", "・4位D -1000",
        "Aさんが役満、四暗刻を和了しました。"))
    office.post("sofu-mahjong/b.txt", game(
        "2026年9月4日", "・1位A 70000", "・2位B 33000", "・3位C -1000", "・4位D -2000"))
    office.run()
    rows = office.query("select event_date, player_id, points from awards order by event_date, player_id")
    got = {(str(r.event_date), r.player_id): r.points for r in rows.itertuples()}
    assert got[("2026-09-03", "A")] == Decimal("8")   # 7 + 3-koro 1, yakuman +0 in season 1
    assert got[("2026-09-03", "B")] == Decimal("4")   # no 3-koro penalty in season 1
    assert got[("2026-09-03", "D")] == Decimal("-1")  # busted last
    assert got[("2026-09-04", "C")] == Decimal("2")   # busted 3rd: no penalty in season 1
    assert got[("2026-09-04", "D")] == Decimal("-1")


def test_basis_explains_each_component(office):
    office.post("sofu-mahjong/a.txt", game(
        SEASON2_DAY, "・1位A 64000", "・2位B 19000", "・3位C 18000", "・4位D -1000",
        "Aさんが役満、四暗刻を和了しました。"))
    office.run()
    rows = office.query("select player_id, basis from awards order by player_id")
    basis = dict(zip(rows["player_id"], rows["basis"]))
    assert basis["A"] == "1st 7, 3-koro top +1, yakuman 四暗刻 +1 = 9 [season-2]"
    assert basis["B"] == "2nd 4, 3-koro 2nd −1 = 3 [season-2]"
    assert basis["C"] == "3rd 2 = 2 [season-2]"
    assert basis["D"] == "4th 0, bust (-1000) −1 = −1 [season-2]"
