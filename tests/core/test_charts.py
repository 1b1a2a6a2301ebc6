"""Charts (issue 15): a player's running total, the mahjong leaderboard's averages, a bridge pair's
boards, as Vega-Lite specifications the page's own copy of the Vega libraries draws.

Expected values by hand: the mahjong seed's placement points 1st 7, 2nd 4, 3rd 2, 4th 0 (scores
at least 10000, the 2nd at least 20000: no bust, no 3-koro), so A's running total over 1st, 2nd,
1st on three days is 7, 11, 18."""
from __future__ import annotations

import json
import re
from datetime import date
from decimal import Decimal

import pandas as pd

from office import Office
from pipelines.bridge.publish import _board_chart
from pipelines.core import charts
from pipelines.core.site import (_running_totals, _series_by_page, line_rows, player_slug, rows_by_page,
                                 running_total_chart, running_total_charts, running_totals_of)

ORG = "sofu-mahjong"


def game(day: int, order: list[str]) -> str:
    return f"2026-11-{day:02d}\n" + "".join(f"・{i + 1}位{p} {40000 - 10000 * i}\n" for i, p in enumerate(order))


def specs(html: str) -> list[dict]:
    """Every chart specification of a page (the JSON of its figure.chart elements)."""
    return [json.loads(m) for m in re.findall(r'<script type="application/json" class="vega-lite">(.*?)</script>', html, re.S)]


def test_the_night_s_running_totals_in_sql_equal_the_hand_values_for_two_players():
    # by hand: P's bronze 1.25 + 0.50 on one day (1.75), then + 2.10 (3.85), silver 3.00 apart;
    # Q's 1 + 1 + 1 on three days, the third in a new season, which starts at 0 as its balance
    # does (1, 2, then 1); the window sums of a night's pages (running_totals_of)
    lines = pd.DataFrame({
        "player_id": ["P", "P", "P", "P", "Q", "Q", "Q"],
        "season": ["s1", "s1", "s1", "s1", "s1", "s1", "s2"],
        "denomination": ["bronze", "bronze", "silver", "bronze", "bp", "bp", "bp"],
        "event_date": pd.to_datetime(["2026-01-05", "2026-01-05", "2026-02-01", "2026-03-10", "2026-01-01", "2026-01-02", "2026-01-03"]).date,
        "points": [Decimal("1.25"), Decimal("0.50"), Decimal("3.00"), Decimal("2.10"), Decimal("1.00"), Decimal("1.00"), Decimal("1.00")],
    })
    got = running_totals_of(lines)
    assert [(r.player_id, r.season, r.denomination, str(r.event_date), r.total) for r in got.itertuples()] == [
        ("P", "s1", "bronze", "2026-01-05", Decimal("1.75")), ("P", "s1", "bronze", "2026-03-10", Decimal("3.85")),
        ("P", "s1", "silver", "2026-02-01", Decimal("3.00")),
        ("Q", "s1", "bp", "2026-01-01", Decimal("1.00")), ("Q", "s1", "bp", "2026-01-02", Decimal("2.00")),
        ("Q", "s2", "bp", "2026-01-03", Decimal("1.00")),
    ]


def test_a_player_page_row_is_escaped_as_the_template_escapes():
    import pyarrow as pa

    columns = {"event_date": ["2026-11-03"], "points": ["7.00"], "denomination": ["pt"],
               "basis": ["1位 <b>&'\"</b>"], "event_page": ["../2026-10/index.html"], "event_id": ["x\"y"],
               "source_file": ["a.txt"], "location": [None]}
    assert line_rows(pa.table(columns, schema=pa.schema([(c, pa.string()) for c in columns]))) == [
        '<tr><td class="date">2026-11-03</td><td class="num">7.00</td><td class="kind">pt</td><td class="basis">'
        '1位 &lt;b&gt;&amp;&#39;&#34;&lt;/b&gt; <a href="../2026-10/index.html" aria-label="x&#34;y">→</a></td>'
        '<td class="file">a.txt</td></tr>']
    # an event without a page (a null link) gets no arrow; a location goes in brackets after the file
    no_page = {**columns, "event_page": [None], "location": ["line 3"]}
    assert line_rows(pa.table(no_page, schema=pa.schema([(c, pa.string()) for c in no_page])))[0].endswith(
        '<td class="basis">1位 &lt;b&gt;&amp;&#39;&#34;&lt;/b&gt;</td><td class="file">a.txt (line 3)</td></tr>')



def test_rows_of_many_chunks_with_and_without_special_characters_are_escaped_as_markupsafe_escapes():
    """Only the texts holding one of the five characters are rewritten: in a table of two chunks
    mixing both kinds (and missing values), each cell reads as markupsafe.escape writes it."""
    import pyarrow as pa
    from markupsafe import escape

    bases = ["plain", "a<b", None, "1位 & 2位", "quote's", 'say "hi"', "x>y", "", "ok"]
    sources = ["a.txt", "b&c.txt", "d.txt", "e.txt", "f'.txt", "g.txt", "h.txt", "i.txt", "j<k>.txt"]
    schema = pa.schema([(c, pa.string()) for c in ("event_date", "points", "denomination", "basis", "event_page",
                                                  "event_id", "source_file", "location")])

    def batch(rows):
        return pa.table({"event_date": ["2026-11-03"] * len(rows), "points": ["1.00"] * len(rows),
                         "denomination": ["pt"] * len(rows), "basis": [bases[i] for i in rows], "event_page": [None] * len(rows),
                         "event_id": ["e"] * len(rows), "source_file": [sources[i] for i in rows], "location": [None] * len(rows)},
                        schema=schema)

    table = pa.concat_tables([batch(range(0, 4)), batch(range(4, 9))])
    assert table.column("basis").num_chunks == 2
    assert line_rows(table) == [
        f'<tr><td class="date">2026-11-03</td><td class="num">1.00</td><td class="kind">pt</td>'
        f'<td class="basis">{escape(bases[i] or "")}</td><td class="file">{escape(sources[i])}</td></tr>' for i in range(9)]


def test_each_page_gets_its_own_rows_in_order_from_lines_of_interleaved_pages_in_two_chunks():
    """rows_by_page against line_rows grouped in Python: pages whose lines are interleaved, in a
    table of two chunks, each page's rows in the lines' order, joined by newlines, with its count."""
    import pyarrow as pa

    texts = ["event_date", "points", "denomination", "basis", "event_page", "event_id", "source_file", "location"]
    schema = pa.schema([(c, pa.string()) for c in texts + ["player_id", "season"]])
    pages = [("A", "2025"), ("B", "2025"), ("A", "2026"), ("A", "2025"), ("C", "2026"), ("B", "2025"), ("A", "2025")]

    def part(at):
        return pa.table({**{c: [f"{c} {i} <&>" if c != "event_page" else None for i in at] for c in texts},
                         "player_id": [pages[i][0] for i in at], "season": [pages[i][1] for i in at]}, schema=schema)

    lines = pa.concat_tables([part(range(0, 3)), part(range(3, 7))])
    assert lines.column("basis").num_chunks == 2
    rows = line_rows(lines.drop_columns(["player_id", "season"]))
    expected = {}
    for i, (player, season) in enumerate(pages):
        expected.setdefault(f"{player}\x1f{season}", []).append(rows[i])
    assert rows_by_page(lines) == {page: (len(r), "\n".join(r)) for page, r in expected.items()}
    assert rows_by_page(lines)["A\x1f2025"][0] == 3 and rows_by_page(lines.slice(0, 0)) == {}


def test_a_typed_row_reads_as_its_text_row():
    """Dates and exact points arrive typed from the warehouse: their cells are the same text as
    when the columns are strings (no escaping can change a date or a decimal)."""
    import pyarrow as pa

    texts = {"event_date": ["2026-11-03", "2026-11-04"], "points": ["7.00", "-0.50"], "denomination": ["pt", "pt"],
             "basis": ["<1位>", "2位 & 3位"], "event_page": [None, None], "event_id": ["x", "y"],
             "source_file": ["a.txt", "b.txt"], "location": [None, "line 2"]}
    typed = pa.table({**texts, "event_date": pa.array([date(2026, 11, 3), date(2026, 11, 4)]),
                      "points": pa.array([Decimal("7.00"), Decimal("-0.50")], pa.decimal128(12, 2))},
                     schema=pa.schema([(c, pa.string()) for c in texts]).set(
                         0, pa.field("event_date", pa.date32())).set(1, pa.field("points", pa.decimal128(12, 2))))
    assert line_rows(typed) == line_rows(pa.table(texts, schema=pa.schema([(c, pa.string()) for c in texts]))) == [
        '<tr><td class="date">2026-11-03</td><td class="num">7.00</td><td class="kind">pt</td>'
        '<td class="basis">&lt;1位&gt;</td><td class="file">a.txt</td></tr>',
        '<tr><td class="date">2026-11-04</td><td class="num">-0.50</td><td class="kind">pt</td>'
        '<td class="basis">2位 &amp; 3位</td><td class="file">b.txt (line 2)</td></tr>']

def test_a_player_page_charts_the_running_total_and_the_site_carries_the_library(office: Office):
    office.post(f"{ORG}/a.txt", game(3, ["A", "B", "C", "D"]))
    office.post(f"{ORG}/b.txt", game(4, ["B", "A", "C", "E"]))
    office.post(f"{ORG}/c.txt", game(6, ["A", "C", "</script><script>alert(1)</script>", "B"]))
    assert office.run().exit_code == 0
    site = office.state / "publications" / ORG
    a = (site / "players" / f"{player_slug('A')}.html").read_text(encoding="utf-8")
    (spec,) = specs(a)
    values = spec["data"]["values"]
    assert [(v["date"], v["text"]) for v in values] == [("2026-11-03", "7.00"), ("2026-11-04", "11.00"), ("2026-11-06", "18.00")]
    assert [v["value"] for v in values] == [7, 11, 18]
    assert spec["mark"]["interpolate"] == "step-after" and 'src="../assets/vega.js"' in a
    # the chart's last value is the player's balance as the ledger's own view sums it
    assert '<td class="num">18.00</td><td class="num">3</td>' in a
    # a player with points on one day only has no chart
    d = (site / "players" / f"{player_slug('D')}.html").read_text(encoding="utf-8")
    assert specs(d) == [] and "vega.js" not in d
    # a hostile name cannot close the JSON's script element: the page holds it only escaped
    hostile = "</script><script>alert(1)</script>"
    for html in [p.read_text(encoding="utf-8") for p in (site / "players").glob("*.html")]:
        assert hostile not in html
    library = site / charts.LIBRARY
    first = library.read_text(encoding="utf-8").split("\n", 1)[0]
    assert first.startswith("/* vega-embed ") and "vega-lite" in first and library.stat().st_size > 500_000
    stamp = library.stat().st_mtime_ns
    office.post(f"{ORG}/d.txt", game(7, ["C", "A", "B", "D"]))
    assert office.run().exit_code == 0
    assert library.stat().st_mtime_ns == stamp  # current already: not rewritten
    a = (site / "players" / f"{player_slug('A')}.html").read_text(encoding="utf-8")
    assert [v["text"] for v in specs(a)[0]["data"]["values"]] == ["7.00", "11.00", "18.00", "22.00"]


def test_chart_json_escapes_what_could_end_its_script_element():
    figure = charts.line_chart([charts.Series("</script><b>&", [date(2026, 1, 1)], [Decimal("1.5")], charts.PALETTE[0])],
                               x_label="x", y_label="y", aria_label='a "label" <i>')
    assert "</script><b>" not in figure and figure.count("</script>") == 1
    assert 'aria-label="a &#34;label&#34; &lt;i&gt;"' in figure
    (spec,) = specs(str(figure))
    assert spec["data"]["values"] == [{"date": "2026-01-01", "value": 1.5, "text": "1.5", "series": "</script><b>&"}]


TEXT = {"date": "Datum", "points": "Poäng <&>", "running_total": 'Löpande "summa"'}


def _lines(rows: list[tuple], scale: int):
    import pyarrow as pa

    players, seasons, denominations, dates, points = zip(*rows)
    return pa.table({"player_id": list(players), "season": list(seasons), "denomination": list(denominations),
                     "event_date": pa.array(dates, pa.date32()), "points": pa.array(points, pa.decimal128(18, scale))})


def test_a_night_s_charts_encoded_in_one_query_carry_the_hand_totals(monkeypatch):
    from pipelines.core import site

    monkeypatch.setattr(site, "running_total_chart", None)  # encoded by the query alone
    # by hand: P's bronze 1.25 + 0.50 on one day (1.75), then - 2.25 (-0.50); silver 3.00 on a
    # third day; the JSON numbers are the totals as Python writes float(total): 1.75, -0.5, 3
    d = date.fromisoformat
    lines = _lines([("P", "s1", "bronze", d("2026-01-05"), Decimal("1.25")), ("P", "s1", "bronze", d("2026-01-05"), Decimal("0.50")),
                    ("P", "s1", "bronze", d("2026-03-10"), Decimal("-2.25")), ("P", "s1", "silver", d("2026-02-01"), Decimal("3.00")),
                    ("Q", "s1", "bp", d("2026-01-01"), Decimal("1.00"))], scale=2)
    got = running_total_charts(lines, TEXT)
    assert got[("Q", "s1")] is None  # one date: no chart
    chart = got[("P", "s1")]
    assert [(s.label, s.colour) for s in chart["series"]] == [("bronze", charts.PALETTE[0]), ("silver", charts.PALETTE[1])]
    (spec,) = specs(str(chart["figure"]))
    assert spec["data"]["values"] == [
        {"date": "2026-01-05", "series": "bronze", "text": "1.75", "value": 1.75},
        {"date": "2026-03-10", "series": "bronze", "text": "-0.50", "value": -0.5},
        {"date": "2026-02-01", "series": "silver", "text": "3.00", "value": 3}]


def test_the_night_s_charts_in_one_query_are_the_charts_python_draws_point_by_point():
    """running_total_charts (one query encodes every point) against running_total_chart (a
    dictionary per point, json.dumps): byte for byte, with negative and whole totals, labels that
    JSON or HTML escape, more series than colours, totals of 12 digits, and decimals of 0 to 6
    places (the last two drawn by Python: see site._CHART_POINTS)."""
    import random
    from datetime import timedelta

    labels = ["bp", "sp", "gp", '<b>&"x', "å", "d6", "d7", "z\n"]
    compared = 0
    for seed in range(6):
        for scale in (0, 2, 4, 6):
            r = random.Random(seed * 10 + scale)
            rows = []
            for _ in range(300):
                value = Decimal(r.randrange(-500, 3000)).scaleb(-scale)
                if seed % 3 == 0 and r.random() < 0.01:
                    value = Decimal("123456789012")
                rows.append((f"p{r.randrange(20)}", r.choice(["2025", "2026"]), r.choice(labels[:r.choice([1, 3, 8])]),
                             date(2025, 1, 1) + timedelta(r.randrange(40)), value))
            lines = _lines(rows, scale)
            python = {key: running_total_chart(series, TEXT) for key, series in _series_by_page(_running_totals(lines)).items()}
            one_query = running_total_charts(lines, TEXT)
            assert one_query.keys() == python.keys()
            for key, chart in python.items():
                compared += chart is not None
                assert (chart is None) == (one_query[key] is None)
                if chart is not None:
                    assert str(one_query[key]["figure"]) == str(chart["figure"])
                    assert [(s.label, s.colour) for s in one_query[key]["series"]] == [(s.label, s.colour) for s in chart["series"]]
    assert compared > 400


def test_a_bridge_pairs_boards_around_fifty_percent_or_zero_imps():
    from pipelines.core.settings import DATA_DIR
    from pipelines.core.site import messages

    t = messages(DATA_DIR, "en")
    mp = _board_chart([{"board": 1, "pct": "75.00", "mp": "9"}, {"board": 2, "pct": "", "mp": ""},
                       {"board": 3, "pct": "25.00", "mp": "3"}], "MP", t)
    (spec,) = specs(str(mp))
    assert [(r["category"], r["text"], r["low"]) for r in spec["data"]["values"]] == [(1, "75.00", False), (3, "25.00", True)]
    assert spec["layer"][1]["encoding"]["y"]["datum"] == 50
    imp = _board_chart([{"board": 4, "pct": "", "mp": "-3"}, {"board": 5, "pct": "", "mp": "10"}], "IMP", t)
    (spec,) = specs(str(imp))
    assert [(r["category"], r["value"], r["low"]) for r in spec["data"]["values"]] == [(4, -3, True), (5, 10, False)]
    assert spec["layer"][1]["encoding"]["y"]["datum"] == 0
    assert _board_chart([{"board": 1, "pct": "", "mp": ""}], "MP", t) is None


def _x_labels(figure) -> list[str]:
    """The date labels of a chart's x axis as the Vega library draws them (vl-convert runs the
    same Vega in Python: an SVG, no browser)."""
    import vl_convert

    spec = json.loads(re.search(r'class="vega-lite">(.*)</script>', str(figure), re.S).group(1))
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", vl_convert.vegalite_to_svg(spec))
    return [t for t in texts if re.fullmatch(r"\d{4}-\d{2}-\d{2}", t)]


def test_a_running_total_of_two_days_labels_each_day_once():
    """A player's first two nights, a day apart: the axis named 2026-12-01 twice (ticks every few
    hours, each labelled with its day). Now one tick a day; a month keeps its weekly ticks."""
    def chart(first, last):
        series = [charts.Series(label="total", x=[first, last], y=[Decimal("3"), Decimal("5")], colour="#1f77b4")]
        return charts.line_chart(series, x_label="date", y_label="points", aria_label="running total", steps=True)

    assert _x_labels(chart(date(2026, 12, 1), date(2026, 12, 2))) == ["2026-12-01", "2026-12-02"]
    assert _x_labels(chart(date(2026, 11, 1), date(2026, 11, 30))) == [
        "2026-11-01", "2026-11-08", "2026-11-15", "2026-11-22", "2026-11-29"]
