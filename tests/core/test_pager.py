"""Previous / next / up links on every published page (issue 15; pipelines/core/pager.py)."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from pipelines.core import pager

TEXT = {"up": "Up", "pages": "Pages"}


def _page(folder: str, title: str) -> dict:
    return {"href": f"{folder}/index.html", "title": title, "folder": folder}


def test_neighbours_are_the_pages_of_one_kind_in_one_folder_by_date():
    pages = [_page("bk-lavec/2024-09-10-tisdag", "10 sep"), _page("bk-lavec/månad-2024-09", "september"),
             _page("bk-lavec/2024-09-03-tisdag", "3 sep"), _page("bk-lavec/månad-2024-10", "oktober"),
             _page("uppsala-bk/2024-09-05-torsdag", "5 sep"), _page("ranking", "Rankinglista")]
    links = pager.neighbours(pages)
    first, second = links["bk-lavec/2024-09-03-tisdag/index.html"], links["bk-lavec/2024-09-10-tisdag/index.html"]
    # up: the club's section page (a club's events are listed there, not on the organisation's index)
    assert first["up"] == "../../bk-lavec/index.html" and first["up_title"] == "bk-lavec" and first["prev"] is None
    assert first["next"] == {"href": "../../bk-lavec/2024-09-10-tisdag/index.html", "title": "10 sep"}
    assert second["prev"]["title"] == "3 sep" and second["next"] is None  # not the monthly page
    assert links["bk-lavec/månad-2024-09/index.html"]["next"]["title"] == "oktober"
    assert links["uppsala-bk/2024-09-05-torsdag/index.html"]["prev"] is None  # another club
    assert links["ranking/index.html"] == {"up": "../index.html", "up_title": None, "prev": None, "next": None}
    assert pager.neighbours(pages, {"bk-lavec": "BK Lavec"})["bk-lavec/månad-2024-09/index.html"]["up_title"] == "BK Lavec"


def test_the_pager_is_put_once_and_replaced_after():
    page = "<html><body>\n<h1>x</h1></body></html>"
    links = {"up": "../index.html", "prev": None, "next": {"href": "../b/index.html", "title": "B <&>"}}
    once = pager.with_nav(page, pager.nav_html(links, TEXT))
    assert once.count('<nav class="pager"') == 1 and "B &lt;&amp;&gt; →" in once
    assert pager.with_nav(once, pager.nav_html(links, TEXT)) == once
    moved = pager.with_nav(once, pager.nav_html(dict(links, next=None), TEXT))
    assert moved.count('<nav class="pager"') == 1 and 'rel="next"' not in moved


@pytest.fixture(scope="module")
def site(sample_run) -> Path:
    return sample_run.state / "publications"


def test_every_pager_link_of_the_sample_site_resolves_and_the_periods_are_in_order(site):
    links = 0
    for page in site.rglob("index.html"):
        text = page.read_text(encoding="utf-8")
        nav = re.search(r'<nav class="pager".*?</nav>', text, re.S)
        if nav is None:
            continue
        for href in re.findall(r'href="([^"]+)"', nav.group(0)):
            assert (page.parent / href).resolve().is_file(), (page, href)
            links += 1
    assert links > 20
    # the sample mahjong league has the periods 2026-08 (Aug-Sep) and 2026-10 (Oct-Nov)
    aug = (site / "sofu-mahjong" / "2026-08" / "index.html").read_text(encoding="utf-8")
    oct_ = (site / "sofu-mahjong" / "2026-10" / "index.html").read_text(encoding="utf-8")
    assert 'rel="next" href="../2026-10/index.html"' in aug and 'rel="prev"' not in aug
    assert 'rel="prev" href="../2026-08/index.html"' in oct_ and 'rel="next"' not in oct_
    assert 'rel="up" href="../index.html"' in aug


def test_a_player_line_links_to_its_event_page_where_the_event_has_one(site):
    from pipelines.core.site import player_slug

    links = 0
    for page in site.rglob("players/*.html"):
        for href in re.findall(r'<a href="([^"]+)" aria-label="[^"]*">→</a>', page.read_text(encoding="utf-8")):
            assert (page.parent / href).resolve().is_file(), (page, href)
            links += 1
    assert links > 100
    # member 100000 (Karin Lövgren) won the north-south list of BK Lavec's Tuesday Mitchell of 2024-09-03
    karin = (site / "svensk-bridge" / "players" / f"{player_slug('100000')}.html").read_text(encoding="utf-8")
    assert 'href="../bk-lavec/2024-09-03-tisdag/index.html"' in karin
    # a mahjong line is a game, published inside its period's leaderboard (two months from the
    # period's folder name): each links to the period its date falls in
    ken = (site / "sofu-mahjong" / "players" / f"{player_slug('Ken')}.html").read_text(encoding="utf-8")
    rows = _line_links(ken, r'href="\.\./(\d{4}-\d{2})/index\.html"')
    assert rows and all(p and p <= month <= _plus_one_month(p) for month, p in rows), rows
    # a backgammon line links to its month's snapshot
    bg = next((site / "ukbgclub" / "players").glob("*.html")).read_text(encoding="utf-8")
    bg_rows = _line_links(bg, r'href="\.\./\d{4}/(\d{4}-\d{2})/index\.html"')
    assert bg_rows and all(month == snapshot for month, snapshot in bg_rows), bg_rows


def _line_links(page: str, link: str) -> list[tuple[str, str | None]]:
    """(the line's month, the month in its link or None) of every award line of a player page."""
    out = []
    for month, row in re.findall(r'<tr><td class="date">(\d{4}-\d{2})-\d{2}</td>(.*?)</tr>', page, re.S):
        found = re.search(link, row)
        out.append((month, found.group(1) if found else None))
    return out


def _plus_one_month(month: str) -> str:
    year, m = int(month[:4]), int(month[5:])
    return f"{year + m // 12}-{m % 12 + 1:02d}"


def test_the_page_index_skips_unchanged_pages_and_sees_a_rewritten_one(tmp_path, monkeypatch):
    from pipelines.core import site

    out = tmp_path / "org"
    for name in ("2026-08", "2026-10"):
        (out / name).mkdir(parents=True)
        (out / name / "index.html").write_text(f"<html><head><title>Period {name}</title></head><body><p>{name}</p></body></html>",
                                               encoding="utf-8")
    text = {"up": "up", "prev": "prev", "next": "next", "pages": "pages"}
    index: dict = {}
    pages = site.published_pages(out, index)
    assert [p["title"] for p in pages] == ["Period 2026-08", "Period 2026-10"]
    assert len(site.link_pages(out, pages, text, index)) == 2  # both get their links
    assert 'rel="next" href="../2026-10/index.html"' in (out / "2026-08" / "index.html").read_text(encoding="utf-8")
    # a second night with nothing changed reads no page at all
    real = Path.read_text

    def no_reading(path, *args, **kwargs):
        assert path.name != "index.html", f"read {path}"
        return real(path, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", no_reading)
    pages = site.published_pages(out, index)
    assert site.link_pages(out, pages, text, index) == []
    monkeypatch.undo()
    # a publisher rewrites a page (without links, a new title): it is read and linked again, and its
    # neighbour too, whose link names the new title
    (out / "2026-08" / "index.html").write_text("<html><head><title>Period 2026-08 again</title></head><body><p>x</p></body></html>",
                                               encoding="utf-8")
    pages = site.published_pages(out, index)
    assert pages[0]["title"] == "Period 2026-08 again"
    assert site.link_pages(out, pages, text, index) == [out / "2026-08" / "index.html", out / "2026-10" / "index.html"]
    assert 'rel="next"' in (out / "2026-08" / "index.html").read_text(encoding="utf-8")
    assert "Period 2026-08 again" in (out / "2026-10" / "index.html").read_text(encoding="utf-8")


def test_a_night_lists_only_the_folders_that_changed(tmp_path, monkeypatch):
    """Publishers swap a page's folder in whole (replace_folder), so a club folder whose mtime is
    unchanged holds the same event folders: an unchanged night lists no folder, a new event lists
    its own club's folders only, and the links change on the new page's neighbour (by hand: events
    are ordered by their dated folder names)."""
    import os
    import shutil

    from pipelines.core import site
    from pipelines.core.publishing import replace_folder

    out = tmp_path / "org"

    def event(club: str, folder: str) -> None:
        replace_folder(out / club / folder, {"index.html": f"<html><head><title>{club} {folder}</title></head><body>\n</body></html>"})

    for club, folder in [("bk-a", "2024-09-03-tisdag"), ("bk-a", "2024-09-10-tisdag"), ("bk-a", "2024-09-17-tisdag"),
                         ("bk-b", "2024-09-05-torsdag"), ("bk-b", "2024-09-12-torsdag")]:
        event(club, folder)
    text = {"up": "up", "pages": "pages"}
    index: dict = {}
    assert len(site.link_pages(out, site.published_pages(out, index), text, index)) == 5
    listed = []
    real = os.scandir
    # (the os module is shared: shutil.rmtree lists by file descriptor, not recorded)
    monkeypatch.setattr(site.os, "scandir", lambda path=".": (isinstance(path, str) and listed.append(os.path.relpath(path, out))) or real(path))
    # nothing changed: no folder is listed, no page rewritten
    assert site.link_pages(out, site.published_pages(out, index), text, index) == []
    assert listed == []
    # a new event at bk-b: bk-b's folders are listed, not bk-a's; the new page and the one before it get links
    event("bk-b", "2024-09-19-torsdag")
    written = site.link_pages(out, site.published_pages(out, index), text, index)
    assert sorted(listed) == ["bk-b", "bk-b/2024-09-05-torsdag", "bk-b/2024-09-12-torsdag", "bk-b/2024-09-19-torsdag"]
    assert written == [out / "bk-b" / "2024-09-12-torsdag" / "index.html", out / "bk-b" / "2024-09-19-torsdag" / "index.html"]
    assert 'rel="next" href="../../bk-b/2024-09-19-torsdag/index.html"' in (written[0]).read_text(encoding="utf-8")
    # a withdrawn event at bk-a (its folder removed): its neighbours now link each other
    listed.clear()
    shutil.rmtree(out / "bk-a" / "2024-09-10-tisdag")
    pages = site.published_pages(out, index)
    assert len(pages) == 5 and sorted(listed) == ["bk-a", "bk-a/2024-09-03-tisdag", "bk-a/2024-09-17-tisdag"]
    written = site.link_pages(out, pages, text, index)
    assert written == [out / "bk-a" / "2024-09-03-tisdag" / "index.html", out / "bk-a" / "2024-09-17-tisdag" / "index.html"]
    assert 'rel="prev" href="../../bk-a/2024-09-03-tisdag/index.html"' in written[1].read_text(encoding="utf-8")
    # the cache survives its file (Parquet and JSON) as it was in memory
    cache = tmp_path / "cache" / "org.json"
    site._save_index(cache, index)
    assert site._load_index(cache) == index


def test_the_sites_own_writes_do_not_make_the_next_night_list_their_folders(tmp_path, monkeypatch):
    """The site writes into the folders it has listed (a page's links, a club's index), which
    changes their mtimes; it takes their keys again afterwards (as publish_organisation does), so
    the next night lists the club that changed and its new event only. Its other events are
    looked at by a stat, not listed; one its publisher swapped in anew is listed."""
    import os

    from pipelines.core import site
    from pipelines.core.publishing import replace_folder

    out = tmp_path / "org"

    def event(club: str, folder: str, title: str | None = None) -> None:
        replace_folder(out / club / folder, {"index.html": f"<html><head><title>{title or folder}</title></head><body>\n</body></html>"})

    for club, folder in [("bk-a", "2024-09-03-tisdag"), ("bk-a", "2024-09-10-tisdag"), ("bk-a", "2024-09-17-tisdag"),
                         ("bk-b", "2024-09-05-torsdag"), ("bk-b", "2024-09-12-torsdag")]:
        event(club, folder)
    text = {"up": "up", "pages": "pages"}
    index: dict = {}

    listed: list[str] = []

    def night() -> list[str]:
        pages = site.published_pages(out, index)
        seen = len(listed)
        assert [p["href"] for p in pages] == [p["href"] for p in site.published_pages(out, {})]  # every page, as a fresh listing
        del listed[seen:]  # (what the fresh listing listed)
        written = site.link_pages(out, pages, text, index)
        written += site.publish_sections(out, pages, {}, {}, lambda **context: "<html>club</html>", index)[1]
        site._refresh_folder_keys(out, index, written)
        return written

    night()  # every page linked, both clubs' indexes written
    real = os.scandir
    monkeypatch.setattr(site.os, "scandir", lambda path=".": (isinstance(path, str) and listed.append(os.path.relpath(path, out))) or real(path))
    night()
    assert listed == []
    event("bk-b", "2024-09-19-torsdag")
    night()
    assert sorted(listed) == ["bk-b", "bk-b/2024-09-19-torsdag"]
    listed.clear()
    event("bk-a", "2024-09-10-tisdag", "corrected")  # its publisher swaps the folder in whole
    night()
    assert sorted(listed) == ["bk-a", "bk-a/2024-09-10-tisdag"]
    assert "corrected" in (out / "bk-a" / "2024-09-17-tisdag" / "index.html").read_text(encoding="utf-8")  # its neighbour's link
    # the cache keeps the keys (Parquet and JSON) as they were in memory
    cache = tmp_path / "cache" / "org.json"
    site._save_index(cache, index)
    assert site._load_index(cache) == index


def test_a_night_links_the_changed_pages_and_their_neighbours_only_and_every_link_is_as_a_full_relink(tmp_path, monkeypatch):
    """A club's events are one kind of page: a new event changes the links of its two neighbours
    only, a removed one those of the two pages it stood between, a new title those of its
    neighbours; a renamed club every page of the site. After each night every page's links are
    what linking the whole site from scratch gives (pager.neighbours over every page)."""
    import shutil

    from pipelines.core import pager, site
    from pipelines.core.publishing import replace_folder

    out = tmp_path / "org"

    def event(folder: str, title: str | None = None) -> None:
        replace_folder(out / "bk-a" / folder, {"index.html": f"<html><head><title>{title or folder}</title></head><body>\n</body></html>"})

    for day in (3, 10, 17, 24):
        event(f"2024-09-{day:02d}-tisdag")
    for day in (1, 8, 15, 22, 29):
        event(f"2024-10-{day:02d}-tisdag")
    text = {"up": "up", "pages": "pages"}
    titles = {"bk-a": "BK Alfa"}
    index: dict = {}
    site.link_pages(out, site.published_pages(out, index), text, index, titles)

    def links_as_a_full_relink() -> dict[str, str]:
        pages = site.published_pages(out, {})
        links = pager.neighbours(pages, titles)
        return {p["href"]: pager.nav_html(links[p["href"]], text) for p in pages}

    def links_on_the_pages() -> dict[str, str]:
        return {f"bk-a/{f.name}/index.html": pager._NAV.search((f / "index.html").read_text(encoding="utf-8")).group(0)
                for f in (out / "bk-a").iterdir() if (f / "index.html").is_file()}

    made = []
    real_nav_html = pager.nav_html
    monkeypatch.setattr(pager, "nav_html", lambda links, text: made.append(links.get("prev")) or real_nav_html(links, text))

    def night() -> int:
        made.clear()
        site.link_pages(out, site.published_pages(out, index), text, index, titles)
        linked = len(made) - 1  # the pages whose links were made (the first call is the pager's probe)
        assert links_on_the_pages() == links_as_a_full_relink()
        return linked

    assert night() == 0  # nothing new
    event("2024-09-20-fredag")  # between the 17th and the 24th (a kind of its own: 'fredag' is after the date)
    event("2024-09-19-tisdag")  # between the 17th and the 24th
    assert night() == 3 + 1  # the Tuesday and its two neighbours; the Friday alone in its kind
    shutil.rmtree(out / "bk-a" / "2024-10-08-tisdag")
    assert night() == 2  # the 1st and the 15th of October, now next to each other
    event("2024-10-15-tisdag", "Höstens tävling")
    assert night() == 3
    assert "Höstens tävling" in (out / "bk-a" / "2024-10-22-tisdag" / "index.html").read_text(encoding="utf-8")
    titles = {"bk-a": "BK Alfa Göteborg"}
    assert night() == 10  # every page: its up link names the club
    assert "BK Alfa Göteborg" in (out / "bk-a" / "2024-09-03-tisdag" / "index.html").read_text(encoding="utf-8")
