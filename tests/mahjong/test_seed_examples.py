"""Every worked example of the league rules (seed 003), through the pipeline's award SQL.

Each example is one game posted as a league member would, in a file of its own; the examples are
one night of the league (one office, one nightly run), and each test reads its own players'
awards from the ledger (the players of each example are named apart: A1 ... D1, A2 ... D2). The
expected values are the seed's own arithmetic, quoted in each test.
"""
from __future__ import annotations

from decimal import Decimal

import pytest

from office import Office

SEASON2_DAY = "2026年11月3日"
SEASON1_DAY = "2026年9月3日"


def game(day: str, *lines: str) -> str:
    return "\n".join([day, *lines]) + "\n"


def players(n: int) -> tuple[str, str, str, str]:
    return f"A{n}", f"B{n}", f"C{n}", f"D{n}"


# example number -> its post (the seed's own 記入例 verbatim, the others with players named apart)
EXAMPLES = {
    "example": game(SEASON2_DAY, "・１位らつみ 55000", "・２位りつみ 28000", "・３位るつみ 22000", "・４位れつみ -5000",
                    "らつみさんが役満、四暗刻を和了しました。"),
    "two-busts": game(SEASON2_DAY, "・1位A1 70000", "・2位B1 33000", "・3位C1 -1000", "・4位D1 -2000"),
    "sankoro": game(SEASON2_DAY, "・1位A2 45000", "・2位B2 19900", "・3位C2 18100", "・4位D2 17000"),
    "yakuman-sankoro": game(SEASON2_DAY, "・1位A3 62000", "・2位B3 15000", "・3位C3 12000", "・4位D3 11000",
                            "A3さんが役満、国士無双を和了しました。"),
    "yakuman-third": game(SEASON2_DAY, "・1位A4 40000", "・2位B4 30000", "・3位C4 20000", "・4位D4 10000",
                          "C4さんが役満、大三元を和了しました。"),
    "exactly-20000": game(SEASON2_DAY, "・1位A5 40000", "・2位B5 20000", "・3位C5 20000", "・4位D5 20000"),
    "season1-a": game(SEASON1_DAY, "・1位A6 71000", "・2位B6 19000", "・3位C6 11000", "・4位D6 -1000",
                      "A6さんが役満、四暗刻を和了しました。"),
    "season1-b": game("2026年9月4日", "・1位A6 70000", "・2位B6 33000", "・3位C6 -1000", "・4位D6 -2000"),
    "basis": game(SEASON2_DAY, "・1位A7 64000", "・2位B7 19000", "・3位C7 18000", "・4位D7 -1000",
                  "A7さんが役満、四暗刻を和了しました。"),
}


@pytest.fixture(scope="module")
def night(tmp_path_factory) -> Office:
    office = Office(tmp_path_factory.mktemp("seed-examples"))
    for name, text in EXAMPLES.items():
        office.post(f"sofu-mahjong/{name}.txt", text)
    assert office.run().exit_code == 0
    return office


def points(office, player: str) -> Decimal:
    rows = office.query("select points from awards where player_id = ?", [player])
    assert len(rows) == 1
    return rows["points"].iloc[0]


def test_seed_example_game_posts_with_yakuman(night):
    # The seed's own 記入例 (posting example), verbatim, under season 2 rules.
    assert points(night, "らつみ") == Decimal("8")   # 1位 7 + 役満 1 (2nd has 28000: no 3-koro)
    assert points(night, "りつみ") == Decimal("4")
    assert points(night, "るつみ") == Decimal("2")
    assert points(night, "れつみ") == Decimal("-1")  # 飛びラスは０－１＝－１点


def test_two_busts_third_place_gets_two_minus_one(night):
    # ２人飛び時の３位は２－１＝１点 (season 2: every busted player loses 1)
    a, b, c, d = players(1)
    assert points(night, c) == Decimal("1")
    assert points(night, d) == Decimal("-1")


def test_sankoro_top_gets_eight_and_second_gets_three(night):
    # ３コロトップの場合、７＋１＝８点獲得 / ３コロトップされた時の２位の獲得点は４－１＝３点
    a, b, c, d = players(2)
    assert points(night, a) == Decimal("8")
    assert points(night, b) == Decimal("3")
    assert points(night, c) == Decimal("2")
    assert points(night, d) == Decimal("0")


def test_yakuman_and_sankoro_top_gets_nine(night):
    # 役満和了し、３コロトップだった場合、７＋１＋１＝９点獲得
    a, b, c, d = players(3)
    assert points(night, a) == Decimal("9")


def test_yakuman_counts_whatever_the_place(night):
    # 役満和了者には順位に関わらず１点与える: a 3rd place with a yakuman gets 2 + 1
    a, b, c, d = players(4)
    assert points(night, c) == Decimal("3")


def test_second_exactly_20000_is_not_sankoro(night):
    # 3-koro is "２位を20000点未満にした": 20000 itself is not below 20000
    a, b, c, d = players(5)
    assert points(night, a) == Decimal("7")
    assert points(night, b) == Decimal("4")


def test_season1_only_busted_last_loses_and_sankoro_second_keeps_four(night):
    # 【今までは飛びラスのみ減点対象】【今までは２位なら４点】; no yakuman bonus before season 2
    a, b, c, d = players(6)
    rows = night.query("select event_date, player_id, points from awards where player_id in (select unnest(?)) "
                       "order by event_date, player_id", [[a, b, c, d]])
    got = {(str(r.event_date), r.player_id): r.points for r in rows.itertuples()}
    assert got[("2026-09-03", a)] == Decimal("8")   # 7 + 3-koro 1, yakuman +0 in season 1
    assert got[("2026-09-03", b)] == Decimal("4")   # no 3-koro penalty in season 1
    assert got[("2026-09-03", d)] == Decimal("-1")  # busted last
    assert got[("2026-09-04", c)] == Decimal("2")   # busted 3rd: no penalty in season 1
    assert got[("2026-09-04", d)] == Decimal("-1")


def test_basis_explains_each_component(night):
    a, b, c, d = players(7)
    rows = night.query("select player_id, basis from awards where player_id in (select unnest(?))", [[a, b, c, d]])
    basis = dict(zip(rows["player_id"], rows["basis"]))
    assert basis[a] == "1st 7, 3-koro top +1, yakuman 四暗刻 +1 = 9 [season-2]"
    assert basis[b] == "2nd 4, 3-koro 2nd −1 = 3 [season-2]"
    assert basis[c] == "3rd 2 = 2 [season-2]"
    assert basis[d] == "4th 0, bust (-1000) −1 = −1 [season-2]"
