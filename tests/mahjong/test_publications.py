"""Leaderboard publications: what players read on their phones, and what cannot hurt them."""
from __future__ import annotations

import csv
import io

EVIL = ["<script>alert(1)</script>", "=HYPERLINK(\"http://x\",\"win\")", "+SUM(A1)", "@cmd", "-2+3", "A|B"]


def _post_evil_league(office):
    lines = ["2026-10-10"]
    names = EVIL + ["田中一郎", "らつみ"]
    for i in range(24):  # 8 players, 24 games: every name plays 12 games
        four = [names[(i + k) % 8] for k in range(4)]
        for place, (player, score) in enumerate(zip(four, [40000 + 100 * i, 30000, 20000, 10000 - 100 * i]), start=1):
            lines.append(f"・{place}位{player} {score}")
        lines.append("")
    office.post("sofu-mahjong/evil.txt", "\n".join(lines))
    assert office.run().exit_code == 0
    return office.state / "publications" / "sofu-mahjong" / "2026-10"


def test_html_shows_input_as_text_never_as_markup(office):
    html = (_post_evil_league(office) / "index.html").read_text(encoding="utf-8")
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert '<html lang="ja">' in html and 'charset="utf-8"' in html and "width=device-width" in html
    assert "田中一郎" in html and "蒼風杯" in html


def test_csv_cells_cannot_run_as_formulas(office):
    text = (_post_evil_league(office) / "leaderboard.csv").read_text(encoding="utf-8")
    players = [row["player"] for row in csv.DictReader(io.StringIO(text))]
    assert "'=HYPERLINK(\"http://x\",\"win\")" in players
    assert "'+SUM(A1)" in players and "'@cmd" in players and "'-2+3" in players
    assert not any(p.startswith(("=", "+", "@", "-")) for p in players)
    assert "<script>alert(1)</script>" in players  # CSV is data, not markup: kept as written
    # numbers stay numbers (a negative total is not prefixed)
    assert all(row["total"].lstrip("-").replace(".", "").isdigit() for row in csv.DictReader(io.StringIO(text)))


def test_markdown_escapes_table_breaking_characters(office):
    md = (_post_evil_league(office) / "leaderboard.md").read_text(encoding="utf-8")
    assert "A\\|B" in md and "\\<script\\>" in md


def test_not_yet_eligible_players_listed_with_games_needed(office):
    html = (_post_evil_league(office) / "index.html").read_text(encoding="utf-8")
    # everyone has 12 games of the 20 needed
    assert "まだ規定試合数に達した人はいません" in html
    assert html.count("<td>8 戦</td>") == 8


def test_periods_written_by_workers_are_the_periods_written_here(sample_run, tmp_path, monkeypatch):
    """A history's periods are written by worker processes (both cores): every file of every
    period folder (page, CSV, Markdown, workbook) must be the one the run's own process writes in
    the session's sample run, byte for byte."""
    import re
    import shutil

    from office import Office
    from pipelines.core import parallel
    from pipelines.core.settings import DATA_DIR
    import pipelines.mahjong.publish as publish

    (tmp_path / "office").mkdir()
    office = Office(tmp_path / "office")
    shutil.copytree(DATA_DIR / "samples" / "inbox" / "sofu-mahjong", office.inbox / "sofu-mahjong")
    calls = []
    map_streamed = publish.map_streamed

    def spy(function, chunks, processes=None, ahead=2):
        chunks = list(chunks)
        calls.append((function.__name__, len(chunks), processes))
        return map_streamed(function, iter(chunks), processes, ahead)

    monkeypatch.setenv(parallel.WORKERS_VARIABLE, "2")
    monkeypatch.setattr(publish, "PARALLEL_FROM_PERIODS", 1)  # the samples' periods as if a history
    monkeypatch.setattr(publish, "map_streamed", spy)
    office.run()

    assert [(name, processes) for name, n, processes in calls if n >= 2] == [("write_period", 2)]

    def periods(root):
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
                if p.is_file() and re.fullmatch(r"\d{4}-\d{2}", p.relative_to(root).parts[0])}

    got = periods(office.state / "publications" / "sofu-mahjong")
    want = periods(sample_run.state / "publications" / "sofu-mahjong")
    assert sum(name.endswith("leaderboard.xlsx") for name in want) >= 2
    assert sorted(got) == sorted(want)
    assert [name for name in got if got[name] != want[name]] == []


def test_leaderboards_read_several_periods_a_query_are_each_periods_own(sample_run, monkeypatch):
    """The periods' leaderboards are read a dozen a query (here two, to cross a query's boundary):
    each must be exactly what a query of that period alone returns, in the page's order; a period
    with no rows comes back empty."""
    import pandas as pd

    import pipelines.mahjong.publish as publish
    from pipelines.core.sql import fetch, open_database

    monkeypatch.setattr(publish, "PERIODS_PER_QUERY", 2)
    con = open_database(sample_run.state / "warehouse.duckdb", read_only=True)
    try:
        periods = [p for (p,) in con.execute(
            "select distinct period from mahjong_leaderboard where organisation = 'sofu-mahjong' order by 1").fetchall()]
        assert len(periods) >= 2
        asked = periods + ["1999-01"]  # a period the league never played
        got = list(publish._leaderboards(con, "sofu-mahjong", asked))
        assert [p for p, _ in got] == asked
        for period, board in got[:-1]:
            alone = fetch(con, "select * from mahjong_leaderboard where organisation = 'sofu-mahjong' and period = ? "
                               "order by as_of, rank nulls last, average desc, player_id", [period])
            pd.testing.assert_frame_equal(board, alone.rename(columns={"player_id": "player"}))
        assert got[-1][1].empty and list(got[-1][1].columns) == list(got[0][1].columns)
    finally:
        con.close()
