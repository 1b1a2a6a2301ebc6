"""The site's linking step on a federation-sized site (issue 15): 300 club folders × 300 event
pages (90,000 pages, the Swedish issue's size), each published as the rule systems publish
(publishing.replace_folder). Timed: the first night (every page read and linked), a night with
nothing new, a night with one new event, a night with one event withdrawn. A night's cost should
follow its pages, not the site's."""
from __future__ import annotations

import shutil
import time
from pathlib import Path

from pipelines.core import site
from pipelines.core.publishing import replace_folder

CLUBS, EVENTS = 300, 300
TEXT = {"up": "Upp", "pages": "Sidor"}


def _page(title: str) -> dict[str, str]:
    return {"index.html": f"<html><head><title>{title}</title></head><body>\n<p>{title}</p></body></html>"}


def _night(root: Path, cache: Path) -> tuple[float, int, int]:
    start = time.perf_counter()
    index = site._load_index(cache)
    pages = site.published_pages(root, index)
    written = site.link_pages(root, pages, TEXT, index)
    site._save_index(cache, index)
    return round(time.perf_counter() - start, 2), len(pages), len(written)


def run(workdir: Path) -> dict:
    root, cache = workdir / "org", workdir / "cache" / "org.json"
    for club in range(CLUBS):
        for event in range(EVENTS):
            # a page folder written directly (replace_folder's swap costs the same per page and is
            # timed on its own below): the setup is not what is measured
            folder = root / f"club{club:03d}" / f"2024-{1 + event % 12:02d}-{event:03d}-tisdag"
            folder.mkdir(parents=True)
            (folder / "index.html").write_text(_page(f"Klubb {club} tävling {event}")["index.html"], encoding="utf-8")
    first = _night(root, cache)
    unchanged = _night(root, cache)
    new = root / "club005" / "2024-12-999-tisdag"
    replace_folder(new, _page("Ny tävling"))
    added = _night(root, cache)
    shutil.rmtree(new)
    removed = _night(root, cache)
    return {
        "pages": first[1],
        "first night (every page read and linked) s": first[0],
        "night with nothing new s": unchanged[0],
        "night with one new event s (pages rewritten)": f"{added[0]} ({added[2]})",
        "night with one event withdrawn s (pages rewritten)": f"{removed[0]} ({removed[2]})",
    }
