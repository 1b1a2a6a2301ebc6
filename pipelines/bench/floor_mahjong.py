"""The least work that writes the league's outputs: a floor under `pointledger run` (issue 13).

The naive pass (`naive_mahjong.py`) reads the posts and averages; it writes nothing. The whole run
also writes a lake, a warehouse and a page per player and season. This script writes the same
three, in one process, set-based in Arrow and DuckDB, with nothing checked: no other line forms
than `・<rank>位<name> <score>` and `<name>が役満`, no dates other than the file's name, no
validation, quarantine, ledger, audits, period pages or workbooks. What the whole run spends
above this floor is what its checks and its other outputs cost; below it nothing can go, however
the run is written.

It writes, under the output folder:
- `lake/month=YYYY-MM/part.parquet`: one row per seat (file, line, game, date, player, place,
  score, points in hundredths), one file per month;
- `warehouse.duckdb`: that table, with the points as DECIMAL(9, 2);
- `players/<n>.html`: a page per player and rule version (the league's seasons), one table row
  per game (date, points, the basis, the file and its lines), about the size of the run's pages.

`python -m pipelines.bench.floor_mahjong <posts folder> <rules folder> <output folder>` prints the
number of seats and of pages.
"""
from __future__ import annotations

import csv
import sys
from decimal import Decimal
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

_SEAT = r"^・(?P<place>[1-4])位(?P<name>.+) (?P<score>-?\d+)$"
_YAKUMAN = r"^(?P<name>.+?)(?:さん)?が役満"
_PAGE_HEAD = '<!doctype html><html lang="ja"><meta charset="utf-8"><title>{}</title><table>\n'


def _rule_versions(rules_dir: Path) -> tuple[list[dict], dict[tuple[str, int], int]]:
    with open(rules_dir / "rule_versions.csv", encoding="utf-8") as f:
        versions = sorted(csv.DictReader(f), key=lambda v: v["effective_from"])
    with open(rules_dir / "placing_points.csv", encoding="utf-8") as f:
        placing = {(r["rule_version"], int(r["place"])): int(Decimal(r["points"]) * 100) for r in csv.DictReader(f)}
    return versions, placing


def _lines(posts: Path) -> tuple[list[str], pa.Array, np.ndarray, np.ndarray]:
    """Every line of every post, NFKC-normalised, with its file's index and its line number."""
    names = sorted(p.name for p in posts.glob("*.txt"))
    lines = pc.split_pattern(pa.array([(posts / n).read_text(encoding="utf-8") for n in names]), "\n")
    counts = pc.list_value_length(lines).to_numpy()
    text = pc.utf8_normalize(pc.list_flatten(lines), "NFKC")
    for minus in ("▲", "−"):
        text = pc.replace_substring(text, minus, "-")
    files = np.repeat(np.arange(len(names)), counts)
    numbers = np.arange(len(text)) - np.repeat(np.cumsum(counts) - counts, counts) + 1
    return names, text, files, numbers


def seats(posts: Path, rules_dir: Path) -> pa.Table:
    """One row per seat line, four a game in the order posted, scored by the rule version in force
    on the file's date (placing points, bust, 3-koro, yakuman), in hundredths of a point."""
    names, text, files, numbers = _lines(posts)
    at = np.flatnonzero(pc.match_substring_regex(text, _SEAT).to_numpy(zero_copy_only=False))
    found = pc.extract_regex(pc.array_take(text, pa.array(at)), _SEAT)
    place = pc.cast(found.field("place"), pa.int64()).to_numpy()
    score = pc.cast(found.field("score"), pa.int64()).to_numpy()
    day = pc.strptime(pc.utf8_slice_codeunits(pa.array(names), 0, 10), "%Y-%m-%d", "s").cast(pa.date32())
    date = pc.array_take(day, pa.array(files[at]))
    # each seat's rule version by the game's date, its values as arrays indexed by version
    versions, placing = _rule_versions(rules_dir)
    starts = np.array([v["effective_from"] for v in versions], dtype="datetime64[D]")
    v = np.searchsorted(starts, date.to_numpy(zero_copy_only=False), side="right") - 1

    def column(key: str, scale: int = 100) -> np.ndarray:
        return np.array([int(Decimal(x[key]) * scale) for x in versions])[v]  # exact: whole hundredths

    second_score = np.repeat(score.reshape(-1, 4)[:, 1], 4)
    sankoro = second_score < column("sankoro_second_below", 1)
    busted = (score < column("bust_below", 1)) & (
        (np.array([x["bust_applies_to"] for x in versions])[v] == "all") | (place == 4))
    table = np.array([[placing.get((x["rule_version"], p), 0) for p in range(5)] for x in versions])
    points = (table[v, place] + np.where(busted, column("bust_points"), 0)
              + np.where(sankoro & (place == 1), column("sankoro_top_points"), 0)
              + np.where(sankoro & (place == 2), column("sankoro_second_points"), 0))
    game = np.arange(len(at)) // 4
    # a yakuman line names a player of the game just above it
    y_at = np.flatnonzero(pc.match_substring(text, "役満").to_numpy(zero_copy_only=False))
    y_at = y_at[pc.match_substring_regex(pc.array_take(text, pa.array(y_at)), _YAKUMAN).to_numpy(zero_copy_only=False)]
    y_name = pc.extract_regex(pc.array_take(text, pa.array(y_at)), _YAKUMAN).field("name")
    y_game = np.searchsorted(at, y_at) // 4 - 1
    y_name, y_game = y_name.filter(pa.array(y_game >= 0)), y_game[y_game >= 0]
    same = np.stack([pc.equal(pc.array_take(found.field("name"), pa.array(y_game * 4 + s)), y_name)
                     .to_numpy(zero_copy_only=False) for s in range(4)], axis=1)  # (yakuman, seat)
    won = same.any(axis=1)
    seat = y_game[won] * 4 + same[won].argmax(axis=1)
    np.add.at(points, seat, column("yakuman_points")[seat])
    return pa.table({
        "file": pc.array_take(pa.array(names), pa.array(files[at])), "line": numbers[at], "game": game,
        "date": date, "month": pc.utf8_slice_codeunits(pc.cast(date, pa.string()), 0, 7),
        "season": pa.array([x["rule_version"] for x in versions]).take(pa.array(v)),
        "player": found.field("name"), "place": place, "score": score, "points_hundredths": points,
    })


def write_outputs(table: pa.Table, out: Path) -> int:
    months = table["month"]
    for month in pc.unique(months).to_pylist():
        folder = out / "lake" / f"month={month}"
        folder.mkdir(parents=True, exist_ok=True)
        pq.write_table(table.filter(pc.equal(months, month)), folder / "part.parquet")
    con = duckdb.connect(str(out / "warehouse.duckdb"))
    con.register("seats", table)
    con.execute("create table seats as select * exclude (points_hundredths), "
                "(points_hundredths / 100)::decimal(9, 2) as points from seats")
    pages = con.sql("""
        select player, season, string_agg(
            '<tr><td class="date">' || date || '</td><td class="num">' || (points_hundredths / 100)::decimal(9, 2) ||
            '</td><td class="kind">league</td><td class="basis">place ' || place || ', score ' || score ||
            ' [' || season || '] <a href="../' || month || '/index.html" aria-label="' || file || '#' || line ||
            '">→</a></td><td class="file">' || file || ' (lines ' || (line - place + 1) || '–' ||
            (line - place + 4) || ')</td></tr>',
            '\n' order by date, line) as body
        from seats group by player, season""").to_arrow_table()
    con.close()
    folder = out / "players"
    folder.mkdir(parents=True, exist_ok=True)
    bodies = pc.cast(pages["body"], pa.large_binary()).to_pylist()
    for n, (player, body) in enumerate(zip(pages["player"].to_pylist(), bodies)):
        (folder / f"{n}.html").write_bytes(_PAGE_HEAD.format(player).encode() + body + b"\n</table>\n")
    return pages.num_rows


if __name__ == "__main__":
    posts, rules, out = (Path(a) for a in sys.argv[1:4])
    table = seats(posts, rules)
    print(table.num_rows, write_outputs(table, out))
