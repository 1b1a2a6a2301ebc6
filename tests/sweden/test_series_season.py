"""A generated season against an independent reference: a 10-team double series (table B2, 30 VP
scale) with substitutes, penalties and one corrected match, written as match files, read back and
scored; every member's total equals a hand-rule computation made here from the seed's wording
(won 18+, drawn 13-17 own VP after penalties; 64 / 32 bp; share by halves; rounded up at the end)."""
from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from pipelines.sweden import series as SR
from pipelines.sweden.series_parse import latest_versions, parse_match


def _season(seed: int):
    rnd = random.Random(seed)
    teams = [f"Lag {i}" for i in range(10)]
    squads = {t: [f"{t} p{j}" for j in range(6)] for t in teams}  # 4 regulars + 2 substitutes
    files = []
    rounds = [(a, b) for a in teams for b in teams if a != b]  # double series: each pair home and away
    for no, (h, a) in enumerate(rounds, start=1):
        vp_h = rnd.randint(0, 30)
        pen_h, pen_a = min(rnd.choice([0, 0, 0, 1, 2]), vp_h), min(rnd.choice([0, 0, 0, 1]), 30 - vp_h)
        line = {}
        for side, t in (("home", h), ("away", a)):
            for half in ("first", "second"):
                line[f"{side}_{half}_half"] = rnd.sample(squads[t], 4)
        files.append((f"m{no}.match.txt", no, h, a, vp_h - pen_h, 30 - vp_h - pen_a, pen_h, pen_a, line))
    # one corrected match: same path, other VP and a substitute in place of a regular
    name, no, h, a, _, _, _, _, line = files[7]
    fixed = dict(line, home_second_half=[squads[h][5]] + line["home_second_half"][1:])
    fixed["home_second_half"] = list(dict.fromkeys(fixed["home_second_half"]))
    while len(fixed["home_second_half"]) < 4:
        fixed["home_second_half"].append(next(p for p in squads[h] if p not in fixed["home_second_half"]))
    files.append((name, no, h, a, 11, 19, 0, 0, fixed))
    return files


def _text(f):
    name, no, h, a, vh, va, ph, pa, line = f
    body = [f"series: s", f"round: {no}", "date: 2026-10-01", "table: B2", "boards: 24", "scale: 30",
            f"home: {h}", f"away: {a}", f"home_vp: {vh}", f"away_vp: {va}", f"home_penalty: {ph}", f"away_penalty: {pa}"]
    body += [f"{k}: {', '.join(v)}" for k, v in line.items()]
    return ("\n".join(body) + "\n").encode("cp1252")


def _reference(files):
    final = {}
    for f in files:
        final[f[0]] = f  # a correction replaces the match
    exact = {}
    for name, no, h, a, vh, va, ph, pa, line in final.values():
        for side, own in (("home", vh), ("away", va)):
            pts = 64 if own >= 18 else 32 if own >= 13 else 0
            halves = {}
            for half in ("first", "second"):
                for p in line[f"{side}_{half}_half"]:
                    halves[p] = halves.get(p, 0) + 1
            total = sum(halves.values())
            for p, n in halves.items():
                exact[p] = exact.get(p, Fraction(0)) + Fraction(pts * n, total)
    return {p: math.ceil(v) for p, v in exact.items()}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_generated_double_series_matches_the_reference(seed):
    files = _season(seed)
    parsed = []
    for f in files:
        row, apps, problems = parse_match(f[0], _text(f))
        assert problems == []
        parsed.append((row, apps))
    matches, apps = latest_versions(parsed)
    assert len(matches) == 90
    assert matches.set_index("match_id").loc["m8.match.txt", "home_vp"] == 11  # the correction stands
    lines = SR.member_lines(SR.team_points(matches, SR.load_series_rules()), apps)
    got = SR.series_totals(lines).set_index("player")["points"].to_dict()
    assert got == _reference(files)


# B3 with three divisions: "i ettan om 76, i tvåan om 60 och i trean om 52 poäng"
B3_THREE = {1: 76, 2: 60, 3: 52}


@pytest.mark.parametrize("seed", [4, 5])
def test_three_division_series_and_a_cup_walkover(seed):
    rnd = random.Random(seed)
    parsed, expected = [], {}
    for div, won in B3_THREE.items():
        teams = [f"D{div} L{i}" for i in range(4)]
        for no, (h, a) in enumerate([(x, y) for i, x in enumerate(teams) for y in teams[i + 1:]], start=1):
            vh = rnd.randint(0, 30)
            players = {s: [f"{t} p{j}" for j in range(4)] for s, t in (("home", h), ("away", a))}
            body = (f"series: b3\nround: {no}\ndate: 2026-11-0{no}\ntable: B3\ndivisions: 3\ndivision: {div}\n"
                    f"boards: 28\nscale: 30\nhome: {h}\naway: {a}\nhome_vp: {vh}\naway_vp: {30 - vh}\n")
            for s in ("home", "away"):
                body += f"{s}_first_half: {', '.join(players[s])}\n{s}_second_half: {', '.join(players[s])}\n"
            name = f"d{div}m{no}.match.txt"
            row, apps, problems = parse_match(name, body.encode())
            assert problems == []
            parsed.append((row, apps))
            for s, own in (("home", vh), ("away", 30 - vh)):
                pts = won if own >= 18 else Fraction(won, 2) if own >= 13 else 0
                for p in players[s]:
                    expected[p] = expected.get(p, Fraction(0)) + Fraction(pts, 4)
    wo = ("series: b3\nround: 7\ndate: 2026-11-09\ntable: B2\nboards: 24\nscale: 30\nhome: D1 L0\naway: D1 L1\n"
          "home_vp: 18\naway_vp: 0\nwalkover: yes\n")
    row, apps, problems = parse_match("cup-wo.match.txt", wo.encode())
    assert problems == []
    parsed.append((row, apps))
    matches, apps = latest_versions(parsed)
    lines = SR.member_lines(SR.team_points(matches, SR.load_series_rules()), apps)
    got = SR.series_totals(lines).set_index("player")["points"].to_dict()
    assert got == {p: math.ceil(v) for p, v in expected.items()}
