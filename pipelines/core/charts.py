"""Charts for the publication site, drawn by Vega-Lite in the reader's browser (issue 15).

One place for every chart a page shows (the mahjong leaderboard's averages month by month, a
player's running total, a bridge pair's board-by-board percentage), so they look alike and read
on a phone. A chart is a Vega-Lite specification written into the page as JSON (a few hundred
bytes); the Vega libraries (vega-embed, Vega-Lite and Vega, bundled into one classic script by
the `vl-convert-python` package) are one file per organisation's site, `assets/vega.js`, so the
pages work opened from disk or from any web server, with no network. Drawing in the browser is
what keeps a night's cost flat: a federation has tens of thousands of player pages, and a chart
drawn at publishing time (matplotlib: 25–50 ms each, measured) would cost minutes a night.

Without scripts a page is its tables, which hold every figure the chart shows; the chart adds
the shape. Values reach the chart as JSON numbers converted from exact decimals (drawing only);
each point's tooltip shows the exact decimal text. The JSON is escaped for a `<script>` element
(`<`, `>`, `&` as \\u escapes), so a player's name cannot close it.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Sequence

from markupsafe import Markup

#: the colours of the series in order (colour-blind safe, Okabe–Ito)
PALETTE = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9")
#: where an organisation's site keeps the chart library, relative to its folder
LIBRARY = "assets/vega.js"
_HEIGHT = 200  # CSS pixels; the width is the page's column (phone or desktop)
_DATA = "\ue000data\ue000"  # stands for a line chart's values while its specification is encoded
_FONT = {"labelFontSize": 11, "titleFontSize": 12, "labelColor": "#444", "titleColor": "#333"}


@dataclass(frozen=True)
class Series:
    """One line of a chart: its label (for the HTML legend), x values (dates) and y values."""
    label: str
    x: Sequence[date]
    y: Sequence[Decimal]
    colour: str


def _base(aria_label: str) -> dict:
    return {
        "$schema": "https://vega.github.io/schema/vega-lite/v6.json",
        "description": aria_label,
        "width": "container", "height": _HEIGHT,
        "autosize": {"type": "fit-x", "contains": "padding"},
        "config": {"axis": {**_FONT, "gridColor": "#e6e6e6"}, "view": {"stroke": None},
                   "font": "system-ui, sans-serif"},
    }


def _number(value: Decimal) -> float | int:
    value = Decimal(value)
    return int(value) if value == value.to_integral_value() else float(value)  # drawing only (module docstring)


def line_chart(series: Sequence[Series], *, x_label: str, y_label: str, aria_label: str, steps: bool = False,
               date_format: str = "%Y-%m-%d", ticks_at_dates: bool = False) -> Markup:
    """Lines over dates with a dot at each value; `steps` for a running total (flat between dates);
    `ticks_at_dates`: a tick at each date of the data (a leaderboard's monthly snapshots) instead of
    about four evenly spaced. The series' colours are fixed (the page's HTML legend names them), so
    the chart has no legend."""
    values = [{"date": d.isoformat(), "value": _number(v), "text": str(v), "series": s.label}
              for s in series for d, v in zip(s.x, s.y)]
    return line_figure([(s.label, s.colour) for s in series], script_json(values), x_label=x_label, y_label=y_label,
                       aria_label=aria_label, steps=steps, date_format=date_format,
                       tick_dates=sorted({d.isoformat() for s in series for d in s.x}) if ticks_at_dates else None)


def line_figure(legend: Sequence[tuple[str, str]], values_json: str, *, x_label: str, y_label: str, aria_label: str,
                steps: bool = False, date_format: str = "%Y-%m-%d", tick_dates: list[str] | None = None) -> Markup:
    """line_chart from its data already encoded: `legend` the series' (label, colour) in order,
    `values_json` the JSON list of the points as script_json writes them, each
    {"date", "series", "text", "value"} (the site's player pages encode a night's points in one
    query, not a dictionary per point)."""
    # about four ticks, but never more than the days the data spans: a few days of data otherwise
    # get ticks every few hours, each labelled with its day ("2026-12-01, 2026-12-01, 2026-12-02")
    x_axis = {"format": date_format, "labelOverlap": True, "labelAngle": 0,
              "tickCount": {"expr": "max(1, min(4, span(domain('x')) / 864e5))"}}
    if tick_dates is not None:
        x_axis["values"] = tick_dates
    spec = _base(aria_label) | {
        "data": {"values": _DATA},
        "mark": {"type": "line", "point": True, "interpolate": "step-after" if steps else "linear", "strokeWidth": 2},
        "encoding": {
            "x": {"field": "date", "type": "temporal", "timeUnit": "utcyearmonthdate", "title": x_label,
                  "axis": x_axis},
            "y": {"field": "value", "type": "quantitative", "title": y_label, "scale": {"zero": False}},
            "color": {"field": "series", "type": "nominal", "legend": None,
                      "scale": {"domain": [label for label, _ in legend], "range": [colour for _, colour in legend]}},
            "tooltip": [{"field": "series", "title": " "}, {"field": "date", "type": "temporal", "timeUnit": "utcyearmonthdate",
                                                               "title": x_label, "format": "%Y-%m-%d"},
                        {"field": "text", "title": y_label}],
        },
    }
    return _figure(spec, aria_label, values_json)


def bar_chart(categories: Sequence[int], values: Sequence[Decimal], *, x_label: str, y_label: str, aria_label: str,
              reference: Decimal | None = None, domain: tuple[Decimal, Decimal] | None = None,
              colour: str = PALETTE[0], low_colour: str = PALETTE[1]) -> Markup:
    """Bars per numbered category (a board), those below `reference` in `low_colour`, with the
    reference line (a board's 50 %, or 0 IMPs)."""
    line = _number(reference if reference is not None else Decimal(0))
    rows = [{"category": int(c), "value": _number(v), "text": str(v), "low": _number(v) < line}
            for c, v in zip(categories, values)]
    y = {"field": "value", "type": "quantitative", "title": y_label}
    if domain is not None:
        y["scale"] = {"domain": [_number(domain[0]), _number(domain[1])]}
    spec = _base(aria_label) | {
        "data": {"values": rows},
        "layer": [
            {"mark": {"type": "bar"},
             "encoding": {
                 "x": {"field": "category", "type": "ordinal", "title": x_label, "axis": {"labelAngle": 0, "labelOverlap": True}},
                 "y": y, "y2": {"datum": line},
                 "color": {"field": "low", "type": "nominal", "legend": None,
                           "scale": {"domain": [False, True], "range": [colour, low_colour]}},
                 "tooltip": [{"field": "category", "title": x_label}, {"field": "text", "title": y_label}]}},
            {"mark": {"type": "rule", "color": "#333"}, "encoding": {"y": {"datum": line}}},
        ],
    }
    return _figure(spec, aria_label)


def script_json(value) -> str:
    """A value as the JSON of a chart's specification: sorted keys, no spaces, and `<`, `>`, `&`
    as \\u escapes, so that no text in it can end its `<script>` element."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _figure(spec: dict, aria_label: str, values_json: str | None = None) -> Markup:
    text = script_json(spec)
    if values_json is not None:  # the data, encoded apart, where the placeholder stands
        text = text.replace(script_json(_DATA), values_json, 1)
    return Markup(f'<figure class="chart" role="img" aria-label="{Markup.escape(aria_label)}">'
                  f'<div class="plot"></div><script type="application/json" class="vega-lite">{text}</script></figure>')


@cache
def library_text() -> str:
    """The bundled chart library, built once per machine and library version (building takes
    about 1.5 s) and kept in the user's cache folder; the first line names the versions."""
    import vl_convert

    versions = f"vega-embed {vl_convert.get_vega_embed_version()}, vega-lite {vl_convert.get_vegalite_versions()[-1]}, vega {vl_convert.get_vega_version()}"
    header = f"/* {versions}: bundled by vl-convert-python for pointledger's charts */\n"
    cache_dir = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pointledger"
    cached = cache_dir / f"vega-{versions.replace(', ', '-').replace(' ', '')}.js"
    try:
        text = cached.read_text(encoding="utf-8")
        if text.startswith(header):
            return text
    except OSError:
        pass
    text = header + vl_convert.javascript_bundle() + "\n"
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        scratch = cached.with_suffix(f".{os.getpid()}.tmp")
        scratch.write_text(text, encoding="utf-8")
        os.replace(scratch, cached)
    except OSError:
        pass  # a read-only home: built again by the next process
    return text


def ensure_library(site: Path) -> Path | None:
    """Write the organisation site's copy of the chart library when missing or of another version;
    None when it was already current (nothing written)."""
    path = site / LIBRARY
    text = library_text()
    header = text.split("\n", 1)[0]
    try:
        with path.open(encoding="utf-8") as existing:
            if existing.readline().rstrip("\n") == header and path.stat().st_size == len(text.encode("utf-8")):
                return None
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    scratch = path.with_suffix(".js.tmp")
    scratch.write_text(text, encoding="utf-8")
    os.replace(scratch, path)
    return path
