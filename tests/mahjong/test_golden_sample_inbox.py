"""Golden end-to-end run of the bundled sample inbox, checked against the independent reference.

`tests/mahjong/reference.py` shares no code with pipelines/: it parses the same posts with plain
Python loops and computes every game's points and every leaderboard snapshot with Fractions.
The pipeline (parser → pandera → DuckDB SQL → ledger → warehouse views) must agree with it on
every award line, every quarantined game and every leaderboard row.
"""
from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from datetime import date
from pathlib import Path

import pytest

from pipelines.core import run as nightly
from office import pointledger

ROOT = Path(__file__).resolve().parents[2]
INBOX = ROOT / "data" / "samples" / "inbox"
ALIASES = ROOT / "data" / "aliases" / "sofu-mahjong.csv"


def _reference():
    name = "mahjong_reference"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("reference.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


ref = _reference()


@pytest.fixture(scope="module")
def golden(tmp_path_factory):
    root = tmp_path_factory.mktemp("golden")
    inbox, state, data = root / "inbox", root / "var", root / "data"
    shutil.copytree(INBOX / "sofu-mahjong", inbox / "sofu-mahjong")  # this league's samples only
    shutil.copytree(ROOT / "data", data, ignore=shutil.ignore_patterns("samples"))
    for settings in (data / "organisations").glob("*.toml"):
        if settings.stem != "sofu-mahjong":
            settings.unlink()
    result = nightly.run(inbox, state, date(2026, 12, 2), data)
    import duckdb

    con = duckdb.connect(str(state / "warehouse.duckdb"), read_only=True)
    parsed = ref.parse_inbox(INBOX / "sofu-mahjong", ref.load_aliases(ALIASES.read_text(encoding="utf-8")))
    games, repeats = ref.dedupe(list(parsed))
    yield result, con, parsed, games, repeats, state
    con.close()


def test_the_sample_run_posts_and_quarantines_as_documented(golden):
    result, con, parsed, games, repeats, _ = golden
    assert result.exit_code == nightly.EXIT_QUARANTINE  # the samples carry one malformed post
    assert repeats == []
    assert con.sql("select count(*) from events where organisation = 'sofu-mahjong'").fetchall()[0][0] == len(games) == 287


def test_every_award_line_equals_the_reference(golden):
    _, con, _, games, _, _ = golden
    expected = {}
    for g in games:
        for player, pts in ref.game_points(g, ref.season_for(g.date)).items():
            expected[("sofu-mahjong/" + g.source, g.line, player)] = pts
    got = {}
    for source_file, location, player, points in con.sql(
        "select source_file, location, player_id, points from awards where organisation = 'sofu-mahjong'"
    ).fetchall():
        first_line = int(re.match(r"lines (\d+)", location).group(1))
        got[(source_file, first_line, player)] = points
    assert got == expected


def test_every_quarantined_game_is_one_the_reference_rejects(golden):
    _, con, parsed, _, _, _ = golden
    expected = {("sofu-mahjong/" + bad.source, bad.line) for bad in parsed.invalid}
    rows = con.sql("select source_file, location, reason from quarantine where organisation = 'sofu-mahjong'").fetchall()
    # a post with no game at all is not posted empty (issue 14): the holiday post, whole file
    whole = [(source, reason) for source, location, reason in rows if location == "whole file"]
    assert [source for source, _ in whole] == ["sofu-mahjong/2026-09-23.txt"]
    assert whole[0][1].startswith("no results found: expected a date line (2026-11-03) followed by result lines")
    rows = [row for row in rows if row[1] != "whole file"]
    got = {(source, int(re.match(r"lines? (\d+)", location).group(1))) for source, location, _ in rows}
    assert got == expected == {("sofu-mahjong/2026-11-20.txt", line) for line in (10, 15, 25, 29)}
    reasons = {int(re.match(r"lines? (\d+)", loc).group(1)): reason for _, loc, reason in rows}
    assert "add up to 99000; expected 100000" in reasons[10]
    assert "player ぽん太 is listed more than once" in reasons[15]
    assert "has 3 result lines; expected 4" in reasons[25]
    assert "yakuman winner はるか is not one of this game's players" in reasons[29]


@pytest.mark.parametrize(
    "period_start, period_end, as_of",
    [
        (date(2026, 8, 1), date(2026, 9, 30), date(2026, 8, 31)),
        (date(2026, 8, 1), date(2026, 9, 30), date(2026, 9, 30)),
        (date(2026, 10, 1), date(2026, 11, 30), date(2026, 10, 31)),
        (date(2026, 10, 1), date(2026, 11, 30), date(2026, 11, 30)),
    ],
)
def test_every_leaderboard_snapshot_equals_the_reference(golden, period_start, period_end, as_of):
    _, con, _, games, _, _ = golden
    expected = {
        (r.player, r.games, r.points, r.bonus, r.total, r.average, r.eligible, r.rank)
        for r in ref.leaderboard(games, period_start, period_end, as_of)
    }
    got = {
        (player, games_, points, int(bonus), total, average, eligible, rank)
        for player, games_, points, bonus, total, average, eligible, rank in con.sql(
            "select player_id, games, points, bonus, total, average, eligible, rank from mahjong_leaderboard "
            "where period_start = ? and as_of = ?",
            params=[period_start, as_of],
        ).fetchall()
    }
    assert got == expected


def test_documented_final_figures(golden):
    """A few rows of docs/mahjong-samples.md, typed in by hand (the rounding tie at 3.588)."""
    _, con, _, _, _, _ = golden
    rows = {
        player: (rank, games, str(total), str(average))
        for player, rank, games, total, average in con.sql(
            "select player_id, rank, games, total, average from mahjong_leaderboard where as_of = date '2026-11-30'"
        ).fetchall()
    }
    assert rows["ぽん太"] == (1, 61, "253.50", "4.156")
    assert rows["Ken"] == (3, 40, "143.50", "3.588")
    assert rows["田中一郎"] == (3, 34, "122.00", "3.588")
    assert rows["中村"][0] is None and rows["中村"][1] == 19


def test_publications_exist_for_both_periods(golden):
    *_, state = golden
    for period in ("2026-08", "2026-10"):
        folder = state / "publications" / "sofu-mahjong" / period
        assert {p.name for p in folder.iterdir()} == {"index.html", "leaderboard.csv", "leaderboard.xlsx", "leaderboard.md"}
    html = (state / "publications" / "sofu-mahjong" / "2026-10" / "index.html").read_text(encoding="utf-8")
    assert "蒼風杯" in html and "ぽん太" in html
    # the chart of the top five's averages (core/charts: drawn by Vega-Lite from this specification)
    assert '<script type="application/json" class="vega-lite">' in html and 'src="../assets/vega.js"' in html


def test_explain_shows_each_game_and_the_leaderboard_arithmetic(golden):
    *_, state = golden
    done = pointledger("explain", "らつみ", "--state", state, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    # the seed's example game (docs/mahjong-samples.md: 2026-10-10.txt lines 18–22): 7 + yakuman 1
    assert ("2026-10-10  sofu-mahjong/2026-10-10.txt#3     8.00 league  1st 7, yakuman 四暗刻 +1 = 8 [season-2]  "
            "[sofu-mahjong/2026-10-10.txt lines 18–22]") in out
    # the documented final tables: Aug–Sep 184 / 44 = 4.182 (rank 1), Oct–Nov 101 / 34 = 2.971 (rank 11=)
    assert "(184.00 points + 0.00 bonus) / 44 games = 184.00 / 44 = 4.182 (half-up to 3 decimals) → rank 1 [season-1]" in out
    assert "(101.00 points + 0.00 bonus) / 34 games = 101.00 / 34 = 2.971 (half-up to 3 decimals) → rank 11 [season-2]" in out
    one_game = pointledger("explain", "らつみ", "--state", state, "--event", "sofu-mahjong/2026-10-10.txt#3", cwd=ROOT)
    assert one_game.stdout.count(" league ") == 1


def test_explain_finds_a_player_by_any_spelling(golden):
    *_, state = golden

    def lines_of(name: str) -> str:
        done = pointledger("explain", name, "--state", state, cwd=ROOT)
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()[0]

    # data/aliases/sofu-mahjong.csv has けん → Ken; NFKC makes Ｋｅｎ Ken; no other id is 'ken' in
    # another letter case, so 'ken' is Ken too
    assert lines_of("けん") == lines_of("Ｋｅｎ") == lines_of(" Ken ") == lines_of("Ken") == lines_of("ken")
    assert lines_of("Ken").startswith("Ken: ")


def test_explain_says_when_an_alias_table_cannot_be_read(golden, tmp_path):
    # the office's alias table saved with other column names: its aliases cannot be applied, and
    # explain says so on stderr instead of answering as if the alias did not exist
    *_, state = golden
    data_dir = tmp_path / "data"
    shutil.copytree(ROOT / "data", data_dir, ignore=shutil.ignore_patterns("samples"))
    (data_dir / "aliases" / "sofu-mahjong.csv").write_text("name,id\nけん,Ken\n", encoding="utf-8")
    by_alias = pointledger("explain", "けん", "--state", state, "--data-dir", data_dir, cwd=ROOT)
    expected = (f"warning: {data_dir / 'aliases' / 'sofu-mahjong.csv'}: expected the columns alias,player_id; "
                "found name, id (missing alias, player_id); its aliases are not applied")
    assert by_alias.returncode == 6 and expected in by_alias.stderr
    by_name = pointledger("explain", "Ken", "--state", state, "--data-dir", data_dir, cwd=ROOT)
    assert by_name.returncode == 0 and by_name.stdout.startswith("Ken: ") and expected in by_name.stderr
