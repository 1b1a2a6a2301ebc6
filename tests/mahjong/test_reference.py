"""Tests of the independent reference implementation (tests/mahjong/reference.py).

1. every worked example of the seed document (003_849ac86d59ae0fd4.txt), with its arithmetic
   erratum recorded;
2. the rules and our decisions where the document is silent (RULES.md §4);
3. the text and CSV formats, including each validation failure;
4. the facts docs/mahjong-samples.md promises about the bundled sample inbox, and that
   ``make_samples.py`` reproduces it byte for byte;
5. the synthetic generator (pipelines/mahjong/synth.py) round-trips through the reference parser.
"""

from __future__ import annotations

import importlib.util
import sys
from datetime import date, timedelta
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _load_reference():
    # a unique module name: other rule systems may have their own tests/<system>/reference.py
    name = "mahjong_reference"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, HERE / "reference.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


ref = _load_reference()
D = Decimal
S1, S2 = 1, 2
INBOX = ROOT / "data" / "samples" / "inbox" / "sofu-mahjong"
ALIASES = ROOT / "data" / "aliases" / "sofu-mahjong.csv"
SEED_DOC = ROOT.parent / "shared" / "seeds" / "003_849ac86d59ae0fd4.txt"

SEED_EXAMPLE = """・１位らつみ 55000
・２位りつみ 28000
・３位るつみ 22000
・４位れつみ -5000
らつみさんが役満、四暗刻を和了しました。
↑こんな感じでお願いします。"""


def game(rows, d=date(2026, 10, 3), yakuman=None, ranked=True):
    """A valid game from [(player, score), ...] in rank order."""
    yakuman = yakuman or {}
    entries = [ref.Entry(i + 1 if ranked else None, p, s, yakuman.get(p, 0)) for i, (p, s) in enumerate(rows)]
    return ref.Game(d, entries, 1)


def pts(g, season):
    return ref.game_points(g, season)


# ============================================================================================
# 1. the seed's worked examples


def test_seed_example_game_parses_and_scores():
    games = ref.parse_text("2026/10/10\n" + SEED_EXAMPLE)
    assert games.invalid == []
    (g,) = games
    assert g.date == date(2026, 10, 10) and g.line == 2
    assert [(e.rank, e.player, e.score, e.yakuman) for e in g.entries] == [
        (1, "らつみ", 55000, 1), (2, "りつみ", 28000, 0), (3, "るつみ", 22000, 0), (4, "れつみ", -5000, 0)]
    # season 2: 1st 7 + yakuman 1; busted last 0 - 1
    assert pts(g, S2) == {"らつみ": D(8), "りつみ": D(4), "るつみ": D(2), "れつみ": D(-1)}
    # season 1: no yakuman bonus; the busted 4th place still loses 1
    assert pts(g, S1) == {"らつみ": D(7), "りつみ": D(4), "るつみ": D(2), "れつみ": D(-1)}


def test_placing_points_7_4_2_0():
    g = game([("a", 40000), ("b", 30000), ("c", 20000), ("d", 10000)])
    assert pts(g, S1) == pts(g, S2) == {"a": 7, "b": 4, "c": 2, "d": 0}


def test_busted_last_is_0_minus_1():  # 飛びラスは０－１＝－１点
    g = game([("a", 45000), ("b", 32000), ("c", 25000), ("d", -2000)])
    assert pts(g, S2)["d"] == D(-1)
    assert pts(g, S1)["d"] == D(-1)


def test_two_busts_third_gets_2_minus_1():  # ２人飛び時の３位は２－１＝１点
    g = game([("a", 58000), ("b", 45000), ("c", -1000), ("d", -2000)])
    assert pts(g, S2) == {"a": 7, "b": 4, "c": 1, "d": -1}
    # season 1 ("今までは飛びラスのみ減点対象"): only the busted 4th place loses a point
    assert pts(g, S1) == {"a": 7, "b": 4, "c": 2, "d": -1}


def test_3koro_top_gets_7_plus_1():  # ３コロトップの場合、７＋１＝８点獲得
    g = game([("a", 57400), ("b", 19600), ("c", 15200), ("d", 7800)])
    assert pts(g, S2)["a"] == pts(g, S1)["a"] == D(8)


def test_3koro_second_gets_4_minus_1_in_season_2_only():  # ２位の獲得点は４－１＝３点
    g = game([("a", 57400), ("b", 19600), ("c", 15200), ("d", 7800)])
    assert pts(g, S2)["b"] == D(3)
    assert pts(g, S1)["b"] == D(4)  # 今までは２位なら４点


def test_yakuman_and_3koro_top_gets_7_plus_1_plus_1():  # ７＋１＋１＝９点獲得
    g = game([("a", 61000), ("b", 19000), ("c", 12000), ("d", 8000)], yakuman={"a": 1})
    assert pts(g, S2) == {"a": 9, "b": 3, "c": 2, "d": 0}
    assert pts(g, S1) == {"a": 8, "b": 4, "c": 2, "d": 0}  # no yakuman bonus before season 2


def _games_for(player, specs, start=date(2026, 10, 1)):
    """One game per spec on consecutive days; spec = the player's seat: '2nd', '3koro-2nd', '4th'."""
    out = []
    for i, kind in enumerate(specs):
        d = start + timedelta(days=i % 60)
        if kind == "2nd":
            rows = [("x1", 40000), (player, 30000), ("x2", 20000), ("x3", 10000)]
        elif kind == "3koro-2nd":
            rows = [("x1", 57400), (player, 19600), ("x2", 15200), ("x3", 7800)]
        elif kind == "4th":
            rows = [("x1", 40000), ("x2", 30000), ("x3", 20000), (player, 10000)]
        else:
            raise ValueError(kind)
        out.append(game(rows, d))
    return out


def test_60_games_180_points_gives_182():  # ６０戦し、ポイントが１８０点だった場合…１８２点
    games = _games_for("p", ["3koro-2nd"] * 60)  # 60 × 3 = 180 points
    row = next(r for r in ref.leaderboard(games, date(2026, 10, 1), date(2026, 11, 30)) if r.player == "p")
    assert (row.games, row.points, row.bonus, row.total) == (60, D(180), 2, D(182))
    assert row.average == D("3.033")  # 182 / 60 = 3.0333…


# The document: "(２３戦して８７点獲得の場合、８７÷２３＝3.6086…＝3.609となる)".
ERRATUM_87_23 = {
    "document_prints": D("3.609"),  # and the unrounded "3.6086…"
    "correct": D("3.783"),  # 87 / 23 = 3.78260…
    "why": "arithmetic slip in the document: 3.6086… is 83/23, not 87/23; the rounding "
           "step it shows (3.6086… -> 3.609, half-up to 3 decimals) is right",
}


def test_87_points_in_23_games_erratum():
    games = _games_for("p", ["2nd"] * 21 + ["3koro-2nd", "4th"])  # 84 + 3 + 0 = 87 points
    row = next(r for r in ref.leaderboard(games, date(2026, 10, 1), date(2026, 11, 30)) if r.player == "p")
    assert (row.games, row.points, row.bonus) == (23, D(87), 0)
    assert row.average == ERRATUM_87_23["correct"]
    assert row.average != ERRATUM_87_23["document_prints"]
    # where the printed number comes from, and that the rounding rule agrees with the document
    assert ref.round_half_up(Fraction(83, 23), 3) == ERRATUM_87_23["document_prints"]
    assert str(Fraction(83, 23).numerator / Fraction(83, 23).denominator).startswith("3.6086")


def test_seed_document_text_is_what_the_tests_quote():
    if not SEED_DOC.exists():
        pytest.skip("the seed documents are not next to this clone")
    text = SEED_DOC.read_text(encoding="utf-8")
    assert SEED_EXAMPLE in text
    assert "８７÷２３＝3.6086…＝3.609" in text
    assert "２人飛び時の３位は２－１＝１点" in text and "７＋１＋１＝９点獲得" in text
    assert "４－１＝３点" in text and "１８２点" in text
    # the example of the document parses as the example game
    games = ref.parse_text("2026-10-10\n" + text)
    assert len(games) == 2 and games[0].key() == games[1].key()  # the document repeats itself


# ============================================================================================
# 2. rules and decisions


def test_3koro_needs_2nd_below_20000():  # ２位を20000点未満にしたトップ
    at = game([("a", 50000), ("b", 20000), ("c", 18000), ("d", 12000)])
    below = game([("a", 50100), ("b", 19900), ("c", 18000), ("d", 12000)])
    assert pts(at, S2) == {"a": 7, "b": 4, "c": 2, "d": 0}
    assert pts(below, S2) == {"a": 8, "b": 3, "c": 2, "d": 0}


def test_score_zero_is_not_a_bust():
    g = game([("a", 42000), ("b", 33000), ("c", 25000), ("d", 0)])
    assert pts(g, S1)["d"] == pts(g, S2)["d"] == D(0)


def test_three_busts_and_3koro_season_2():
    g = game([("a", 107000), ("b", -1000), ("c", -2500), ("d", -3500)])
    assert pts(g, S2) == {"a": 8, "b": 2, "c": 1, "d": -1}  # b: 4 - 1 (3-koro) - 1 (bust)
    assert pts(g, S1) == {"a": 8, "b": 4, "c": 2, "d": -1}


def test_yakuman_counts_per_yakuman_whatever_the_place():
    g = game([("a", 48000), ("b", 41000), ("c", 9000), ("d", 2000)], yakuman={"a": 2, "c": 1})
    assert pts(g, S2) == {"a": 9, "b": 4, "c": 3, "d": 0}
    busted = game([("a", 48000), ("b", 41000), ("c", 12000), ("d", -1000)], yakuman={"d": 1})
    assert pts(busted, S2)["d"] == D(0)  # 0 - 1 + 1


def test_posted_rank_order_decides_equal_scores():
    g = game([("a", 38000), ("b", 24000), ("c", 24000), ("d", 14000)])
    assert pts(g, S2) == {"a": 7, "b": 4, "c": 2, "d": 0}


def test_unranked_ties_split_placing_points():
    g = game([("a", 35000), ("b", 35000), ("c", 20000), ("d", 10000)], ranked=False)
    assert pts(g, S2) == {"a": D("5.5"), "b": D("5.5"), "c": 2, "d": 0}
    four = game([("a", 25000), ("b", 25000), ("c", 25000), ("d", 25000)], ranked=False)
    assert set(pts(four, S2).values()) == {D("3.25")}
    three = game([("a", 30000), ("b", 30000), ("c", 30000), ("d", 10000)], ranked=False)
    assert set(ref.game_points_exact(three, S2).values()) == {Fraction(13, 3), Fraction(0)}


def test_unranked_ties_split_place_awards_too():  # our decision (RULES.md: tied entrants share)
    koro = game([("a", 60000), ("b", 15000), ("c", 15000), ("d", 10000)], ranked=False)
    assert pts(koro, S2) == {"a": 8, "b": D("2.5"), "c": D("2.5"), "d": 0}  # (4 + 2 - 1) / 2
    assert pts(koro, S1) == {"a": 8, "b": 3, "c": 3, "d": 0}
    last = game([("a", 60000), ("b", 42000), ("c", -1000), ("d", -1000)], ranked=False)
    assert pts(last, S1) == {"a": 7, "b": 4, "c": D("0.5"), "d": D("0.5")}  # (2 + 0 - 1) / 2
    assert pts(last, S2) == {"a": 7, "b": 4, "c": 0, "d": 0}  # (2 + 0) / 2 - 1 each


def test_seasons():
    assert ref.season_for(date(2026, 9, 30)) == 1
    assert ref.season_for(date(2026, 10, 1)) == 2
    assert ref.season_for(date(2020, 1, 1)) == 1


@pytest.mark.parametrize("games,season,bonus", [
    (19, 2, 0), (20, 2, 0), (39, 2, 0), (40, 2, 1), (59, 2, 1), (60, 2, 2), (80, 2, 3), (60, 1, 0), (40, 1, 0),
])
def test_games_bonus(games, season, bonus):
    assert ref.games_bonus(games, season) == bonus


def test_rounding_is_half_up_to_3_places():
    assert ref.round_half_up(Fraction(1, 80), 3) == D("0.013")  # 0.0125 (half-even would say 0.012)
    assert ref.round_half_up(Fraction(287, 80), 3) == D("3.588")  # 3.5875
    assert ref.round_half_up(Fraction(-1, 80), 3) == D("-0.013")  # halves away from zero
    assert ref.round_half_up(Fraction(87, 23), 3) == D("3.783")
    assert str(ref.round_half_up(Fraction(3), 3)) == "3.000"


@pytest.mark.parametrize("d,start,end,name", [
    (date(2026, 6, 15), date(2026, 6, 1), date(2026, 7, 31), "蒼風杯"),
    (date(2026, 9, 30), date(2026, 8, 1), date(2026, 9, 30), "桜華杯"),
    (date(2026, 10, 1), date(2026, 10, 1), date(2026, 11, 30), "蒼風杯"),
    (date(2027, 1, 31), date(2026, 12, 1), date(2027, 1, 31), "桜華杯"),
    (date(2027, 2, 1), date(2027, 2, 1), date(2027, 3, 31), "蒼風杯"),
    (date(2026, 5, 31), date(2026, 4, 1), date(2026, 5, 31), "桜華杯"),
    (date(2026, 2, 1), date(2026, 2, 1), date(2026, 3, 31), "蒼風杯"),
])
def test_periods(d, start, end, name):
    assert ref.period_for(d) == (start, end, name)


def test_month_end_snapshots():
    assert ref.month_ends(date(2026, 12, 1), date(2027, 1, 31)) == [date(2026, 12, 31), date(2027, 1, 31)]


def test_leaderboard_eligibility_ranks_and_snapshots():
    def many(player, n, kind, start):
        return _games_for(player, [kind] * n, start)

    games = (many("a", 20, "2nd", date(2026, 10, 1))  # 80 / 20 = 4.000
             + many("b", 20, "2nd", date(2026, 10, 5))  # 4.000: shares rank 1
             + many("c", 21, "3koro-2nd", date(2026, 10, 1))  # 63 / 21 = 3.000
             + many("d", 19, "2nd", date(2026, 10, 1)))  # not eligible, needs 1
    rows = ref.leaderboard(games, date(2026, 10, 1), date(2026, 11, 30))
    got = [(r.player, r.rank, r.eligible, r.average, r.needed) for r in rows if r.player in "abcd"]
    # the filler player x1 wins every game (7.000, rank 1); a and b share rank 2; c is 4th
    assert rows[0].player == "x1" and rows[0].rank == 1
    assert got == [("a", 2, True, D("4.000"), 0), ("b", 2, True, D("4.000"), 0),
                   ("c", 4, True, D("3.000"), 0), ("d", None, False, D("4.000"), 1)]
    # as of 2026-10-20 b has played 16 games (Oct 5 .. Oct 20): not eligible yet
    early = {r.player: r for r in ref.leaderboard(games, date(2026, 10, 1), date(2026, 11, 30), date(2026, 10, 20))}
    assert early["b"].games == 16 and not early["b"].eligible and early["b"].rank is None
    # games outside the period do not count
    assert ref.leaderboard(games, date(2026, 12, 1), date(2027, 1, 31)) == []


def test_ties_on_the_rounded_average_share_a_rank():
    # 143.5 / 40 = 3.5875 -> 3.588 and 122 / 34 = 3.58823… -> 3.588 (as in the sample inbox)
    rows = [ref.round_half_up(Fraction(287, 2) / 40, 3), ref.round_half_up(Fraction(122, 34), 3)]
    assert rows[0] == rows[1] == D("3.588")


# ============================================================================================
# 3. formats and validation


@pytest.mark.parametrize("line,expected", [
    ("2026-11-03", date(2026, 11, 3)),
    ("2026/11/03", date(2026, 11, 3)),
    ("2026年11月3日", date(2026, 11, 3)),
    ("2026年11月3日(火)", date(2026, 11, 3)),
    ("２０２６年１１月３日（火）", date(2026, 11, 3)),
    ("２０２６/１１/０３", date(2026, 11, 3)),
    ("  2026-11-03  ", date(2026, 11, 3)),
])
def test_date_lines(line, expected):
    (g,) = ref.parse_text(f"{line}\n・１位a 40000\n・２位b 30000\n・３位c 20000\n・４位d 10000\n")
    assert g.date == expected


@pytest.mark.parametrize("score", ["-5000", "－5000", "−5000", "▲5000", "▲５０００", "－５０００", "△5000"])
def test_negative_scores(score):
    (g,) = ref.parse_text(f"2026-10-10\n・１位a 55000\n・２位b 28000\n・３位c 22000\n・４位d {score}\n")
    assert g.entries[3].score == -5000


def test_digits_full_width_or_ascii_and_chatter_ignored():
    text = """2026年10月3日(土)
お疲れ様です。本日の結果です。
今日は２位ばっかりでした。
・次回は土曜日の夜です。
役満聴牌までいったのに…

・1位a ４００００
・２位b 30000
・３位c ２００００
・4位d 10000
"""
    (g,) = ref.parse_text(text)
    assert [(e.rank, e.score) for e in g.entries] == [(1, 40000), (2, 30000), (3, 20000), (4, 10000)]
    assert g.line == 7


def test_yakuman_line_without_san_and_several_yakuman():
    text = ("2026-11-28\n・１位らつみ 48000\n・２位すずき 41000\n・３位中村 9000\n・４位佐藤花子 2000\n"
            "らつみさんが役満、四暗刻を和了しました。\nすずきが役満、国士無双を和了しました。\n")
    (g,) = ref.parse_text(text)
    assert {e.player: e.yakuman for e in g.entries} == {"らつみ": 1, "すずき": 1, "中村": 0, "佐藤花子": 0}
    assert pts(g, S2) == {"らつみ": 8, "すずき": 5, "中村": 2, "佐藤花子": 0}


def test_names_are_normalised_and_aliased():
    aliases = ref.load_aliases("alias,player_id\nけん,Ken\n田中 一郎,田中一郎\n")
    assert ref.canonical("Ｋｅｎ") == ref.canonical("　Ken　") == ref.canonical(" Ken ") == "Ken"
    assert ref.canonical("けん") == "けん"  # no alias table: a different player
    assert ref.canonical("けん", aliases) == "Ken"
    assert ref.canonical("田中　一郎", aliases) == ref.canonical("田中  一郎", aliases) == "田中一郎"
    text = "2026-10-24\n・１位けん 57400\n・２位たかし 19600\n・３位田中　一郎 15200\n・４位中村 7800\nけんさんが役満、大三元を和了しました。\n"
    (g,) = ref.parse_text(text, aliases)
    assert g.players == ["Ken", "たかし", "田中一郎", "中村"] and g.entries[0].yakuman == 1


def test_alias_can_make_a_player_appear_twice():
    aliases = ref.load_aliases("alias,player_id\nけん,Ken\n")
    games = ref.parse_text("2026-10-24\n・１位けん 40000\n・２位Ken 30000\n・３位c 20000\n・４位d 10000\n", aliases)
    assert games == [] and games.invalid[0].codes == ("duplicate_player",)


def _one_invalid(text, aliases=None):
    games = ref.parse_text(text, aliases)
    assert len(games.invalid) == 1, games.invalid
    return games, games.invalid[0]


def test_invalid_sum():
    _, bad = _one_invalid("2026-11-20\n・１位a 45000\n・２位b 30000\n・３位c 16000\n・４位d 8000\n")
    assert bad.codes == ("sum",) and bad.line == 2 and "99000" in bad.reason


def test_invalid_player_listed_twice():
    _, bad = _one_invalid("2026-11-20\n・１位a 40000\n・２位b 30000\n・３位a 20000\n・４位d 10000\n")
    assert bad.codes == ("duplicate_player",) and "'a'" in bad.reason


def test_invalid_three_rank_lines():
    _, bad = _one_invalid("2026-11-20\n・１位a 41000\n・２位b 33000\n・３位c 26000\n\nお疲れ様\n")
    assert bad.codes == ("line_count",) and (bad.line, bad.last_line) == (2, 4)


def test_invalid_yakuman_winner_not_at_the_table():
    _, bad = _one_invalid("2026-11-20\n・１位a 47300\n・２位b 27700\n・３位c 16500\n・４位d 8500\n"
                          "はるかさんが役満、国士無双を和了しました。\n")
    assert bad.codes == ("yakuman_player",) and (bad.line, bad.last_line) == (2, 6)
    assert "line 6" in bad.reason and "はるか" in bad.reason


def test_invalid_ranks_and_order():
    _, bad = _one_invalid("2026-11-20\n・１位a 40000\n・２位b 30000\n・２位c 20000\n・４位d 10000\n")
    assert bad.codes == ("ranks",)
    _, bad = _one_invalid("2026-11-20\n・１位a 30000\n・２位b 40000\n・３位c 20000\n・４位d 10000\n")
    assert bad.codes == ("order",)


def test_invalid_no_date_unreadable_line_orphan_yakuman():
    _, bad = _one_invalid("・１位a 40000\n・２位b 30000\n・３位c 20000\n・４位d 10000\n")
    assert bad.codes == ("no_date",)
    _, bad = _one_invalid("2026-11-20\n・１位a 40000\n・２位b 30000\n・３位c 2万\n・４位d 10000\n")
    assert bad.codes == ("bad_line",) and "line 4" in bad.reason
    games, bad = _one_invalid("2026-11-20\nらつみさんが役満、四暗刻を和了しました。\n")
    assert bad.codes == ("yakuman_orphan",) and bad.line == 2


def test_bad_game_does_not_block_its_neighbours():
    text = ("2026-11-20\n・１位a 40000\n・２位b 30000\n・３位c 20000\n・４位d 10000\n\n"
            "・１位a 41000\n・２位b 33000\n・３位c 26000\n\n"
            "・１位a 30000\n・２位b 30000\n・３位c 20000\n・４位d 20000\n")
    games = ref.parse_text(text)
    assert [g.line for g in games] == [2, 11] and [b.line for b in games.invalid] == [7]


def test_missing_blank_line_between_games():
    text = ("2026-11-20\n・１位a 41000\n・２位b 33000\n・３位c 26000\n"
            "・１位a 40000\n・２位b 30000\n・３位c 20000\n・４位d 10000\n")
    games = ref.parse_text(text)
    assert [g.line for g in games] == [5] and [(b.line, b.codes) for b in games.invalid] == [(2, ("line_count",))]


def test_duplicates_are_found():
    text = "2026-10-10\n" + SEED_EXAMPLE + "\n\n" + SEED_EXAMPLE + "\n"
    unique, repeats = ref.dedupe(ref.parse_text(text))
    assert len(unique) == 1 and len(repeats) == 1


def test_csv_format():
    text = """date,game,rank,player,score,yakuman
2026-10-15,1,3,やまだ,18300,
2026-10-15,1,1,Ｋｅｎ,42600,
2026-10-15,1,4, 田中  一郎 ,6900,0
2026-10-15,1,2,ぽん太,32200,1
2026-10-15,2,,Ken,35000,
2026-10-15,2,,ぽん太,35000,
2026-10-15,2,,みさき,20000,
2026-10-15,2,,すずき,10000,
"""
    aliases = ref.load_aliases("alias,player_id\n田中 一郎,田中一郎\n")
    g1, g2 = ref.parse_csv(text, aliases)
    assert g1.players == ["Ken", "ぽん太", "やまだ", "田中一郎"] and g1.line == 2 and g1.game_no == 1
    assert pts(g1, S2) == {"Ken": 7, "ぽん太": 5, "やまだ": 2, "田中一郎": 0}
    assert [e.rank for e in g2.entries] == [None] * 4
    assert pts(g2, S2) == {"Ken": D("5.5"), "ぽん太": D("5.5"), "みさき": 2, "すずき": 0}


def test_csv_invalid():
    text = """date,game,rank,player,score,yakuman
2026-10-15,1,1,a,40000,
2026-10-15,1,,b,30000,
2026-10-15,1,3,c,20000,
2026-10-15,1,4,d,10000,
2026-10-15,2,1,a,40000,
2026-10-15,2,2,b,30000,
2026-10-15,2,3,c,20000,
2026-10-15,3,1,a,x,
"""
    games = ref.parse_csv(text)
    assert games == []
    assert [(b.line, b.codes) for b in games.invalid] == [(2, ("ranks",)), (6, ("line_count",)), (9, ("bad_line",))]
    assert ref.parse_csv("date,game,player,score\n").invalid[0].codes == ("header",)


# ============================================================================================
# 4. the bundled sample inbox (docs/mahjong-samples.md)

# (file, first line or CSV game) -> points under the rules of the game's date
KEY_GAMES = {
    ("2026-08-08.txt", 10): {"やまだ": 7, "みさき": 4, "Yuki": 2, "すずき": -1},  # s1 busted last
    ("2026-08-15.txt", 35): {"たかし": 8, "佐藤花子": 4, "りつみ": 2, "Ken": 0},  # s1 3-koro: 2nd keeps 4
    ("2026-08-22.txt", 10): {"すずき": 7, "るつみ": 4, "ひろみ": 2, "ぽん太": 0},  # s1 yakuman: no bonus
    ("2026-09-05.txt", 21): {"ぽん太": 7, "らつみ": 4, "中村": 2, "れつみ": -1},  # s1 two busts
    ("2026-09-12.txt", 3): {"Ken": 7, "みさき": 4, "はるか": 2, "やまだ": 0},  # 2nd at exactly 20000
    ("2026-09-19.txt", 31): {"田中一郎": 7, "Yuki": 4, "すずき": 2, "ひろみ": 0},  # equal scores 2nd/3rd
    ("2026-09-26.txt", 31): {"るつみ": 7, "たかし": 4, "らつみ": 2, "りつみ": 0},  # 4th at exactly 0
    ("2026-09-30.txt", 14): {"みさき": 8, "ぽん太": 4, "Yuki": 2, "田中一郎": 0},  # s1 yakuman + 3-koro
    ("2026-10-01.txt", 14): {"らつみ": 7, "Ken": 4, "すずき": 2, "佐藤花子": -1},  # s2 busted last
    ("2026-10-10.txt", 18): {"らつみ": 8, "りつみ": 4, "るつみ": 2, "れつみ": -1},  # the seed's example
    ("2026-10-17.txt", 15): {"ぽん太": 7, "みさき": 4, "やまだ": 1, "Yuki": -1},  # s2 two busts
    ("2026-10-24.txt", 13): {"Ken": 8, "たかし": 3, "ひろみ": 2, "中村": 0},  # s2 3-koro
    ("2026-11-07.txt", 8): {"はるか": 7, "田中一郎": 4, "るつみ": 3, "ぽん太": 0},  # s2 yakuman by 3rd
    ("2026-11-14.txt", 32): {"ぽん太": 9, "Ken": 3, "たかし": 2, "みさき": 0},  # s2 yakuman + 3-koro
    ("2026-11-21.txt", 4): {"りつみ": 8, "すずき": 2, "Yuki": 1, "やまだ": -1},  # s2 three busts
    ("2026-11-28.txt", 27): {"らつみ": 8, "すずき": 5, "中村": 2, "佐藤花子": 0},  # s2 two yakuman
    ("2026-11-20.txt", 4): {"たかし": 7, "みさき": 4, "Yuki": 2, "やまだ": 0},  # good games of the
    ("2026-11-20.txt", 20): {"らつみ": 7, "はるか": 4, "れつみ": 2, "中村": 0},  # malformed post
    ("2026-11-20.txt", 35): {"りつみ": 7, "田中一郎": 4, "ひろみ": 2, "ぽん太": 0},
    ("2026-10-15-annex.csv", 1): {"たかし": 7, "ぽん太": 4, "らつみ": 2, "ひろみ": 0},
    ("2026-10-15-annex.csv", 2): {"Ken": D("5.5"), "ぽん太": D("5.5"), "みさき": 2, "すずき": 0},  # no ranks
    ("2026-10-15-annex.csv", 3): {"るつみ": 7, "たかし": 5, "Yuki": 2, "ぽん太": 0},  # yakuman by 2nd
    ("2026-10-15-annex.csv", 4): {"Ken": 7, "ぽん太": 4, "やまだ": 2, "田中一郎": 0},  # seat order
    ("2026-10-15-annex.csv", 5): {"みさき": 7, "たかし": 4, "りつみ": 2, "ぽん太": -1},
}

QUARANTINE = [  # (file, first line, last line, code)
    ("2026-11-20.txt", 10, 13, "sum"),
    ("2026-11-20.txt", 15, 18, "duplicate_player"),
    ("2026-11-20.txt", 25, 27, "line_count"),
    ("2026-11-20.txt", 29, 33, "yakuman_player"),
]

# final snapshots: player, games, points, bonus, average, rank (None: not eligible)
FINAL_AUG_SEP = """
らつみ 44 184 0 4.182 1|すずき 32 127 0 3.969 2|みさき 29 108 0 3.724 3|Ken 36 126 0 3.500 4|
ぽん太 36 121 0 3.361 5|たかし 38 127 0 3.342 6|Yuki 35 113 0 3.229 7|やまだ 39 124 0 3.179 8|
田中一郎 34 108 0 3.176 9|ひろみ 36 114 0 3.167 10|るつみ 34 103 0 3.029 11|りつみ 39 118 0 3.026 12|
中村 20 59 0 2.950 13|佐藤花子 31 86 0 2.774 14|れつみ 33 75 0 2.273 15|はるか 19 63 0 3.316 None|
小林 6 17 0 2.833 None|あおい 5 6 0 1.200 None|伊藤健太 3 9 0 3.000 None|ろつみ 2 4 0 2.000 None|
Mike 1 2 0 2.000 None"""
FINAL_OCT_NOV = """
ぽん太 61 251.5 2 4.156 1|たかし 39 140 0 3.590 2|Ken 40 142.5 1 3.588 3|田中一郎 34 122 0 3.588 3|
はるか 33 116 0 3.515 5|りつみ 48 161 1 3.375 6|るつみ 39 125 0 3.205 7|Yuki 41 125 1 3.073 8|
やまだ 37 112 0 3.027 9|みさき 41 121 1 2.976 10|すずき 35 104 0 2.971 11|らつみ 34 101 0 2.971 11|
ひろみ 20 58 0 2.900 13|佐藤花子 32 85 0 2.656 14|れつみ 27 71 0 2.630 15|中村 19 46 0 2.421 None|
あおい 5 22 0 4.400 None|ろつみ 5 10 0 2.000 None|伊藤健太 5 13 0 2.600 None|Mike 1 4 0 4.000 None"""


def _table(text):
    rows = []
    for item in text.replace("\n", "").split("|"):
        p, g, pts_, b, avg, rank = item.split()
        rows.append((p, int(g), D(pts_), b and int(b), D(avg), None if rank == "None" else int(rank)))
    return rows


@pytest.fixture(scope="module")
def sample():
    aliases = ref.load_aliases(ALIASES.read_text(encoding="utf-8"))
    return ref.parse_inbox(INBOX, aliases)


def test_sample_inbox_counts(sample):
    assert len(sample) == 287  # 282 from text posts, 5 from the CSV annex
    assert sum(g.source.endswith(".csv") for g in sample) == 5
    assert ref.dedupe(sample)[1] == []
    assert not [g for g in sample if g.source == "2026-09-23.txt"]  # chatter only


def test_sample_quarantine(sample):
    got = [(b.source, b.line, b.last_line, b.code) for b in sample.invalid]
    assert got == QUARANTINE
    assert all(len(b.codes) == 1 for b in sample.invalid)


def test_sample_key_games(sample):
    by_place = {(g.source, g.game_no if g.source.endswith(".csv") else g.line): g for g in sample}
    for place, expected in KEY_GAMES.items():
        g = by_place[place]
        assert pts(g, ref.season_for(g.date)) == {p: D(v) for p, v in expected.items()}, place


def test_sample_seed_example_is_verbatim():
    text = (INBOX / "2026-10-10.txt").read_text(encoding="utf-8")
    assert SEED_EXAMPLE in text
    assert text.split("\n").index("・１位らつみ 55000") + 1 == 18


def test_sample_yakuman_busts_and_3koro_in_both_seasons(sample):
    for season in (1, 2):
        gs = [g for g in sample if ref.season_for(g.date) == season]
        assert any(e.yakuman for g in gs for e in g.entries)
        assert any(sum(e.score < 0 for e in g.entries) >= 2 for g in gs)
        assert any(g.entries[1].score < ref.KORO_LIMIT for g in gs)


def test_sample_name_variants_are_one_player(sample):
    raw = {e.raw_name for g in sample for e in g.entries if e.player == "Ken"}
    assert {"Ken", "けん"} <= raw  # plus "Ｋｅｎ" / "　Ken　" as written, NFKC-equal to Ken
    text = "".join(p.read_text(encoding="utf-8") for p in sorted(INBOX.glob("*.*")))
    for spelling in ("Ｋｅｎ", "　Ken　", "けん", "田中　一郎", "田中  一郎", "ポン太"):
        assert spelling in text
    assert {"けん", "Ｋｅｎ", "ポン太", "田中 一郎"}.isdisjoint(p for g in sample for p in g.players)


@pytest.mark.parametrize("start,end,table", [
    (date(2026, 8, 1), date(2026, 9, 30), FINAL_AUG_SEP),
    (date(2026, 10, 1), date(2026, 11, 30), FINAL_OCT_NOV),
])
def test_sample_final_leaderboards(sample, start, end, table):
    rows = ref.leaderboard(sample, start, end, end)
    assert [(r.player, r.games, r.points, r.bonus, r.average, r.rank) for r in rows] == _table(table)
    for r in rows:
        assert r.total == r.points + r.bonus and r.eligible == (r.games >= 20)


def test_sample_month_end_snapshots(sample):
    aug = {r.player: r for r in ref.leaderboard(sample, date(2026, 8, 1), date(2026, 9, 30), date(2026, 8, 31))}
    oct_ = {r.player: r for r in ref.leaderboard(sample, date(2026, 10, 1), date(2026, 11, 30), date(2026, 10, 31))}
    assert sum(r.eligible for r in aug.values()) >= 1 and sum(not r.eligible for r in aug.values()) >= 5
    assert oct_["ぽん太"].games < 61 and sum(r.eligible for r in oct_.values()) >= 1


def test_make_samples_reproduces_the_committed_bytes(tmp_path):
    from pipelines.mahjong import make_samples

    files, _ = make_samples.build(tmp_path)
    produced = {p.relative_to(tmp_path).as_posix(): b for p, b in files.items()}
    committed = {p.relative_to(ROOT).as_posix(): p.read_bytes()
                 for p in sorted(list(INBOX.glob("*")) + [ALIASES])}
    assert produced.keys() == committed.keys()
    for k in produced:
        assert produced[k] == committed[k], k
    assert sum(len(b) for b in produced.values()) < 1_000_000


def test_make_samples_manifest_matches_the_key_games():
    from pipelines.mahjong import make_samples

    _, manifest = make_samples.build(Path("/nonexistent"))
    text_keys = {(f, line) for f, line in KEY_GAMES if f.endswith(".txt") and f != "2026-11-20.txt"}
    assert {(f, line) for f, line, _ in manifest} == text_keys


# ============================================================================================
# 5. the synthetic generator


@pytest.fixture(scope="module")
def synth():
    from pipelines.mahjong import synth as mod

    return mod


def test_synth_is_deterministic_and_valid(synth):
    a = synth.generate_games(60, 20_000, date(2026, 1, 1), 365, seed=7)
    b = synth.generate_games(60, 20_000, date(2026, 1, 1), 365, seed=7)
    c = synth.generate_games(60, 20_000, date(2026, 1, 1), 365, seed=8)
    assert a.equals(b) and not a.equals(c)
    assert list(a.columns) == ["date", "game_no", "rank", "player", "score", "yakuman"]
    assert len(a) == 80_000
    s = a["score"].to_numpy().reshape(-1, 4)
    assert (s.sum(axis=1) == 100_000).all() and (s % 100 == 0).all()
    assert (s[:, :-1] >= s[:, 1:]).all()
    assert (a["rank"].to_numpy().reshape(-1, 4) == [1, 2, 3, 4]).all()
    players = a["player"].to_numpy(dtype=object).reshape(-1, 4)
    assert all(len(set(row)) == 4 for row in players.tolist())
    keys = a.groupby(["date", "game_no"]).size()
    assert (keys == 4).all()
    assert 0.03 < (s[:, 3] < 0).mean() < 0.08  # busts
    assert 0.05 < (s[:, 1] < 20_000).mean() < 0.13  # 3-koro tops
    assert 0.001 < a["yakuman"].sum() / len(s) < 0.006
    assert a["player"].nunique() == 60


def test_synth_names(synth):
    names = synth.player_names(500)
    assert len(set(names)) == 500
    assert all(ref.normalise_name(n) == n and " " not in n and not n.endswith("さん") for n in names)
    assert any(n.isascii() for n in names) and any(not n.isascii() for n in names)


@pytest.mark.parametrize("per_day", [True, False])
def test_synth_text_posts_round_trip(synth, tmp_path, per_day):
    df = synth.generate_games(30, 3_000, date(2026, 9, 20), 20, seed=3)
    df.loc[df.index[5], "yakuman"] = 2  # make sure yakuman lines are exercised
    paths = synth.write_text_posts(df, tmp_path, per_day=per_day)
    assert len(paths) == (df["date"].nunique() if per_day else 1)
    games = []
    for p in paths:
        parsed = ref.parse_text(p.read_text(encoding="utf-8"))
        assert parsed.invalid == []
        games.extend(parsed)
    got = sorted((g.date, e.rank, e.player, e.score, e.yakuman) for g in games for e in g.entries)
    want = sorted(zip(df["date"].dt.date, df["rank"], df["player"], df["score"], df["yakuman"]))
    assert got == want
    assert synth.write_text_posts(df, tmp_path / "again", per_day=per_day)  # same bytes again
    again = sorted((tmp_path / "again").iterdir())
    assert [p.read_bytes() for p in again] == [p.read_bytes() for p in sorted(paths)]


def test_sample_chatter_only_post_and_bullet_chatter(sample):
    lines = (INBOX / "2026-10-31.txt").read_text(encoding="utf-8").split("\n")
    assert lines[18] == "・次回は土曜日の夜です。" and lines[17] == ""
    assert not [b for b in sample.invalid if b.source in ("2026-10-31.txt", "2026-09-23.txt")]
    assert sum(g.source == "2026-10-31.txt" for g in sample) == 3
    assert ref.parse_text((INBOX / "2026-09-23.txt").read_text(encoding="utf-8")) == []
