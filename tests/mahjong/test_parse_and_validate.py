"""Reading posts, and every validation failure from real malformed files (tests/mahjong/fixtures)."""
from __future__ import annotations

import gzip
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pytest

from pipelines.core.names import apply_aliases, normalise_names
from pipelines.mahjong.parse import parse_text
from office import pointledger

FIXTURES = Path(__file__).with_name("fixtures")
ROOT = Path(__file__).resolve().parents[2]


def test_scores_in_every_notation_the_league_uses():
    # ▲ and △ are both minus in Japanese score sheets: 55300 + 27700 + 22000 − 5000 = 100000
    text = "2026-11-03\n・１位A ５５０００\n・2位B 28,000\n・３位C 22000点\n・４位D －5000\n\n" \
           "・1位E 62000\n・2位F 30000\n・3位G −1000\n・4位H ▲1000\n\n" \
           "・1位I 55300\n・2位J 27700\n・3位K 22000\n・4位L △5000\n"
    results, _, _ = parse_text("x.txt", text)
    assert results["score"].tolist() == [55000, 28000, 22000, -5000, 62000, 30000, -1000, -1000,
                                         55300, 27700, 22000, -5000]
    assert results["rank"].tolist() == [1, 2, 3, 4] * 3
    assert results["game_seq"].tolist() == [1] * 4 + [2] * 4 + [3] * 4
    assert results["problem"].isna().all()


@pytest.mark.parametrize("line", ["2026-11-03", "2026/11/03", "2026年11月3日", "２０２６年１１月３日（火）", "2026/11/3 (火)"])
def test_date_line_formats(line):
    results, _, _ = parse_text("x.txt", f"{line}\n・1位A 40000\n・2位B 30000\n・3位C 20000\n・4位D 10000\n")
    assert results["event_date"].dt.strftime("%Y-%m-%d").unique().tolist() == ["2026-11-03"]
    assert results["date_problem"].isna().all()


def test_yakuman_line_attaches_to_the_game_above_with_or_without_san():
    text = ("2026-11-03\n・1位A 40000\n・2位B 30000\n・3位C 20000\n・4位D 10000\nAさんが役満、四暗刻を和了しました。\n\n"
            "・1位E 40000\n・2位F 30000\n・3位G 20000\n・4位H 10000\nGが役満、国士無双を和了しました。\n")
    _, yakuman, orphans = parse_text("x.txt", text)
    assert yakuman[["game_seq", "player_raw", "yakuman_name"]].values.tolist() == [[1, "A", "四暗刻"], [2, "G", "国士無双"]]
    assert orphans.empty


def test_chatter_is_ignored_but_a_broken_result_line_is_not():
    text = "2026-11-03\nこんばんは\n・次回は土曜日です。\n・1位A 40000\n・2位B 30000\n・3位C 2OOOO\n・4位D 10000\n"
    results, _, _ = parse_text("x.txt", text)
    assert results["line_no"].tolist() == [4, 5, 6, 7]
    assert results["problem"].notna().tolist() == [False, False, True, False]


def test_player_names_normalise_and_aliases_map():
    names = pd.Series(["Ｋｅｎ", " Ken ", "田中　一郎", "田中  一郎", "けん"])
    aliases = pd.DataFrame({"alias": ["けん", "田中 一郎"], "player_id": ["Ken", "田中一郎"]})
    assert apply_aliases(normalise_names(names), aliases).tolist() == ["Ken", "Ken", "田中一郎", "田中一郎", "Ken"]


def test_a_games_fingerprint_is_its_date_and_its_players_scores_in_player_order():
    """The text that finds the same game posted twice, written out by hand: the date, then each
    player=score sorted by player (code point order: Latin letters before kana), whatever the
    order of the post's lines."""
    from pipelines.mahjong.validate import _fingerprint

    text = ("2026-11-03\n・1位すずき 40000\n・2位Bob 30000\n・3位あきら 20000\n・4位Ann 10000\n"
            "2026-11-04\n・1位Ann 52000\n・2位Cy 31000\n・3位Bob 12000\n・4位Dee 5000\n")
    results, _, _ = parse_text("x.txt", text)
    results = results.assign(player_id=normalise_names(results["player_raw"]))
    fingerprints = _fingerprint(results.iloc[::-1])
    assert fingerprints.tolist() == ["2026-11-03|Ann=10000|Bob=30000|あきら=20000|すずき=40000",
                                     "2026-11-04|Ann=52000|Bob=12000|Cy=31000|Dee=5000"]
    assert fingerprints.index.tolist() == sorted(results["game_key"].unique())


def _check(*files: str):
    return pointledger("check", "--organisation", "sofu-mahjong", "--as-of", "2026-12-02",
                       *[FIXTURES / f for f in files], cwd=ROOT)


def test_malformed_post_every_game_quarantined_with_its_reason(office):
    office.post("sofu-mahjong/malformed_post.txt", (FIXTURES / "malformed_post.txt").read_text(encoding="utf-8"))
    result = office.run()
    assert result.exit_code == 3
    q = office.query("select location, reason, record from quarantine order by location")
    reasons = dict(zip(q["location"], q["reason"]))
    assert reasons == {
        "lines 1–4": "no date line above this game; expected a line like 2026-11-03, 2026/11/03 or 2026年11月3日 before the games of a day",
        "lines 8–11": "line 9: expected a result line 「・1位 名前 55000」 or 「1着 名前 55000」 (rank 1-4, name, final score), found ・２位りつみ 28OOO",
        "lines 13–16": "ranks 1,2,2,4 found; expected 1,2,3,4 once each",
        "lines 18–21": "scores must not increase with rank: 3位 has 27000 but the rank above has 20000",
        "lines 23–26": "the four scores add up to 102000; expected 100000 (check each player's score)",
        "lines 28–32": "the yakuman winner すずき is not one of this game's players (らつみ, りつみ, るつみ, れつみ)",
        "lines 40–43": "line 39: the date line 2026/02/30 is not a real calendar date",
        "lines 46–49": "the game is dated 2027-11-03, after the run date 2026-12-02; check the date line",
        "lines 52–55": "line 51: the date line 11月5日 has no year; expected 2026-11-03, 2026/11/03 or 2026年11月3日",
    }
    # the one good game among them (lines 34–37) posts
    posted = office.query("select distinct location from awards")
    assert posted["location"].tolist() == ["lines 34–37"]
    # the quarantine keeps what was written, so the secretary can find it
    assert q.set_index("location").loc["lines 8–11", "record"].startswith("・１位らつみ 41000 / ・２位りつみ 28OOO")


def test_yakuman_line_with_no_game_above(office):
    office.post("sofu-mahjong/o.txt", (FIXTURES / "orphan_yakuman.txt").read_text(encoding="utf-8"))
    assert office.run().exit_code == 3
    q = office.query("select location, reason from quarantine")
    assert q["location"].tolist() == ["line 1"]
    assert "must come right after the game it was won in" in q["reason"].iloc[0]
    assert len(office.query("select * from awards")) == 4


def test_shift_jis_post_is_read(office):
    office.post("sofu-mahjong/sjis.txt", (FIXTURES / "shift_jis_post.txt").read_bytes())
    assert office.run().exit_code == 0
    assert office.query("select points from awards where player_id = 'らつみ'")["points"].tolist() == [Decimal("8")]


def test_a_file_that_is_not_text_is_quarantined_whole(office):
    office.post("sofu-mahjong/garbage.txt", (FIXTURES / "not_text.txt").read_bytes())
    assert office.run().exit_code == 3
    q = office.query("select location, reason from quarantine")
    assert q["location"].tolist() == ["whole file"]
    assert "not UTF-8 or Shift_JIS text" in q["reason"].iloc[0]
    assert office.query("select status from sources")["status"].tolist() == ["quarantined"]


def test_csv_with_a_wrong_header(office):
    office.post("sofu-mahjong/bad_header.csv", (FIXTURES / "bad_header.csv").read_text())
    office.run()
    reason = office.query("select reason from quarantine")["reason"].iloc[0]
    assert reason == "line 1: the header lacks column(s) game, player, score, yakuman; expected date,game,rank,player,score,yakuman"


def test_csv_whose_header_is_one_huge_field_is_quarantined_not_a_crash(office):
    # fuzz campaign seed 14, file 1064 (minimised): the header line is 204,835 characters, one field
    # longer than the CSV reader's limit; before the fix the reader raised and the file failed whole
    office.post("sofu-mahjong/huge_header.csv", gzip.decompress((FIXTURES / "fuzz_header_too_long.csv.gz").read_bytes()))
    office.run()
    q = office.query("select location, reason from quarantine")
    assert q["location"].tolist() == ["line 1"]
    assert q["reason"].iloc[0].startswith(
        "line 1: the header cannot be read (expected a line of at most 4,000 characters (is a line break missing?), "
        "found date,game,rank,pl")
    assert q["reason"].iloc[0].endswith("(204,835 characters)); the header should be date,game,rank,player,score,yakuman")


def test_csv_with_bad_values_quarantines_those_games_only(office):
    office.post("sofu-mahjong/bad_values.csv", (FIXTURES / "bad_values.csv").read_text())
    office.run()
    q = office.query("select location, reason from quarantine order by location")
    reasons = dict(zip(q["location"], q["reason"]))
    assert reasons["lines 6–9"].startswith("line 6: date 2026-13-03 is not a date")
    assert reasons["lines 10–13"] == "line 11: score thirty is not a whole number"
    assert "line 16: yakuman x is not a count" in reasons["lines 14–17"]
    assert "give a rank for all four players or for none" in reasons["lines 14–17"]
    assert office.query("select distinct location from awards")["location"].tolist() == ["lines 2–5"]


def test_csv_without_ranks_tied_players_share_the_places(office):
    office.post("sofu-mahjong/ties.csv", (FIXTURES / "ranks_from_scores.csv").read_text())
    assert office.run().exit_code == 0
    rows = office.query("select event_id, player_id, points, basis from awards order by event_id, player_id")
    got = {(e[-1], p): pts for e, p, pts in zip(rows["event_id"], rows["player_id"], rows["points"])}
    # game 1: A and B tie at 35000 for 1st and 2nd: (7 + 4) / 2 = 5.5 each
    assert (got[("1", "A")], got[("1", "B")], got[("1", "C")], got[("1", "D")]) == (Decimal("5.5"), Decimal("5.5"), Decimal("2"), Decimal("0"))
    # game 2: A, B, C tie at 30000 for places 1–3: (7 + 4 + 2) / 3 = 4.333… → 4.33 half-up; C's yakuman +1 is C's own
    assert (got[("2", "A")], got[("2", "B")], got[("2", "C")], got[("2", "D")]) == (Decimal("4.33"), Decimal("4.33"), Decimal("5.33"), Decimal("0"))
    basis = dict(zip(rows["player_id"] + rows["event_id"].str[-1], rows["basis"]))
    assert basis["C2"] == "3rd= (tied on 30000 with 2 others, no rank posted): shares 13 / 3, yakuman +1 = 5.33 [season-2]"


def test_check_command_lists_every_problem_and_posts_nothing():
    done = _check("malformed_post.txt", "shift_jis_post.txt")
    assert done.returncode == 3
    assert "malformed_post.txt: 1 record(s) OK, 9 problem(s)" in done.stdout
    assert "lines 23–26: the four scores add up to 102000; expected 100000" in done.stdout
    assert "shift_jis_post.txt: 1 record(s) OK, 0 problem(s)" in done.stdout


def test_check_command_exit_zero_on_a_clean_file():
    assert _check("shift_jis_post.txt").returncode == 0


def test_chaku_and_colon_forms_are_read_and_dai_is_reported():
    text = "2026/11/03 定例会\n1位：らつみ 40000\n・２着 りつみ 30000\n第3位 るつみ 20000\n4着 れつみ 10000\n"
    results, _, _ = parse_text("x.txt", text)
    assert results["event_date"].dt.strftime("%Y-%m-%d").unique().tolist() == ["2026-11-03"]
    assert results["rank"].tolist()[:2] == [1, 2] and results["rank"].tolist()[3] == 4
    assert results["player_raw"].tolist()[:2] == ["らつみ", "りつみ"]
    assert results["problem"].notna().tolist() == [False, False, True, False]
    assert results["problem"].iloc[2].startswith("line 4: expected a result line")


def _games_numbered(parsed):
    results, yakuman, orphans = parsed
    order = {key: n for n, key in enumerate(pd.unique(results["game_key"]))}
    return (results.assign(game_key=results["game_key"].map(order)),
            yakuman.assign(game_key=yakuman["game_key"].map(lambda k: order.get(k, -1))), orphans)


def test_a_backlog_parsed_in_chunks_by_workers_equals_one_pass_here(monkeypatch):
    """A backlog's text posts are parsed in chunks of lines by both cores; the rows, yakuman and
    problems must be those of one pass over all the files in this process. A game key is only a
    number that holds a game's rows together (each chunk numbers its own): the keys are compared
    as the games they make, numbered in the order the games come."""
    import hashlib

    from pipelines.core import parallel
    from pipelines.core.settings import DATA_DIR
    from pipelines.core.system import SourceFile
    import pipelines.mahjong.system as mahjong

    folder = DATA_DIR / "samples" / "inbox" / "sofu-mahjong"
    sources = [SourceFile("sofu-mahjong", f"sofu-mahjong/{p.name}", p, hashlib.sha256(p.read_bytes()).hexdigest())
               for p in sorted(folder.glob("*")) if p.suffix in (".txt", ".csv")]
    assert sum(s.source_file.endswith(".txt") for s in sources) >= 3
    one_pass = mahjong._parse_sources(sources)

    calls = []
    map_chunks = mahjong.map_chunks

    def spy(function, chunks, processes=None):
        calls.append((len(chunks), processes))
        return map_chunks(function, chunks, processes)

    monkeypatch.setenv(parallel.WORKERS_VARIABLE, "2")
    monkeypatch.setattr(mahjong, "TEXT_LINES_PER_CHUNK", 20)
    monkeypatch.setattr(mahjong, "map_chunks", spy)
    chunked = mahjong._parse_sources(sources)
    assert calls and calls[0][0] >= 3 and calls[0][1] == 2
    for got, want in zip(_games_numbered(chunked), _games_numbered(one_pass)):
        pd.testing.assert_frame_equal(got, want)
    assert min(len(frame) for frame in one_pass) > 0  # games, yakuman and problems all compared


def test_patterns_taken_only_where_their_literal_is_find_what_the_whole_pass_finds():
    """The date and yakuman patterns are matched on the lines that hold what they need (four
    digits and a date separator; an era and a digit; 役満), and the minus signs and invisible characters replaced on the lines that
    hold one: on lines built from every fragment these patterns care about, the same matches,
    groups and text as the patterns run over every line."""
    import itertools

    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    from pipelines.mahjong import parse

    fragments = ["", " ", "2026", "２０２６", "年", "11", "月", "3日", "-", "/", "（火）", "・", "1位", "A", "らつみ", "さん",
                 "が", "役満", "、", "国士無双", "を", "和了", "55000", "−", "▲", "\u200b", "\ufeff", "x", "令和", "R8", ".",
                 "（役満）", "：", "【"]
    lines = ["".join(combo) for n in (1, 2, 3) for combo in itertools.product(fragments, repeat=n)]
    lines += ["2026-11-03", "２０２６年１１月３日（火）", "らつみさんが役満、四暗刻を和了しました。", "Aが役満を和了",
              "\u200b2026/11/04 定例会", "・1位A −5000", "・2位B ▲300", "9999年12月31日 (金)", "令和8年10月23日", "R8.10.25",
              "らつみさんが四暗刻（役満）を和了しました。", "らつみさんが役満（四暗刻）をあがりました", "役満：らつみ（国士無双）",
              "【役満】らつみ 国士無双"]
    raw = pa.array(lines, type=pa.string())
    norm = pc.utf8_normalize(pc.utf8_slice_codeunits(raw, 0, parse.MAX_LINE_CHARS), form="NFKC")
    for pattern, replacement in ((parse._MINUS_CLASS, "-"), (parse._INVISIBLE, " ")):
        assert parse._replace_where_found(norm, pattern, replacement).equals(
            pc.replace_substring_regex(norm, pattern=pattern, replacement=replacement))
    text = parse._normalise(raw)
    has_yakuman = parse._np(pc.match_substring(text, parse._YAKUMAN_WORD))
    for pattern, only in ((parse._DATE_IN_LINE, parse._matches(text, parse._DATE_LITERAL)),
                          (parse._ERA_DATE, parse._matches(text, parse._ERA_LITERAL)),
                          *((form, has_yakuman) for form in parse._YAKUMAN_FORMS)):
        every_line = parse._extract(text, pattern)
        where_possible = parse._extract(text, pattern, only=only)
        assert np.array_equal(every_line[0], where_possible[0]) and every_line[0].any()
        assert every_line[1].keys() == where_possible[1].keys()
        for name in every_line[1]:
            assert every_line[1][name].equals(where_possible[1][name]), name


def test_names_are_normalised_from_a_column_of_several_arrow_chunks():
    """Each distinct name is normalised once and given back to every row: full-width letters to
    ASCII, spaces trimmed and collapsed, a missing name missing, whether the column is one array
    or Arrow chunks (as a frame read from Parquet holds it)."""
    import pyarrow as pa

    chunked = pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array([["ＡＢ", None], [" c \u3000 d ", "ＡＢ"]])), index=[5, 6, 7, 8])
    got = normalise_names(chunked)
    assert got.index.tolist() == [5, 6, 7, 8]
    assert got.tolist()[0] == "AB" and pd.isna(got.tolist()[1]) and got.tolist()[2:] == ["c d", "AB"]
    assert normalise_names(pd.Series(["ｒａｔｓｕｍｉ ", "ratsumi"], dtype="string")).tolist() == ["ratsumi", "ratsumi"]


@pytest.mark.parametrize("line, iso, problem", [
    ("令和元年5月1日", "2019-05-01", None),  # the era's first day: 元年 = 1, 2018 + 1 = 2019
    ("令和８年１０月２３日（金）", "2026-10-23", None),  # 2018 + 8
    ("令和1年4月30日", None, "line 1: the date line 令和1年4月30日 is not a date of the 令和 era (it began on 2019-05-01); "
     "expected 2026-11-03, 2026/11/03 or 2026年11月3日"),
])
def test_a_reiwa_year_is_read_within_its_era(line, iso, problem):
    results, _, _ = parse_text("x.txt", f"{line}\n・1位A 40000\n・2位B 30000\n・3位C 20000\n・4位D 10000\n")
    first = results.iloc[0][["date_text", "date_problem"]]
    assert first.where(first.notna(), None).tolist() == [iso, problem]
