"""Previous / next / up links on every page a rule system publishes (issue 15), as one step of
the site for all systems: the pages of one kind in one folder (an organisation's periods, a club's
events, a club's monthly pages ...) are ordered by their folder names, which begin with their date,
and each gets a <nav class="pager"> at the top of its body: up to its section's index (a club's
page) or the organisation's, the previous and the next page of its kind. A page is rewritten only when its links change (a new
event changes its own page and the one before it), so the nights' output stays the same bytes as a
fresh run's."""
from __future__ import annotations

import html
import re

_NAV = re.compile(r'<nav class="pager"[^>]*>.*?</nav>\n?', re.S)
_BODY = re.compile(r"<body[^>]*>\n?", re.I)


_BEFORE_DIGIT = re.compile(r"\D*")


def kind_of(folder: str) -> tuple[str, str]:
    """Pages are neighbours when they share their parent folder and the part of their name before
    the first digit (``2024-10-06-a-final`` and ``2024-09-03-tisdag``; ``månad-2024-09`` apart).
    String operations only: a federation's site has tens of thousands of folders."""
    parent, _, name = folder.rpartition("/")
    return parent or ".", _BEFORE_DIGIT.match(name).group(0)


def neighbours(pages: list[dict], section_titles: dict[str, str] | None = None,
               groups: dict[tuple[str, str], list[dict]] | None = None) -> dict[str, dict]:
    """{href: {"up": ..., "up_title": ..., "prev": page | None, "next": page | None}} for pages
    of ``published_pages`` (href, title, folder), links relative to each page. `section_titles`:
    the name of each section, which its pages' up link shows (else the section's folder).
    `groups` ({kind: its pages in folder order}): the pages' kinds as a whole, when `pages` are
    only some of them (the links of those pages only are made)."""
    wanted = None
    if groups is None:
        groups = {}
        for p in pages:
            groups.setdefault(kind_of(p["folder"]), []).append(p)
        for group in groups.values():
            group.sort(key=lambda p: p["folder"])
    else:
        wanted = {p["href"] for p in pages}
    out = {}
    for group in groups.values():
        for i, p in enumerate(group):
            if wanted is not None and p["href"] not in wanted:
                continue
            # up: the page's section (a club's page listing its events) or the organisation's index
            section = p["folder"].split("/", 1)[0] if "/" in p["folder"] else ""
            out[p["href"]] = {"up": _relative(p["href"], f"{section}/index.html" if section else "index.html"),
                              "up_title": ((section_titles or {}).get(section) or section) if section else None,
                              "prev": _link(p, group[i - 1]) if i > 0 else None,
                              "next": _link(p, group[i + 1]) if i + 1 < len(group) else None}
    return out


def _relative(from_href: str, to_href: str) -> str:
    # hrefs are '/'-joined folders relative to the organisation's folder, without a leading or a
    # doubled '/' (published_pages): the depth is the count of '/' (no path object per link:
    # a federation's night links 90,000 pages)
    return "../" * from_href.count("/") + to_href


def _link(page: dict, other: dict) -> dict:
    return {"href": _relative(page["href"], other["href"]), "title": other["title"]}


def nav_html(links: dict, text: dict[str, str]) -> str:
    e = html.escape
    parts = [f'<a rel="up" href="{e(links["up"])}">↑ {e(links.get("up_title") or text["up"])}</a>']
    if links["prev"]:
        parts.append(f'<a rel="prev" href="{e(links["prev"]["href"])}">← {e(links["prev"]["title"])}</a>')
    if links["next"]:
        parts.append(f'<a rel="next" href="{e(links["next"]["href"])}">{e(links["next"]["title"])} →</a>')
    return (f'<nav class="pager" aria-label="{e(text["pages"])}" style="display:flex;flex-wrap:wrap;gap:.3rem 1.2rem;'
            f'font-size:.9rem;margin:0 0 .6rem">' + "".join(parts) + "</nav>\n")


def without_nav(page_html: str) -> str:
    """The page as its publisher wrote it, before the site put its pager in (with_nav)."""
    return _NAV.sub("", page_html, count=1)


def with_nav(page_html: str, nav: str) -> str:
    """The page with its pager replaced (or put at the top of its body)."""
    if _NAV.search(page_html):
        return _NAV.sub(lambda _: nav, page_html, count=1)
    m = _BODY.search(page_html)
    return page_html if m is None else page_html[:m.end()] + nav + page_html[m.end():]
