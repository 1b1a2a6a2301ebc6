"""The Swedish pages as a person reads them (docs/screenshots/sweden/ shows them at 390 and 1280 px):
a phone viewport, only the denominations the event gives, the players of a pair kept whole, names
and event names escaped, and a browser twin (index.html) of the monthly club page."""
from __future__ import annotations

from se_helpers import ORG, post_event, register


def _page(office, *parts) -> str:
    return (office.state / "publications" / ORG / "bk-lavec" / "/".join(parts)).read_text(encoding="utf-8")


def test_event_page_reads_on_a_phone(office):
    register(office, name="medlemsregister.csv")
    post_event(office, "bk-lavec", "2024-10-01-brons", 8, nivå="brons", brickor="24", namn="Kväll <i>&</i> natt")
    post_event(office, "bk-lavec", "2024-10-02-silver", 40, nivå="silver", brickor="52", mött="15", datum="2024-10-02")
    office.run()
    page = _page(office, "2024-10-01-brons", "index.html")
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    assert "Kväll &lt;i&gt;&amp;&lt;/i&gt; natt" in page and "<i>&</i>" not in page
    # a bronze event shows its bp column only; the legend names it
    assert '<th class="pts">bp</th>' in page and '<th class="pts">sp</th>' not in page and "bp = bronspoäng" in page
    # each player of a pair is one unit; the dash stays with the first name (no line starting with "–")
    assert '<span class="player">Spelare 000 Åström&nbsp;–</span> <span class="player">Spelare 001 Åström</span>' in page
    silver = _page(office, "2024-10-02-silver", "index.html")
    assert '<th class="pts">sp</th><th class="pts">bp</th>' in silver and '<th class="pts">gp</th>' not in silver


def test_month_page_has_a_browser_twin(office):
    register(office)
    post_event(office, "bk-lavec", "2024-10-01-brons", 8, nivå="brons", brickor="24", namn="<b>Kväll</b>")
    office.run()
    html = _page(office, "månad-2024-10", "index.html")
    assert '<meta name="viewport"' in html
    assert '<a href="../2024-10-01-brons/index.html">&lt;b&gt;Kväll&lt;/b&gt;</a>' in html
    # the same totals as the Markdown page: A1 row 8 = 16 + 11 + 8 = 35 bp over the list
    md = _page(office, "månad-2024-10", "index.md")
    assert "| 8 | 35 | 0 | 0 |" in md and '<td class="n">35</td>' in html
