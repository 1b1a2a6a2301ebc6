"""One table of every benchmark's headline figures, each beside what it is measured against and
its target (issue 13: "one table in the README, each with its ratio").

`rows(name, figures)` turns one benchmark's figures (the dict its `run` returns, as written to
bench-out/<name>.json) into table rows; `table(rows)` prints them as Markdown. `make bench`
prints the table of the benchmarks it ran and writes bench-out/summary.md from every
bench-out/<name>.json there (each row says when and on which commit it was measured).

The targets are the issues': mahjong (issue 13) within 3x of a naive single pass and under 2 GiB,
its night within 1.2x of the same night on one month; bridge (issue 16) within about 3x of a bare
DuckDB window query; the Swedish federation (issue 8) at 300 clubs x 24 months: the history under
60 s and 2 GiB, a night under 3 s and within 1.2x of the same night on one month.
"""
from __future__ import annotations

from dataclasses import dataclass

GIB = 1024  # MiB


@dataclass(frozen=True)
class Row:
    benchmark: str
    measure: str
    value: str
    against: str = "—"
    ratio: str = "—"
    target: str = "—"
    met: str = "—"
    when: str = ""


def _seconds(value) -> str:
    return f"{float(value):.2f} s"


def _memory(mib) -> str:
    return f"{float(mib) / GIB:.2f} GiB"


def _met(ok: bool | None) -> str:
    return "—" if ok is None else ("yes" if ok else "no")


def _when(figures: dict) -> str:
    return " ".join(str(figures[k]) for k in ("measured_at", "commit") if figures.get(k))


def rows(name: str, figures: dict) -> list[Row]:
    """The headline rows of one benchmark's figures (unknown benchmarks: none). Figures written by
    an older version of a benchmark, without the keys read here, give one row saying so."""
    try:
        return _rows(name, figures)
    except (KeyError, TypeError, ValueError):
        return [Row(name, "figures of an older version of this benchmark: run it again", "—", when=_when(figures))]


def _rows(name: str, figures: dict) -> list[Row]:
    when = _when(figures)
    if name == "mahjong":
        return [
            Row("mahjong", f"whole league from an empty state ({int(figures['games_in_history']):,} games)",
                _seconds(figures["full_wall_seconds"]), f"naive single pass {_seconds(figures['naive_wall_seconds'])}",
                f"{float(figures['full_vs_naive_ratio']):.2f}×", "≤ 3×", _met(float(figures["full_vs_naive_ratio"]) <= 3), when),
            Row("mahjong", "peak memory of the whole-league run", _memory(figures["full_peak_memory_mib"]),
                target="< 2 GiB", met=_met(float(figures["full_peak_memory_mib"]) < 2 * GIB), when=when),
            Row("mahjong", f"one night ({int(figures['games_in_night']):,} games) on two years",
                _seconds(figures["night_on_two_years_wall_seconds"]),
                f"the same night on one month {_seconds(figures['night_on_one_month_wall_seconds'])}",
                f"{float(figures['night_ratio_two_years_vs_one_month']):.2f}", "≤ 1.2",
                _met(float(figures["night_ratio_two_years_vs_one_month"]) <= 1.2), when),
        ] + ([  # (figures measured before the floor was added have no floor row)
            Row("mahjong", f"the floor: the same posts to a lake, a warehouse table and {int(figures['floor_pages']):,} "
                "player pages, nothing checked", _seconds(figures["floor_wall_seconds"]),
                f"naive single pass {_seconds(figures['naive_wall_seconds'])}",
                f"{float(figures['floor_vs_naive_ratio']):.2f}×", when=when),
        ] if "floor_wall_seconds" in figures else [])
    if name == "bridge":
        return [
            Row("bridge", f"{int(figures['traveller_lines']):,} traveller lines to standings",
                _seconds(figures["seconds_parquet_to_standings"]),
                f"bare DuckDB window query {_seconds(figures['seconds_duckdb_window_baseline'])}",
                f"{float(figures['ratio_to_baseline']):.2f}×", "about 3×", _met(float(figures["ratio_to_baseline"]) <= 3), when),
        ]
    if name == "sweden":
        # the targets hold at its size; a smaller federation is measured, not judged
        full = int(figures.get("clubs", 0)) == 300 and int(figures.get("months", 0)) == 24

        def judged(target: str, ok: bool) -> tuple[str, str]:
            return (target, _met(ok)) if full else (f"{target} (at 300 × 24)", "—")

        months = int(figures["months"])
        size = f"{int(figures['clubs'])} clubs × {months} month{'' if months == 1 else 's'}"
        return [
            Row("sweden", f"history from an empty state ({size}, {int(figures['events']):,} events)",
                _seconds(figures["history_wall_seconds"]), *("—", "—"),
                *judged("< 60 s", float(figures["history_wall_seconds"]) < 60), when),
            Row("sweden", "peak memory of the history", _memory(figures["history_peak_memory_mib"]), "—", "—",
                *judged("< 2 GiB", float(figures["history_peak_memory_mib"]) < 2 * GIB), when),
            Row("sweden", f"one night ({int(figures['night_events'])} events) on the history",
                _seconds(figures["night_on_history_wall_seconds"]),
                f"the same night on one month {_seconds(figures['night_on_one_month_wall_seconds'])}",
                f"{float(figures['night_ratio']):.2f}",
                *judged("< 3 s and ≤ 1.2", float(figures["night_on_history_wall_seconds"]) < 3
                        and float(figures["night_ratio"]) <= 1.2), when),
        ]
    if name == "site":
        return [
            Row("site", f"{int(figures['pages']):,} pages: the first night (every page read and linked)",
                _seconds(figures["first night (every page read and linked) s"]), when=when),
            Row("site", "the same site, a night with nothing new", _seconds(figures["night with nothing new s"]), when=when),
        ]
    return []


def table(all_rows: list[Row]) -> str:
    """The rows as one Markdown table."""
    head = ["benchmark", "measure", "time or size", "against", "ratio", "target", "met", "measured"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in all_rows:
        cells = [r.benchmark, r.measure, r.value, r.against, r.ratio, r.target, r.met, r.when or "—"]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"
