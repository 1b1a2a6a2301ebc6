"""The publication site's shared pages (issue 15): the index per organisation and across
organisations, player pages with balances and every standing line, in the organisation's language.
Points are the mahjong seed's: 1st 7, 2nd 4, 3rd 2, 4th 0 (no bust, no 3-koro: every score is at
least 10000 and the 2nd at least 20000)."""
from __future__ import annotations

import re
import shutil
import tempfile
from datetime import date
from pathlib import Path

import pandas as pd
import pytest

from office import Office
from pipelines.core.settings import DATA_DIR
from pipelines.core.site import player_slug
from schemas.site import SiteMessage

ORG = "sofu-mahjong"


def game(day: int, order: list[str]) -> str:
    return f"2026-11-{day:02d}\n" + "".join(f"・{i + 1}位{p} {40000 - 10000 * i}\n" for i, p in enumerate(order))


def page(office: Office, rel: str) -> str:
    return (office.state / "publications" / rel).read_text(encoding="utf-8")


def hrefs(html: str) -> list[str]:
    return re.findall(r'href="([^"#]+)"', html)


def test_index_and_player_pages_from_the_ledger(office):
    office.post(f"{ORG}/a.txt", game(3, ["A", "B", "C", "D"]))
    office.post(f"{ORG}/b.txt", game(4, ["B", "A", "C", "<script>x</script>"]))
    assert office.run().exit_code == 0
    index = page(office, f"{ORG}/index.html")
    # Japanese fixed texts (language = "ja"); every player listed; the script is text
    assert "プレーヤー (5)" in index and "<script>x</script>" not in index and "&lt;script&gt;x&lt;/script&gt;" in index
    # every link of the index resolves to a file of the site
    for href in hrefs(index):
        assert (office.state / "publications" / ORG / href).resolve().is_file(), href
    # the leaderboard page of the period is listed by its own title
    assert "ランキング" in index
    # A: 1st (7) + 2nd (4) = 11.00 in one season, two standing lines with their basis
    a = page(office, f"{ORG}/players/{player_slug('A')}.html")
    assert '<td class="num">11.00</td><td class="num">2</td>' in a
    assert a.count('<td class="date">2026-11-0') == 2 and "1st 7 = 7" in a and "2nd 4 = 4" in a
    top = page(office, "index.html")
    assert f'href="{ORG}/index.html"' in top


def test_a_corrected_game_shows_the_standing_lines_only_and_equals_a_fresh_run(office, tmp_path):
    office.post(f"{ORG}/a.txt", game(3, ["A", "B", "C", "D"]))
    office.post(f"{ORG}/b.txt", game(4, ["B", "A", "C", "E"]))
    assert office.run().exit_code == 0
    office.post(f"{ORG}/b.txt", game(4, ["B", "C", "D", "A"]))  # A was 4th, not 2nd; E did not play
    assert office.run().exit_code == 0
    a = page(office, f"{ORG}/players/{player_slug('A')}.html")
    # 7 + 0 = 7.00: the reversed 2nd place is not a standing line
    assert '<td class="num">7.00</td><td class="num">2</td>' in a and "2nd 4 = 4" not in a and "4th 0 = 0" in a
    # E's only line was reversed: no page, not in the index
    assert not (office.state / "publications" / ORG / "players" / f"{player_slug('E')}.html").exists()
    assert ">E<" not in page(office, f"{ORG}/index.html")
    # the same bytes as a fresh run on the final inbox
    (tmp_path / "fresh").mkdir()
    fresh = Office(tmp_path / "fresh")
    for path in (office.inbox / ORG).iterdir():
        fresh.post(f"{ORG}/{path.name}", path.read_bytes())
    assert fresh.run().exit_code == 0
    for rel in [f"{ORG}/index.html", f"{ORG}/players/{player_slug('A')}.html", f"{ORG}/players/{player_slug('B')}.html"]:
        assert page(office, rel) == page(fresh, rel), rel


def test_swedish_player_pages_carry_names_and_swedish_texts(office):
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sweden"))
    from se_helpers import ORG as SE, event_text, register, standings_text

    register(office)
    office.post(f"{SE}/bk-lavec/2024-10-01-tisdag.event.txt", event_text())
    office.post(f"{SE}/bk-lavec/2024-10-01-tisdag.standings.csv", standings_text(8))
    assert office.run().exit_code == 0
    index = page(office, f"{SE}/index.html")
    assert "Spelare (" in index and "Spelare 000 Åström" in index and "200000" in index
    first = page(office, f"{SE}/players/{player_slug('200000')}.html")
    assert "<title>Spelare 000 Åström (200000) – Förbundet Svensk Bridge</title>" in first


def test_slugs_are_stable_unique_and_readable():
    assert player_slug("らつみ") == player_slug("らつみ") and player_slug("らつみ").startswith("らつみ-")
    assert player_slug("A B") != player_slug("A-B")  # the hash keeps two ids apart
    assert re.fullmatch(r"[0-9a-f]{8}", player_slug("../"))  # nothing but a hash for a name of symbols


def test_every_fixed_text_exists_in_every_language():
    table = SiteMessage.validate(pd.read_csv(DATA_DIR / "site" / "messages.csv", dtype=str, keep_default_na=False))
    assert set(table.columns) == {"key", "en", "ja", "sv"} and len(table) > 10


def test_a_swedish_player_page_shows_the_master_class_and_the_promotion(office):
    # a 100-pair bronze event: the winners get 200 bp (Tabell A2, row 100, 1st place), which is
    # 2 mp: Klöver master (the seed's table: 2 mp, bronze only); the page says so and when
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sweden"))
    from se_helpers import ORG as SE, event_text, register, standings_text

    register(office)
    office.post(f"{SE}/bk-lavec/2024-10-01-tisdag.event.txt", event_text())
    office.post(f"{SE}/bk-lavec/2024-10-01-tisdag.standings.csv", standings_text(100))
    assert office.run().exit_code == 0
    holdings = office.query("select bp from se_holdings where member = '200000'")
    assert [str(v) for v in holdings["bp"]] == ["200.00"]
    first = page(office, f"{SE}/players/{player_slug('200000')}.html")
    assert "Mästarklass och befordringar" in first and "innehav 200.00 bp, 0.00 sp, 0.00 gp" in first
    promoted = office.query("select title, reached_on from se_promotions where member = '200000'")
    assert len(promoted) == 1 and f"befordran {promoted['reached_on'][0]}: {promoted['title'][0]}" in first


def test_the_atom_feed_lists_new_corrected_and_recomputed_results(office):
    import xml.etree.ElementTree as ET
    from datetime import date

    from pipelines.core import run as nightly

    atom = "{http://www.w3.org/2005/Atom}"

    def entries():
        feed = ET.fromstring((office.state / "publications" / ORG / "feed.atom").read_bytes())
        assert feed.find(f"{atom}id").text.startswith("urn:uuid:") and feed.find(f"{atom}author/{atom}name").text
        return [(e.find(f"{atom}title").text, e.find(f"{atom}updated").text, e.find(f"{atom}summary").text)
                for e in feed.findall(f"{atom}entry")]

    # night 1 (as of 2026-12-02): game a, four players, four award lines (1st 7, 2nd 4, 3rd 2, 4th 0)
    office.post(f"{ORG}/a.txt", game(3, ["A", "B", "C", "D"]))
    assert office.run(date(2026, 12, 2)).exit_code == 0
    assert entries() == [("新着成績: sofu-mahjong/a.txt (2026-11-03)", "2026-12-02T00:00:00Z", "4 名に 4 件のポイント行")]
    index = page(office, f"{ORG}/index.html")
    assert '<a href="feed.atom" type="application/atom+xml">' in index and 'rel="alternate" type="application/atom+xml"' in index

    # night 2: game a corrected (C and D swapped): a correction reverses every line of the file's
    # earlier version and posts the new version's (DESIGN: 4 reversed, 4 posted), newest entry first
    office.post(f"{ORG}/a.txt", game(3, ["A", "B", "D", "C"]))
    assert office.run(date(2026, 12, 3)).exit_code == 0
    got = entries()
    assert got[0] == ("訂正成績: sofu-mahjong/a.txt (2026-11-03)", "2026-12-03T00:00:00Z", "4 件を取り消し、4 件を記帳")
    assert got[1][1] == "2026-12-02T00:00:00Z" and len(got) == 2

    # 2nd place of season-2 (from 2026-10-01, the game.s season) made worth 5 and recomputed: a
    # recompute posts the difference only, B.s 2nd place
    path = office.data / "rules" / "mahjong" / "placing_points.csv"
    path.write_text(path.read_text(encoding="utf-8").replace("sofu-league,season-2,2,4\n", "sofu-league,season-2,2,5\n"),
                    encoding="utf-8")
    done = nightly.run(office.inbox, office.state, date(2026, 12, 4), office.data_dir(), recompute=nightly.Recompute())
    assert done.exit_code == 0
    assert entries()[0] == ("規定変更による再計算: sofu-mahjong/a.txt (2026-11-03)", "2026-12-04T00:00:00Z", "1 件を取り消し、1 件を記帳")


def test_a_swedish_club_is_a_section_of_the_site(office):
    """The organisation's index lists each club once (its register name, how many pages), the
    club's page lists its pages newest first with the club's own stamp, and each event's up link
    goes to its club: the index stays short with 300 clubs and 90,000 events."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sweden"))
    from se_helpers import ORG as SE, post_event, register

    register(office)
    for day in ("2024-10-01", "2024-10-08"):
        post_event(office, "bk-lavec", f"{day}-tisdag", 8, datum=day)
    assert office.run().exit_code == 0
    index = page(office, f"{SE}/index.html")
    # the club (BK Lavec, clubs.csv) with its two events and its monthly page: three pages
    assert '<a href="bk-lavec/index.html">BK Lavec</a> <span class="stamp">bk-lavec/ · 3</span>' in index
    assert "2024-10-01-tisdag" not in index
    club = page(office, f"{SE}/bk-lavec/index.html")
    assert "<h1>BK Lavec</h1>" in club and "per 2024-10-08" in club and "Sidor (3)" in club
    listed = re.findall(r'<li><a href="([^"]+)">', club)
    assert listed == ["månad-2024-10/index.html", "2024-10-08-tisdag/index.html", "2024-10-01-tisdag/index.html"]
    for href in listed:
        assert (office.state / "publications" / SE / "bk-lavec" / href).is_file()
    event = page(office, f"{SE}/bk-lavec/2024-10-01-tisdag/index.html")
    assert '<a rel="up" href="../../bk-lavec/index.html">↑ BK Lavec</a>' in event


def test_a_section_without_pages_loses_its_index(tmp_path):
    from pipelines.core import site

    out = tmp_path / "org"
    render = lambda title, stamp, pages: f"<title>{title}</title>{len(pages)}"  # noqa: E731
    pages = [{"href": "club/2024-09-03-a/index.html", "title": "A", "folder": "club/2024-09-03-a"},
             {"href": "ranking/index.html", "title": "Ranking", "folder": "ranking"}]
    index: dict = {}
    listed, written = site.publish_sections(out, pages, {"club": "The Club"}, {}, render, index)
    assert listed == [{"href": "club/index.html", "title": "The Club", "folder": "club", "count": 1}, pages[1]]
    assert written == [out / "club" / "index.html"] and (out / "club" / "index.html").read_text() == "<title>The Club</title>1"
    # the same pages again: nothing written; the club's last page withdrawn: its index goes
    assert site.publish_sections(out, pages, {"club": "The Club"}, {}, render, index)[1] == []
    listed, written = site.publish_sections(out, pages[1:], {"club": "The Club"}, {}, render, index)
    assert listed == [pages[1]] and written == [] and not (out / "club" / "index.html").exists()


def dated_game(day: str, order: list[str]) -> str:
    return f"{day}\n" + "".join(f"・{i + 1}位{p} {40000 - 10000 * i}\n" for i, p in enumerate(order))


def test_a_player_page_holds_the_latest_season_and_each_earlier_season_has_its_own(office, tmp_path):
    # sofu-mahjong's calendar: season-1 ends 2026-09-30, season-2 starts 2026-10-01. By hand, A:
    # 1st (7) on 2026-09-28 in season-1; 2nd (4) on 2026-10-03 and 1st (7) on 2026-11-04 in season-2
    office.post(f"{ORG}/a.txt", dated_game("2026-09-28", ["A", "B", "C", "D"]))
    office.post(f"{ORG}/b.txt", dated_game("2026-10-03", ["B", "A", "C", "D"]))
    assert office.run().exit_code == 0
    players = office.state / "publications" / ORG / "players"
    main = players / f"{player_slug('A')}.html"
    earlier = players / f"{player_slug('A')}.{player_slug('season-1')}.html"
    a = main.read_text(encoding="utf-8")
    # the balances of both seasons, season-1 linked to its page; the lines of season-2 only
    assert f'<a href="{earlier.name}">season-1</a></td><td>league</td><td class="num">7.00</td><td class="num">1</td>' in a
    assert '<td>season-2</td><td>league</td><td class="num">4.00</td><td class="num">1</td>' in a
    assert a.count('<td class="date">') == 1 and "2nd 4 = 4" in a and "1st 7 = 7" not in a
    old = earlier.read_text(encoding="utf-8")
    assert old.count('<td class="date">') == 1 and '<td class="date">2026-09-28</td><td class="num">7.00</td>' in old
    assert f'href="{main.name}"' in old and "<title>A – シーズン season-1 – " in old
    # a night in season-2 leaves season-1's page as it was (not even rewritten)
    before = earlier.stat().st_mtime_ns
    office.post(f"{ORG}/c.txt", dated_game("2026-11-04", ["A", "B", "C", "D"]))
    assert office.run().exit_code == 0
    assert earlier.stat().st_mtime_ns == before
    assert main.read_text(encoding="utf-8").count('<td class="date">') == 2
    # a correction of the season-1 game rewrites its page: A was 3rd (2), not 1st
    office.post(f"{ORG}/a.txt", dated_game("2026-09-28", ["B", "C", "A", "D"]))
    assert office.run().exit_code == 0
    assert "3rd 2 = 2" in earlier.read_text(encoding="utf-8") and "1st 7 = 7" not in earlier.read_text(encoding="utf-8")
    # the same bytes as a fresh run on the final inbox, every player file
    (tmp_path / "fresh").mkdir()
    fresh = Office(tmp_path / "fresh")
    for path in (office.inbox / ORG).iterdir():
        fresh.post(f"{ORG}/{path.name}", path.read_bytes())
    assert fresh.run().exit_code == 0
    mine = sorted(p.name for p in players.glob("*.html"))
    theirs = fresh.state / "publications" / ORG / "players"
    assert mine == sorted(p.name for p in theirs.glob("*.html")) and len(mine) == 8  # 4 players x 2 seasons
    for name in mine:
        assert (players / name).read_text(encoding="utf-8") == (theirs / name).read_text(encoding="utf-8"), name


def test_an_office_catalogue_without_the_newer_texts_gets_them_from_the_bundled_one(tmp_path):
    from pipelines.core.site import messages

    (tmp_path / "site").mkdir()
    # an office's catalogue written before the season pages: its own wording stays, the new keys come from the bundle
    (tmp_path / "site" / "messages.csv").write_text("key,en,ja,sv\nbalances,Points held,残高,Saldo\n", encoding="utf-8")
    text = messages(tmp_path, "en")
    assert text["balances"] == "Points held" and text["season_lines"] == "Award lines of the season"


def test_a_new_member_register_renames_the_player_on_every_page_of_every_season(office):
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sweden"))
    from se_helpers import ORG as SE, post_event, register

    # member 200000 wins an event of the season 2023/24 (spelår from July) and one of 2024/25:
    # the page of the member holds 2024/25, the earlier season has its own page; a register that
    # renames the member renames both pages, with no result of that night
    register(office)
    post_event(office, "bk-lavec", "2024-06-11-a", 8, datum="2024-06-11")
    post_event(office, "bk-lavec", "2024-10-01-b", 8, datum="2024-10-01")
    assert office.run().exit_code == 0
    players = office.state / "publications" / SE / "players"
    pages = sorted(players.glob(f"{player_slug('200000')}*.html"))
    assert len(pages) == 2 and all("Spelare 000 Åström" in p.read_text(encoding="utf-8") for p in pages)
    renamed = (office.inbox / SE / "medlemsregister.csv").read_text(encoding="utf-8").replace(
        "200000;Spelare 000 Åström", "200000;Karin Öberg")
    office.post(f"{SE}/medlemsregister.csv", renamed)
    assert office.run().exit_code == 0
    for p in pages:
        text = p.read_text(encoding="utf-8")
        assert "Karin Öberg" in text and "Spelare 000 Åström" not in text, p.name


def test_event_page_links_from_the_pages_or_from_their_lookup_made_once():
    """A line's link to its event page: the folder its event id names (a DM bonus links to its
    final's page), or for period pages the latest YYYY-MM folder not after the event's month. The
    lookup made once per night (EventPages) gives the links the page list gives. Links by hand."""
    import pyarrow as pa

    from pipelines.core.site import EventPages, event_page_column

    pages = [{"folder": "klubb-001/2026-07-02-kväll"}, {"folder": "klubb-002/2026-07-03-kväll"}]
    ids = pa.array(["svensk-bridge/klubb-001/2026-07-02-kväll", "svensk-bridge/klubb-001/2026-07-02-kväll#dm-bonus",
                    "svensk-bridge/klubb-009/2026-07-04-kväll"])
    dates = pa.array(["2026-07-02", "2026-07-02", "2026-07-04"])
    want = ["../klubb-001/2026-07-02-kväll/index.html", "../klubb-001/2026-07-02-kväll/index.html", None]
    assert event_page_column(ids, dates, pages, "svensk-bridge", False).to_pylist() == want
    assert event_page_column(ids, dates, EventPages(pages, False), "svensk-bridge", False).to_pylist() == want

    periods = [{"folder": "2026-01"}, {"folder": "2026-03"}, {"folder": "notes"}]
    dates = pa.array(["2025-12-31", "2026-02-15", "2026-03-01", "2026-08-01"])
    ids = pa.array(["g1", "g2", "g3", "g4"])
    want = [None, "../2026-01/index.html", "../2026-03/index.html", "../2026-03/index.html"]
    assert event_page_column(ids, dates, periods, "league", True).to_pylist() == want
    assert event_page_column(ids, dates, EventPages(periods, True), "league", True).to_pylist() == want
    with pytest.raises(ValueError, match="other kind of site"):
        event_page_column(ids, dates, EventPages(periods, True), "league", False)


def test_a_sections_stamp_is_its_latest_event_and_its_rule_versions():
    """By hand: club a holds two events (latest 2026-07-02; versions se-2009 and se-2026, sorted,
    each once), club b one; a page not below a section (a period page) and an event without a page
    have no section."""
    from datetime import date

    from pipelines.core.site import section_stamps

    events = pd.DataFrame({
        "event_page": ["../a/2026-07-01-kväll/index.html", "../a/2026-07-02-kväll/index.html", "../b/2026-06-30/index.html",
                       "../2026-07/index.html", None, "../a/2026-06-01/index.html"],
        "event_date": [date(2026, 7, 1), date(2026, 7, 2), date(2026, 6, 30), date(2026, 7, 3), date(2026, 7, 4), date(2026, 6, 1)],
        "rule_version": ["se-2026", "se-2009", "se-2009", "x", "y", "se-2009"],
    })
    assert section_stamps(events) == {"a": {"as_of": "2026-07-02", "rule_versions": "se-2009, se-2026"},
                                      "b": {"as_of": "2026-06-30", "rule_versions": "se-2009"}}
    assert section_stamps(events.iloc[3:5]) == {}


def test_the_lines_of_consecutive_batches_are_read_together_up_to_the_limit(monkeypatch):
    """Batches of two players; a player's lines are page_stamps' counts of the (player, season)
    pairs due, not of the player's whole history nor the organisation's (p1 has two seasons due:
    1 + 1). At most 6 lines a read: batch 1 (p1 + p2 = 2 + 1 = 3) and batch 2 (p3 + p4 = 2 + 0)
    make 5, read together; batch 3 (p5 + p6 = 1 + 9 = 10) would pass 6: a read of its own, above
    the limit all the same (a batch is never split)."""
    import pandas as pd

    from pipelines.core import site

    monkeypatch.setattr(site, "PLAYER_PAGE_BATCH", 2)
    monkeypatch.setattr(site, "LINES_PER_READ", 6)
    stamps = pd.DataFrame({
        "player_id": ["p1", "p1", "p2", "p3", "p5", "p6", "p1", None],
        "season": ["2025", "2026", "2026", "2026", "2026", "2026", None, None],
        "whole": [False, False, False, False, False, False, True, True],
        "lines": [1, 1, 1, 2, 1, 9, 40, 210]})
    wanted = pd.DataFrame({"player_id": ["p1", "p2", "p3", "p4", "p5", "p6", "p1"],
                           "season": ["2026", "2026", "2026", "", "2026", "2026", "2025"]})
    players = ["p1", "p2", "p3", "p4", "p5", "p6"]
    assert site._read_groups(players, wanted, stamps) == [[["p1", "p2"], ["p3", "p4"]], [["p5", "p6"]]]


def test_players_are_cut_into_parts_by_players_and_by_lines():
    """Batches and worker jobs: at most 2 players and 6 lines a part, in order, never empty. By
    hand: p1 + p2 = 3 + 3 = 6 lines (the limit itself); p3's 10 lines pass 6 alone: a part of its
    own; p4 + p5 = 1 + 1; p6 would be a third player: a new part."""
    from pipelines.core import site

    lines = {"p1": 3, "p2": 3, "p3": 10, "p4": 1, "p5": 1, "p6": 0}
    assert site._cut(["p1", "p2", "p3", "p4", "p5", "p6"], lines, 2, 6) == [["p1", "p2"], ["p3"], ["p4", "p5"], ["p6"]]
    assert site._cut([], lines, 2, 6) == []


def test_a_batch_holds_at_most_its_lines_as_well_as_its_players(monkeypatch):
    """Batches of at most 3 players and 4 lines (page_stamps' counts of the pairs due): p1 (2) +
    p2 (2) = 4; p3 (1) + p4 (0) + p5 (1) = 2 (three players); p6 (9) alone. Read limit 6: the
    first two batches (4 + 2) read together, p6 on its own."""
    import pandas as pd

    from pipelines.core import site

    monkeypatch.setattr(site, "PLAYER_PAGE_BATCH", 3)
    monkeypatch.setattr(site, "LINES_PER_BATCH", 4)
    monkeypatch.setattr(site, "LINES_PER_READ", 6)
    stamps = pd.DataFrame({
        "player_id": ["p1", "p2", "p3", "p5", "p6", None],
        "season": ["2026", "2026", "2026", "2026", "2026", None],
        "whole": [False, False, False, False, False, True],
        "lines": [2, 2, 1, 1, 9, 15]})
    wanted = pd.DataFrame({"player_id": ["p1", "p2", "p3", "p4", "p5", "p6"], "season": ["2026"] * 6})
    players = ["p1", "p2", "p3", "p4", "p5", "p6"]
    assert site._read_groups(players, wanted, stamps) == [[["p1", "p2"], ["p3", "p4", "p5"]], [["p6"]]]


def test_the_feed_keeps_the_newest_run_and_file_pairs_with_their_lines_counted():
    """Entries are (run, file), newest run date first, then the later run, then the file; only the
    organisation's lines count. By hand: r3 (11-03, a recomputation) reposts b.txt (1 line, 1
    reversal); r4 (11-02, made after r2) posts c.txt (3 lines of A, A, B: 2 players, dates 11-01 to
    11-02); r2 (11-02) corrects a.txt (2 reversals, 2 new lines); r1 (11-01) posted a.txt (2) and
    b.txt (1). r5 is the newest run but posted only for another organisation."""
    import duckdb

    from pipelines.core.site import feed_entries

    con = duckdb.connect()
    runs = pd.DataFrame({"run_id": ["r1", "r2", "r3", "r4", "r5"],
                         "as_of": pd.to_datetime(["2026-11-01", "2026-11-02", "2026-11-03", "2026-11-02", "2026-11-05"]).date})
    lines = [  # run, organisation, file, date, entry type, player
        ("r1", "o", "a.txt", "2026-11-01", "award", "A"), ("r1", "o", "a.txt", "2026-11-01", "award", "B"),
        ("r1", "o", "b.txt", "2026-10-31", "award", "C"),
        ("r2", "o", "a.txt", "2026-11-01", "reversal", "A"), ("r2", "o", "a.txt", "2026-11-01", "reversal", "B"),
        ("r2", "o", "a.txt", "2026-11-01", "award", "A"), ("r2", "o", "a.txt", "2026-11-01", "award", "D"),
        ("r3", "o", "b.txt", "2026-10-31", "reversal", "C"), ("r3", "o", "b.txt", "2026-10-31", "award", "C"),
        ("r4", "o", "c.txt", "2026-11-01", "award", "A"), ("r4", "o", "c.txt", "2026-11-02", "award", "A"),
        ("r4", "o", "c.txt", "2026-11-02", "award", "B"),
        ("r4", "x", "z.txt", "2026-11-02", "award", "Z"), ("r5", "x", "z.txt", "2026-11-04", "award", "Z"),
    ]
    awards = pd.DataFrame(lines, columns=["run_id", "organisation", "source_file", "event_date", "entry_type", "player_id"])
    awards["event_date"] = pd.to_datetime(awards["event_date"]).dt.date
    con.register("_runs", runs)
    con.register("_awards", awards)
    con.execute("create table runs as select * from _runs")
    con.execute("create table awards as select * from _awards")
    con.execute("create table recomputations as select 'r3' as run_id")
    want = [
        ("r3", "2026-11-03", "b.txt", "2026-10-31", "2026-10-31", 1, 1, 1, True),
        ("r4", "2026-11-02", "c.txt", "2026-11-01", "2026-11-02", 3, 0, 2, False),
        ("r2", "2026-11-02", "a.txt", "2026-11-01", "2026-11-01", 2, 2, 2, False),
        ("r1", "2026-11-01", "a.txt", "2026-11-01", "2026-11-01", 2, 0, 2, False),
        ("r1", "2026-11-01", "b.txt", "2026-10-31", "2026-10-31", 1, 0, 1, False),
    ]
    for limit in (50, 3, 1):
        got = feed_entries(con, "o", limit)
        assert [tuple(r) for r in got.itertuples(index=False)] == want[:limit], limit


def test_the_feed_keeps_a_large_nights_newest_results():
    """One run posts three files of three months (a first night, a history): with room for two
    entries the feed keeps November's and October's, not the alphabetically first (September)."""
    import duckdb

    from pipelines.core.site import feed_entries

    con = duckdb.connect()
    con.execute("create table runs as select 'r1' as run_id, date '2026-12-01' as as_of")
    con.execute("""create table awards as select * from (values
        ('r1', 'o', 'o/2026-09-01.txt', date '2026-09-01', 'award', 'A'),
        ('r1', 'o', 'o/2026-10-01.txt', date '2026-10-01', 'award', 'A'),
        ('r1', 'o', 'o/2026-11-01.txt', date '2026-11-01', 'award', 'A'))
        as t(run_id, organisation, source_file, event_date, entry_type, player_id)""")
    con.execute("create table recomputations (run_id varchar)")
    assert list(feed_entries(con, "o", 2)["source_file"]) == ["o/2026-11-01.txt", "o/2026-10-01.txt"]


def test_a_page_is_written_only_where_its_bytes_change(tmp_path):
    """The same text: not written (the file keeps its inode and mtime). A text of the same size
    that differs ("Rosa" -> "Rose"): written, although its size does not tell. Another size:
    written. A page in a folder not made yet: its folder is made."""
    from pipelines.core import site

    page = tmp_path / "players" / "rosa.html"
    assert site._write_if_changed(page, "<p>Rosa Quinn – 5.00</p>\n") is True
    assert page.read_text(encoding="utf-8") == "<p>Rosa Quinn – 5.00</p>\n"
    before = page.stat()
    assert site._write_if_changed(page, "<p>Rosa Quinn – 5.00</p>\n") is False
    after = page.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert site._write_if_changed(page, "<p>Rose Quinn – 5.00</p>\n") is True
    assert page.read_text(encoding="utf-8") == "<p>Rose Quinn – 5.00</p>\n"
    assert site._write_if_changed(page, "<p>Rose Quinn – 15.00</p>\n") is True
    assert page.read_text(encoding="utf-8") == "<p>Rose Quinn – 15.00</p>\n"
    assert sorted(p.name for p in page.parent.iterdir()) == ["rosa.html"]  # no temporary file left


def test_an_organisation_that_never_sent_a_file_gets_pages_from_its_first_file_on(tmp_path):
    """Every bundled organisation enabled, files from the mahjong club only: the site holds the
    club's pages and no empty site for the four others, whose views answer (empty) all the same;
    the backgammon club's first file gives it its pages and its place in the site's index."""
    from pipelines.core import run as nightly
    from pipelines.core.sql import fetch, open_database

    inbox, state = tmp_path / "inbox", tmp_path / "var"
    (inbox / ORG).mkdir(parents=True)
    (inbox / ORG / "a.txt").write_text(game(3, ["A", "B", "C", "D"]), encoding="utf-8")
    nightly.run(inbox, state, as_of=date(2026, 12, 2))
    pubs = state / "publications"
    assert sorted(p.name for p in pubs.iterdir() if p.is_dir()) == [ORG]
    top = (pubs / "index.html").read_text(encoding="utf-8")
    assert f'href="{ORG}/index.html"' in top and "ukbgclub" not in top
    con = open_database(state / "warehouse.duckdb", read_only=True)
    try:
        assert fetch(con, "select count(*) as n from se_results")["n"].iloc[0] == 0
        assert fetch(con, "select count(*) as n from mahjong_results")["n"].iloc[0] == 4
    finally:
        con.close()
    shutil.copytree(DATA_DIR / "samples" / "inbox" / "ukbgclub", inbox / "ukbgclub")
    nightly.run(inbox, state, as_of=date(2026, 12, 3))
    assert (pubs / "ukbgclub" / "index.html").is_file()
    assert 'href="ukbgclub/index.html"' in (pubs / "index.html").read_text(encoding="utf-8")
