"""Sortable and filterable tables on every page (issue 15), by one shared progressive enhancement
(pipelines/core/templates/enhance_tables.html.j2).

Without scripts a page is the table as written (the static test); in headless Chromium (Debian's
`chromium`, which .ci/run installs when missing) a click on a heading sorts and the filter box hides
rows. The expected orders come from an independent method: the page's own table parsed here with
Python's html.parser and sorted by Python, then compared with what the browser shows."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from urllib.parse import unquote, urlsplit
from html.parser import HTMLParser
from pathlib import Path

import pytest


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# pages that keep their own script (the ranking list: sort and search by name and club) or are
# printed (the monthly pins list)
OWN_OR_PRINTED = ("/ranking/", "/nålar/")


@pytest.fixture(scope="module")
def site(sample_run, tmp_path_factory) -> Path:
    """A copy of the sample site: the Chromium probes are written into it, beside its pages."""
    root = tmp_path_factory.mktemp("site")
    shutil.copytree(sample_run.state / "publications", root / "publications")
    return root / "publications"


class _FirstTable(HTMLParser):
    """The text of each cell of the first table's body rows."""

    def __init__(self):
        super().__init__()
        self.depth, self.done, self.in_body, self.rows, self.cell = 0, False, False, [], None

    def handle_starttag(self, tag, attrs):
        if self.done:
            return
        if tag == "table":
            self.depth += 1
        elif self.depth == 1 and tag == "tbody":
            self.in_body = True
        elif self.in_body and tag == "tr":
            self.rows.append([])
        elif self.in_body and tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag):
        if self.done:
            return
        if tag == "table":
            self.depth -= 1
            self.done = self.depth == 0
        elif self.in_body and tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(" ".join("".join(self.cell).split()))
            self.cell = None
        elif tag == "tbody":
            self.in_body = False

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def _rows(html: str) -> list[list[str]]:
    p = _FirstTable()
    p.feed(html)
    return p.rows


def _number(text: str) -> float:
    return float(text.replace("\u2212", "-").rstrip("=").replace(",", ".").replace(" ", ""))


def test_every_page_says_its_language(site):
    """A screen reader and a browser's translation need each page's language: `<html lang="...">`
    names one on every page (the site's top index had lang="")."""
    pages = sorted(site.rglob("*.html"))
    found = {p.relative_to(site).as_posix(): re.search(r'<html lang="([^"]*)"', p.read_text(encoding="utf-8")) for p in pages}
    assert [page for page, m in found.items() if m is None or m.group(1) not in ("en", "ja", "sv")] == []
    assert found["index.html"].group(1) == "en"


def test_every_page_with_a_table_is_enhanced(site):
    pages = [p for p in site.rglob("*.html") if "<table" in p.read_text(encoding="utf-8")]
    assert len(pages) > 100  # every system's event, period, player and index pages
    missing = [str(p.relative_to(site)) for p in pages if "table-filter" not in p.read_text(encoding="utf-8")
               and not any(part in "/" + p.relative_to(site).as_posix() for part in OWN_OR_PRINTED)]
    assert missing == []


def _browse(page: Path, script: str, tmp_path: Path) -> dict:
    """Open a copy of the page (beside the original, so its links and assets resolve) in headless
    Chromium with `script` run after the page's own, and return what it wrote to body[data-result]."""
    html = page.read_text(encoding="utf-8").replace("</body>", f"<script>{script}</script></body>")
    probe = page.with_name("probe-" + page.name)
    probe.write_text(html, encoding="utf-8")
    try:
        out = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + str(tmp_path / "chromium"),
                              "--dump-dom", probe.as_uri()], capture_output=True, text=True, timeout=120)
    finally:
        probe.unlink()
    m = re.search(r'data-result="([^"]*)"', out.stdout)
    assert m, out.stderr[-2000:]
    return json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&"))


_PROBE = """
var t = document.querySelector("table"), heads = t.tHead.rows[t.tHead.rows.length - 1].cells;
function names() { return Array.prototype.filter.call(t.tBodies[0].rows, function (r) { return !r.hidden; })
  .map(function (r) { return r.cells[%(name)d].textContent.replace(/\\s+/g, " ").trim(); }); }
var out = {};
heads[%(num)d].click(); out.up = names();
heads[%(num)d].click(); out.down = names();
heads[%(name)d].click(); out.byname = names();
var box = document.querySelector("input.table-filter"); box.value = %(query)s; box.dispatchEvent(new Event("input"));
out.filtered = names();
out.sort = heads[%(num)d].getAttribute("aria-sort") + " " + heads[%(name)d].getAttribute("aria-sort");
document.body.setAttribute("data-result", JSON.stringify(out));
"""


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_sorting_and_filtering_in_chromium(site, tmp_path):
    # the mahjong leaderboard: 順位 (with 3= ties), 名前, 平均, 試合 ...: sort by 試合 (games), column 3
    page = site / "sofu-mahjong" / "2026-10" / "index.html"
    rows = _rows(page.read_text(encoding="utf-8"))
    assert len(rows) >= 8
    got = _browse(page, _PROBE % {"num": 3, "name": 1, "query": json.dumps("つみ")}, tmp_path)
    # Python's stable sort of the parsed rows is the expected order (ties keep the page's order)
    up = [r[1] for r in sorted(rows, key=lambda r: _number(r[3]))]
    down = [r[1] for r in sorted(rows, key=lambda r: -_number(r[3]))]
    assert got["up"] == up and got["down"] == down
    assert got["filtered"] == [n for n in got["byname"] if "つみ" in n] and len(got["filtered"]) >= 2
    assert got["sort"] == "null ascending"


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_a_rank_column_with_ties_sorts_as_numbers_in_chromium(site, tmp_path):
    page = site / "sofu-mahjong" / "2026-10" / "index.html"
    rows = _rows(page.read_text(encoding="utf-8"))
    assert any(r[0].endswith("=") for r in rows)  # the sample has shared places (3=, 11=)
    got = _browse(page, _PROBE % {"num": 0, "name": 1, "query": json.dumps("zzz-nobody")}, tmp_path)
    assert got["down"] == [r[1] for r in sorted(rows, key=lambda r: -_number(r[0]))]
    assert got["filtered"] == []


_FRAMES = """window.onload = function () {
  var out = Array.prototype.map.call(document.querySelectorAll("iframe"), function (f) {
    var e = f.contentDocument.documentElement;
    var links = Array.prototype.map.call(f.contentDocument.querySelectorAll("a[href], link[href], script[src]"),
                                         function (a) { return a.href || a.src; });
    // a player's name in a list of names laid out on two lines (broken inside the name)
    var names = f.contentDocument.querySelectorAll("td.names .who");
    var broken = Array.prototype.filter.call(names, function (n) { return n.getClientRects().length > 1; })
      .map(function (n) { return n.textContent; });
    return [f.getAttribute("src"), e.scrollWidth, e.clientWidth, links, names.length, broken]; });
  document.body.setAttribute("data-result", JSON.stringify(out)); };"""


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_no_page_scrolls_sideways_on_a_390_px_phone(site, tmp_path):
    """Every page of every kind in a 390 px wide frame: the page is never wider than the screen (a
    wide table scrolls inside its own box; the board links of a bridge session wrap). Headless
    Chromium will not open a window narrower than 500 px, so the pages are framed in 390 px iframes.
    The same load checks, for every page, that every link, stylesheet and script the browser
    resolves (a[href], link[href], script[src], as Chromium resolves them) is a file of the site,
    and that no page writes to the console (no script error, no missing file), and that a bridge
    session's names wrap between the players only."""
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
    assert len(pages) > 300
    frames = "".join(f'<iframe width="390" height="700" src="{p}"></iframe>' for p in pages)
    wrapper = site / "probe-390.html"
    wrapper.write_text(f"<!doctype html><html><head><meta charset='utf-8'></head><body>{frames}<script>{_FRAMES}</script>"
                       "</body></html>", encoding="utf-8")
    try:
        out = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files",
                              "--user-data-dir=" + str(tmp_path / "chromium"), "--virtual-time-budget=10000",
                              "--enable-logging=stderr", "--v=0",
                              "--dump-dom", wrapper.as_uri()], capture_output=True, text=True, timeout=600)
    finally:
        wrapper.unlink()
    m = re.search(r'data-result="([^"]*)"', out.stdout)
    assert m, out.stderr[-2000:]
    measured = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert len(measured) == len(pages)
    assert all(width > 300 for _, _, width, *_ in measured)  # each frame was laid out at phone width
    assert [(src, wide) for src, wide, width, *_ in measured if wide > width] == []
    # a pair's or team's names wrap between the players, never inside a name ("長谷|川 哲也")
    assert sum(count for *_, count, _ in measured) > 50
    assert [(src, broken) for src, *_, broken in measured if broken] == []
    # every link as the browser resolved it: a file of the site (the Atom feed and the chart library
    # included); links leaving the site (none today) would be http(s)
    broken, followed = [], 0
    for src, _, _, links, *_ in measured:
        for link in links:
            parts = urlsplit(link)
            if parts.scheme != "file":
                continue
            followed += 1
            if not Path(unquote(parts.path)).is_file():
                broken.append((src, link))
    assert followed > 1000 and broken == []
    assert [line for line in out.stderr.splitlines() if "CONSOLE" in line] == []


_CHARTS = """window.onload = function () { setTimeout(function () {
  var out = Array.prototype.map.call(document.querySelectorAll("iframe"), function (f) {
    var d = f.contentDocument, svg = d.querySelector("figure.chart .plot svg");
    if (!svg) return {src: f.getAttribute("src"), drawn: false};
    var sizes = Array.prototype.map.call(svg.querySelectorAll("text"), function (t) {
      return parseFloat(f.contentWindow.getComputedStyle(t).fontSize); });
    return {src: f.getAttribute("src"), drawn: true, width: svg.getBoundingClientRect().width,
            screen: d.documentElement.clientWidth, smallest_text: Math.min.apply(null, sizes),
            dots: svg.querySelectorAll("g.mark-symbol path").length, bars: svg.querySelectorAll("g.mark-rect path").length,
            labels: Array.prototype.map.call(svg.querySelectorAll("g.role-axis-label text"), function (t) { return t.textContent; })};
  });
  document.body.setAttribute("data-result", JSON.stringify(out)); }, 500); };"""


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_every_chart_kind_is_drawn_and_readable_on_a_390_px_phone(site, tmp_path):
    """A player's running total, a mahjong period's averages and a bridge pair's boards, each in a
    390 px frame: the Vega libraries draw an SVG no wider than the screen, every text at least
    10 px, one mark per value of the page's own specification, with no console error."""
    from tests.core.test_charts import specs

    player = next(p for p in sorted((site / "sofu-mahjong" / "players").glob("*.html")) if specs(p.read_text(encoding="utf-8")))
    pages = [player, site / "sofu-mahjong" / "2026-10" / "index.html",
             next((site / "tokyo-bridge-club").glob("*/pair-*.html"))]
    expected = []
    for page in pages:
        (spec,) = specs(page.read_text(encoding="utf-8"))
        expected.append(len(spec["data"]["values"]))
    frames = "".join(f'<iframe width="390" height="900" src="{p.relative_to(site).as_posix()}"></iframe>' for p in pages)
    wrapper = site / "probe-charts.html"
    wrapper.write_text(f"<!doctype html><html><head><meta charset='utf-8'></head><body>{frames}<script>{_CHARTS}</script>"
                       "</body></html>", encoding="utf-8")
    try:
        out = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files",
                              "--user-data-dir=" + str(tmp_path / "chromium"), "--virtual-time-budget=10000",
                              "--enable-logging=stderr", "--v=0", "--dump-dom", wrapper.as_uri()],
                             capture_output=True, text=True, timeout=300)
    finally:
        wrapper.unlink()
    m = re.search(r'data-result="([^"]*)"', out.stdout)
    assert m, out.stderr[-2000:]
    got = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert [g["drawn"] for g in got] == [True, True, True]
    for g, n in zip(got, expected):
        assert 300 < g["width"] <= g["screen"], g
        assert g["smallest_text"] >= 10, g
        assert g["dots"] + g["bars"] == n, g
    # the leaderboard's ticks are its snapshots' months; the bridge bars are numbered by board
    assert all(re.fullmatch(r"\d{4}-\d{2}", t) for t in got[1]["labels"][:2])
    assert "1" in got[2]["labels"]
    console = [line for line in out.stderr.splitlines() if "CONSOLE" in line]
    assert console == []


_FIND = """
var box = document.getElementById("find"), out = {};
%(queries)s.forEach(function (q) {
  box.value = q; box.dispatchEvent(new Event("input"));
  out[q] = Array.prototype.filter.call(document.querySelectorAll("#player-list li"), function (li) { return !li.hidden; })
    .map(function (li) { return li.querySelector("a").firstChild.textContent.trim(); });
});
document.body.setAttribute("data-result", JSON.stringify(out));
"""


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_the_index_finds_a_player_by_any_spelling_in_chromium(site, tmp_path):
    # data/aliases/sofu-mahjong.csv: けん and ケン are Ken, ポン太 is ぽん太, 田中 一郎 is 田中一郎
    # (`explain` accepts each); full-width ｋｅｎ is Ken by NFKC; an empty box shows everyone
    queries = ["けん", "ケン", "ｋｅｎ", "ポン太", "田中 一郎", "たなか", ""]
    got = _browse(site / "sofu-mahjong" / "index.html", _FIND % {"queries": json.dumps(queries)}, tmp_path)
    assert got["けん"] == ["Ken"] and got["ケン"] == ["Ken"] and got["ｋｅｎ"] == ["Ken"]
    assert got["ポン太"] == ["ぽん太"] and got["田中 一郎"] == ["田中一郎"] and got["たなか"] == []
    assert len(got[""]) == 21  # the sample league's 21 players
    # Swedish names without their letters' rings and dots, or by member number (the register's
    # three members named Stig Åström, 100001, 100074 and 100127, all with points; 100004 Karin Ström)
    queries = ["stig astrom", "STIG ÅSTRÖM", "100004", "karin strom"]
    got = _browse(site / "svensk-bridge" / "index.html", _FIND % {"queries": json.dumps(queries)}, tmp_path)
    assert got["stig astrom"] == ["Stig Åström"] * 3 == got["STIG ÅSTRÖM"]
    assert got["100004"] == ["Karin Ström"] and got["karin strom"] == ["Karin Ström"]
