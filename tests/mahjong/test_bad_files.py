"""Issue 14 for the mahjong reader: real malformed files (tests/mahjong/fixtures) each quarantine
with their own reason and location, and nothing in them is silently lost.

Expected reasons and line numbers are read off the fixture files by hand (the comments in each
test say which line holds what).
"""
from __future__ import annotations

import tempfile
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from pipelines.core.check import check_files
from pipelines.core.settings import DATA_DIR, load_organisations
from pipelines.mahjong.parse import classify_csv, classify_text, parse_csv, parse_text
from pipelines.mahjong.system import SYSTEM

FIXTURES = Path(__file__).with_name("fixtures")
AS_OF = date(2026, 12, 2)
NO_RESULTS = ("no results found: expected a date line (2026-11-03) followed by result lines such as '・1位 name 55000' "
              "or '1着 name 55000', or a CSV with the header date,game,rank,player,score,yakuman")


def check(name: str) -> dict:
    """`pointledger check` on one fixture (the same `process` as the nightly run): location → reason."""
    with tempfile.TemporaryDirectory() as scratch:
        (report,) = check_files([FIXTURES / name], load_organisations(DATA_DIR), "sofu-mahjong", AS_OF, DATA_DIR, Path(scratch))
    problems = {p["location"]: p["reason"] for p in report["problems"]}
    assert len(problems) == len(report["problems"])  # one reason per location
    return {"ok": report["records_ok"], **problems}


def test_scores_names_and_lines_beyond_the_bounds_of_a_text_post():
    got = check("out_of_range.txt")
    assert got == {
        "ok": 1,  # lines 17–20
        "lines 2–5": "line 2: score 99999999999999999999 is out of range; a final score has at most 9 digits",
        "lines 7–10": "line 7: the player name has 70 characters; at most 64 are allowed",
        "lines 12–15": "line 15: the line has 1207 characters; a result line has at most 1000 (found ・４位れつみ "
        + "1" * 193 + "…)",  # 200 characters: 7 + 193
    }


def test_dates_before_the_first_rule_version_or_after_the_run_date(office):
    office.post("sofu-mahjong/date_window.txt", (FIXTURES / "date_window.txt").read_text(encoding="utf-8"))
    assert office.run().exit_code == 3
    q = office.query("select location, reason from quarantine order by location")
    assert dict(zip(q["location"], q["reason"])) == {
        # line 1: 1970年1月1日; data/rules/mahjong/rule_versions.csv: season-1 from 2000-01-01
        "lines 2–5": "the game is dated 1970-01-01, before the league's first rule version (season-1, in force from "
        "2000-01-01); check the date line",
        "lines 8–11": "the game is dated 9999-12-31, after the run date 2026-12-02; check the date line",
    }
    # line 12 "2026/11/03 定例会の結果です" is a date line: the game below it posts (1st 7, season-2)
    awards = office.query("select location, player_id, points from awards where player_id = 'らつみ'")
    assert awards.values.tolist() == [["lines 14–17", "らつみ", Decimal("7")]]


def test_csv_bounds_each_with_its_own_reason():
    got = check("out_of_range.csv")
    assert got == {
        "ok": 1,  # lines 23–26
        "lines 2–5": "the game is dated 9999-01-01, after the run date 2026-12-02; check the date line",
        "lines 6–9": "the game is dated 1970-01-01, before the league's first rule version (season-1, in force from "
        "2000-01-01); check the date line",
        "lines 10–13": "line 10: score 99999999999999999999 is out of range; a final score has at most 9 digits",
        "lines 14–17": "line 14: yakuman 99999999999999999999 is more than one player can win in a game (at most 9)",
        "lines 18–21": "line 18: the player field has 70 characters; at most 64 are allowed",
        # line 22: "2026-11-03,4,1,らつみ" and 2000 times ",1": 4 + 2000 fields
        "line 22": "line 22: 2004 fields; expected 6 as in the header (date,game,rank,player,score,yakuman); found "
        "2026-11-03,4,1,らつみ" + ",1" * 91 + "…",  # 200 characters: 18 + 182
    }


def test_a_csv_header_with_too_many_columns():
    assert check("wide_header.csv") == {
        "ok": 0, "line 1": "line 1: the header has 66 columns; expected date,game,rank,player,score,yakuman"}


def test_chaku_form_posts_and_other_result_like_forms_are_reported():
    got = check("chaku_form.txt")
    assert got["ok"] == 1  # lines 2–5, "1着 らつみ 55000"
    expected = "expected a result line 「・1位 名前 55000」 or 「1着 名前 55000」 (rank 1-4, name, final score), found "
    assert got["lines 7–10"] == "; ".join(
        f"line {n}: {expected}{text}" for n, text in [(7, "1. らつみ 40000"), (8, "2. りつみ 30000"), (9, "3. るつみ 20000"),
                                                      (10, "4. れつみ 10000")])
    assert got["lines 12–15"].startswith(f"line 12: {expected}らつみ 40000; line 13: {expected}りつみ 30000")
    assert set(got) == {"ok", "lines 7–10", "lines 12–15"}  # line 17 "参加費 1000" alone is chatter
    kinds = classify_text((FIXTURES / "chaku_form.txt").read_text(encoding="utf-8"))
    assert kinds.tolist() == ["date"] + ["result"] * 4 + ["blank"] + ["result"] * 4 + ["blank"] + ["result"] * 4 \
        + ["blank", "chatter"]


def test_chaku_lines_score_like_bullet_lines(office):
    office.post("sofu-mahjong/chaku.txt", (FIXTURES / "chaku_form.txt").read_text(encoding="utf-8"))
    office.run()
    awards = office.query("select player_id, points, location from awards order by points desc")
    # 1着 55000, 2着 28000, 3着 22000, 4着 -5000 (bust, season-2: every busted player -1)
    assert awards.values.tolist() == [["らつみ", Decimal("7"), "lines 2–5"], ["りつみ", Decimal("4"), "lines 2–5"],
                                      ["るつみ", Decimal("2"), "lines 2–5"], ["れつみ", Decimal("-1"), "lines 2–5"]]


@pytest.mark.parametrize("name", ["no_results.txt", "header_only.csv"])
def test_a_file_with_no_results_is_quarantined_not_posted_empty(name, office):
    assert check(name) == {"ok": 0, "whole file": NO_RESULTS}
    assert SYSTEM.expected_content in NO_RESULTS
    office.post(f"sofu-mahjong/{name}", (FIXTURES / name).read_text(encoding="utf-8"))
    assert office.run().exit_code == 3
    assert office.query("select status from sources")["status"].tolist() == ["quarantined"]


def test_a_stray_quote_does_not_merge_lines_or_shift_line_numbers():
    got = check("stray_quote.csv")
    assert got == {
        "ok": 1,  # game 3, lines 10–13 (quoted fields are read)
        "line 3": 'line 3: a quote (") is not closed on this line (a field cannot continue on the next line); '
        'found 2026-11-03,1,2,"りつみ,30000,',
        "line 7": 'line 7: a quote (") is not closed on this line (a field cannot continue on the next line); '
        'found 2026-11-03,2,2,りつみ",29000,',
        "lines 2–5": "the game at lines 2–5 has 3 result lines; expected 4 (ranks 1 to 4)",
        "lines 6–9": "the game at lines 6–9 has 3 result lines; expected 4 (ranks 1 to 4)",
    }
    text = (FIXTURES / "stray_quote.csv").read_text(encoding="utf-8")
    assert classify_csv(text).tolist() == ["header", "record", "problem", "record", "record", "record", "problem"] + ["record"] * 6
    results, _, _ = parse_csv("x.csv", text)
    assert results.loc[results["game_seq"] == 3, "player_raw"].tolist() == ["らつみ", "りつみ", "るつみ", "れつみ"]


def test_physical_lines_are_what_an_editor_counts():
    # \r\n, \r and \n end lines; a form feed or U+2028 inside a line does not start a new one
    text = "2026-11-03\r\n・1位A 40000\r・2位B 30000\n・3位C\u2028 20000\n・4位D\x0c 10000\n"
    kinds = classify_text(text)
    assert kinds.index.tolist() == [1, 2, 3, 4, 5]
    results, _, _ = parse_text("x.txt", text)
    assert results["line_no"].tolist() == [2, 3, 4, 5]


def test_a_blank_line_of_commas_and_a_repeated_header_are_not_records():
    text = "date,game,rank,player,score,yakuman\n,,,,,\n2026-11-03,1,1,A,40000,\ndate,game,rank,player,score,yakuman\n"
    results, _, orphans = parse_csv("x.csv", text)
    assert results["line_no"].tolist() == [3]
    assert orphans.empty


def test_two_posts_pasted_together_keep_their_date_line():
    # the second post starts with its BOM (U+FEFF) in the middle of the file: still a date line
    post = "2026-11-0{d}\n・1位A 40000\n・2位B 30000\n・3位C 20000\n・4位D 10000\n"
    text = post.format(d=3) + "\ufeff" + post.format(d=4)
    results, _, _ = parse_text("x.txt", text)
    assert results["date_text"].tolist() == ["2026-11-03"] * 4 + ["2026-11-04"] * 4
    assert classify_text(text).tolist() == ["date"] + ["result"] * 4 + ["date"] + ["result"] * 4


def _awards_by_game(office, player: str) -> dict:
    """location → (event date, ranking period) of the player's award lines."""
    rows = office.query(
        "select a.location, a.event_date, p.period from awards a join mahjong_periods p "
        "on a.event_date between p.period_start and p.period_end where a.player_id = ? order by a.location", [player])
    return {loc: (str(day), period) for loc, day, period in zip(rows["location"], rows["event_date"], rows["period"])}


def test_a_date_anywhere_in_its_line_dates_the_games_below_and_an_unreadable_one_holds_them(office):
    """The auditor's file (lines 1–11) and the other date lines that were ignored: every game
    posts under the date of the line above it, or is quarantined naming that line; none posts
    under the date of an earlier line."""
    office.post("sofu-mahjong/2026-12-01.txt", (FIXTURES / "date_lines.txt").read_text(encoding="utf-8"))
    assert office.run(AS_OF).exit_code == 3
    assert _awards_by_game(office, "らつみ") == {
        "lines 2–5": ("2026-11-30", "2026-10"),  # 2026年11月30日(月): Oct–Nov period
        "lines 8–11": ("2026-12-01", "2026-12"),  # 【2026年12月1日】: Dec–Jan, not 2026-11-30
        "lines 14–17": ("2026-10-23", "2026-10"),  # 令和8年10月23日: 令和n年 = 2018 + n = 2026
        "lines 26–29": ("2026-10-26", "2026-10"),  # 日付：2026/10/26
        "lines 32–35": ("2026-10-27", "2026-10"),  # ■2026年10月27日(火): a date line, not a bad result line
        "lines 38–41": ("2026-10-28", "2026-10"),  # 第12回 2026年10月28日
        "lines 45–48": ("2026-10-29", "2026-10"),  # 今日は2026/10/29です (line 44 次回は11月5日です。 is chatter)
    }
    q = office.query("select location, reason from quarantine order by location")
    expected = "expected 2026-11-03, 2026/11/03 or 2026年11月3日"
    assert dict(zip(q["location"], q["reason"])) == {
        "lines 20–23": "line 19: the date line R8.10.25 gives the year of an era that is not read (only 令和 written out "
        f"is: 令和8年 = 2026); {expected}",
        "lines 51–54": "line 50: the date line 平成30年10月30日 gives the year of an era that is not read (only 令和 "
        f"written out is: 令和8年 = 2026); {expected}",
        "lines 57–60": "line 56: the date line 2026/10/30〜2026/10/31 holds two dates (2026-10-30 and 2026-10-31); "
        "expected one date, such as 2026-11-03, 2026/11/03 or 2026年11月3日",
    }
    kinds = classify_text((FIXTURES / "date_lines.txt").read_text(encoding="utf-8"))
    assert kinds[[7, 19, 31, 43, 44]].tolist() == ["date", "date", "date", "date", "chatter"]


def test_yakuman_lines_in_other_words_are_read_or_hold_their_game(office):
    """Seed: 役満和了者には順位に関わらず１点与える (season 2), and the poster names the winner.
    Points by hand (season 2: 7/4/2/0, bust −1, yakuman +1)."""
    office.post("sofu-mahjong/yakuman_lines.txt", (FIXTURES / "yakuman_lines.txt").read_text(encoding="utf-8"))
    assert office.run(AS_OF).exit_code == 3
    rows = office.query("select location, player_id, points from awards order by location, points desc")
    got = {(loc, p): pts for loc, p, pts in zip(rows["location"], rows["player_id"], rows["points"])}
    assert got == {
        # line 6 らつみさんが四暗刻（役満）を和了しました。: 7 + 1 = 8; れつみ −5000: 0 − 1
        ("lines 2–6", "らつみ"): Decimal("8"), ("lines 2–6", "りつみ"): Decimal("4"),
        ("lines 2–6", "るつみ"): Decimal("2"), ("lines 2–6", "れつみ"): Decimal("-1"),
        # line 12 役満：るつみ（国士無双）: the 3rd place 2 + 1 = 3
        ("lines 8–12", "らつみ"): Decimal("7"), ("lines 8–12", "りつみ"): Decimal("4"),
        ("lines 8–12", "るつみ"): Decimal("3"), ("lines 8–12", "れつみ"): Decimal("0"),
        # line 24 役満聴牌までいったのに… is chatter (a hand not won)
        ("lines 20–23", "らつみ"): Decimal("7"), ("lines 20–23", "りつみ"): Decimal("4"),
        ("lines 20–23", "るつみ"): Decimal("2"), ("lines 20–23", "れつみ"): Decimal("0"),
    }
    q = office.query("select location, reason, record from quarantine order by location")
    assert dict(zip(q["location"], q["reason"])) == {
        "lines 14–18": "line 18: a line under this game mentions 役満 but names its winner in no form that can be read; "
        "expected 「らつみさんが役満、四暗刻を和了しました。」 or 「役満：らつみ（四暗刻）」 (a player of this game), "
        "found れつみさん役満おめでとう！",
        "lines 26–30": "the yakuman winner すずき is not one of this game's players (らつみ, りつみ, るつみ, れつみ)",
    }
    assert q["record"].iloc[0].endswith("・４位れつみ 5000 / れつみさん役満おめでとう！")


def test_csv_blank_ranks_in_any_row_order_the_scores_decide(office):
    """README: rank blank for all four players, then the scores decide the places; players tied on
    score share the points of the places they occupy (RULES.md §4: 7 + 4 → 5.5 each)."""
    got = check("blank_ranks_any_order.csv")
    assert got == {
        "ok": 1,  # game 1, lines 2–5 (rows in ascending score order)
        # game 2 (lines 6–9): 30000 + 39000 + 20000 + 10000; its row order is no problem
        "lines 6–9": "the four scores add up to 99000; expected 100000 (check each player's score)",
    }
    office.post("sofu-mahjong/blank_ranks_any_order.csv", (FIXTURES / "blank_ranks_any_order.csv").read_text(encoding="utf-8"))
    assert office.run(AS_OF).exit_code == 3
    rows = office.query("select player_id, points from awards order by player_id")
    # A, B 40000: places 1–2 shared, (7 + 4) / 2 = 5.5; A's yakuman + 1 = 6.5; C 3rd 2; D 4th 0 (5000, no bust)
    assert dict(zip(rows["player_id"], rows["points"])) == {
        "A": Decimal("6.5"), "B": Decimal("5.5"), "C": Decimal("2"), "D": Decimal("0")}
    # the quarantined game quotes each of its lines once (line 6 is a record and a yakuman count)
    record = office.query("select record from quarantine")["record"].tolist()
    assert record == ["2026-10-06,2,,A,30000,1 / 2026-10-06,2,,B,39000, / 2026-10-06,2,,C,20000, / 2026-10-06,2,,D,10000,"]
