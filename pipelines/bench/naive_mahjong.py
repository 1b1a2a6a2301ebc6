"""The simplest alternative to `pointledger run` for the mahjong league (issue 13's baseline).

A deliberately naive single pass in plain Python, as a club might write it: read the posts,
score each game, average per player. No validation, no quarantine, no ledger, no warehouse, no
periods: each `・<rank>位<name> <score>` line is a seat, four seats a game, the latest rules
(the last row of data/rules/mahjong/rule_versions.csv) for every game. `make bench` times it in
a child process beside the full run over the same posts.

`python -m pipelines.bench.naive_mahjong <posts folder> [<rules folder>]` prints the number of
games and players.
"""
from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

_DIGITS = str.maketrans("０１２３４５６７８９－−▲", "0123456789---")
_SEAT = re.compile(r"^・(\d)位(.+) (-?\d+)$")
_YAKUMAN = re.compile(r"^(.+?)(?:さん)?が役満")


def _rules(rules_dir: Path) -> tuple[dict[int, float], dict[str, str]]:
    with open(rules_dir / "rule_versions.csv", encoding="utf-8") as f:
        version = list(csv.DictReader(f))[-1]
    with open(rules_dir / "placing_points.csv", encoding="utf-8") as f:
        placing = {int(r["place"]): float(r["points"]) for r in csv.DictReader(f)
                   if r["rule_version"] == version["rule_version"]}
    return placing, version


def main(posts: Path, rules_dir: Path) -> tuple[int, int]:
    placing, v = _rules(rules_dir)
    bust_below, bust = int(v["bust_below"]), float(v["bust_points"])
    koro_below, koro_top, koro_second = (int(v["sankoro_second_below"]), float(v["sankoro_top_points"]),
                                         float(v["sankoro_second_points"]))
    yakuman = float(v["yakuman_points"])
    points: dict[str, float] = {}
    games: dict[str, int] = {}
    n_games = 0
    for path in sorted(posts.glob("*.txt")):
        seats: list[tuple[int, str, int]] = []
        last: list[str] = []
        for line in path.read_text(encoding="utf-8").splitlines():
            m = _SEAT.match(line.translate(_DIGITS))
            if m:
                seats.append((int(m[1]), m[2], int(m[3])))
                if len(seats) == 4:
                    second = seats[1][2]
                    for rank, name, score in seats:
                        p = placing[rank] + (bust if score < bust_below else 0)
                        if second < koro_below:
                            p += koro_top if rank == 1 else koro_second if rank == 2 else 0
                        points[name] = points.get(name, 0.0) + p
                        games[name] = games.get(name, 0) + 1
                    last = [name for _, name, _ in seats]
                    seats = []
                    n_games += 1
                continue
            y = _YAKUMAN.match(line)
            if y and y[1] in last:
                points[y[1]] += yakuman
    averages = sorted(((points[p] / games[p], p) for p in games), reverse=True)
    return n_games, len(averages)


if __name__ == "__main__":
    folder = Path(sys.argv[1])
    rules = Path(sys.argv[2]) if len(sys.argv) > 2 else Path("data/rules/mahjong")
    print(*main(folder, rules))
