"""Randomised JCBL events against an independent computation written straight from RULES.md §1
(plain Decimal arithmetic, constants typed here, loops instead of frames). Every player's RP and
BP must agree with compute_awards, which reads its rules from data/rules/jcbl."""
from __future__ import annotations

import math
import random
from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal, localcontext

import pandas as pd
import pytest

from jcbl_helpers import awards

D = Decimal
R = lambda a, b: D(a) / D(b)  # noqa: E731
RATIO = [D(x) for x in "1 0.7 0.5 0.4 0.32 0.256 0.2048 0.16384 0.131072 0.1048576 0.09 0.083 0.078 0.072 0.066 0.063 0.06 0.056 0.054".split()]
F2 = {"A": R(18, 16), "B": R(10, 16)}
F6 = {"A": R(24, 16), "B": R(14, 16), "C": R("12.5", 16), "D": R(11, 16), "E": R("9.5", 16), "F": R(8, 16)}
STRAT = {None: D(1), 1000: R(13, 16), 500: R(11, 16)}


def rnd(x: Decimal) -> Decimal:
    return x.quantize(D("0.01"), rounding=ROUND_HALF_UP)


def cut(n: int) -> int:
    return math.ceil(n * 35 / 100)


def place_award(kind, n, p, k=None, coef=D(1)):
    if p > cut(n):
        return D(0)
    if kind == "weekly_pairs":
        return min(D("0.02") * n * D("0.7") ** (p - 1) * k / 2, D("0.7") ** (p - 1))
    if kind == "weekly_teams":
        return min(D("0.04") * n * D("0.7") ** (p - 1) * k / 2, D("0.7") ** (p - 1))
    if kind == "ccg":
        return D("0.04") * (n + 40) * RATIO[p - 1] * (k + 4) / 16
    if kind == "team":
        return D("0.22") * (n + 10) * coef / p
    if kind == "pair":
        return D("0.08") * (n + 20) * RATIO[p - 1] * coef
    raise AssertionError(kind)


def placings(entries, kind, k=None, coef_of=lambda e: D(1)):
    """entries: list of (entrant, rank) of one field → {entrant: exact award}."""
    n = len(entries)
    out = {}
    for e, r in entries:
        place = 1 + sum(1 for _, r2 in entries if r2 < r)
        tied = sum(1 for _, r2 in entries if r2 == r)
        out[e] = sum(place_award(kind, n, q, k, coef_of(e)) for q in range(place, place + tied)) / tied
    return out


def session_bp(boards, pct, coef):
    return D("0.0015") * boards * (pct - 40) * coef


def reference(ev: dict, st: pd.DataFrame, hold: dict) -> dict:
    """{(player, 'RP'|'BP'): points}"""
    got = defaultdict(lambda: D("0.00"))
    kind = ev["kind"]
    members = {e: p.split() for e, p in zip(st["entrant"], st["players"])}

    def give(entrant, denom, exact):
        pts = rnd(exact)
        for pl in members[entrant]:
            got[(pl, denom)] += pts

    with localcontext() as ctx:
        ctx.prec = 50
        if kind in ("weekly_pairs", "weekly_teams"):
            for e, a in placings(list(zip(st["entrant"], st["rank"])), kind, D(ev["class_level"])).items():
                give(e, "BP", a)
        elif kind == "ccg_pairs":
            k = D(ev["class_level"])
            for e, a in placings(list(zip(st["entrant"], st["rank"])), "ccg", k).items():
                give(e, "BP", a)
            for e, pct in zip(st["entrant"], st["session_1_pct"]):
                if pct >= 50:
                    give(e, "BP", session_bp(ev["boards_per_session"], pct, (k + 4) / 16))
        elif kind in ("even_chance_teams", "womens_teams"):
            base = R(10, 16) if kind == "even_chance_teams" else R(14, 16)
            if ev.get("weekday"):
                base *= R(14, 16)
            for fl, g in st.groupby("flight"):
                coef = base * (F2[fl] if fl else 1)
                for e, a in placings(list(zip(g["entrant"], g["rank"])), "team", coef_of=lambda e: coef).items():
                    give(e, "RP", a)
                for e, vp in zip(g["entrant"], g["winning_vp"]):
                    give(e, "BP", vp * D("0.003125") * ev["boards_per_match"] * 20 / D(ev["vp_scale"]) * coef)
        elif kind == "stf_pairs":
            top = {e: max(hold.get(p, D(0)) for p in members[e]) for e in st["entrant"]}
            strats = [(s, lim) for s, lim in ev["strats"]]
            best = defaultdict(lambda: D(0))
            in_strat = {s: [e for e in st["entrant"] if lim is None or top[e] < lim] for s, lim in strats}
            rank = dict(zip(st["entrant"], st["rank"]))
            for s, lim in strats:
                aw = placings([(e, rank[e]) for e in in_strat[s]], "pair", coef_of=lambda e: STRAT[lim])
                for e, a in aw.items():
                    best[e] = max(best[e], a)
            for e, a in best.items():
                give(e, "RP", a)
            for i in (1, 2):
                pct = dict(zip(st["entrant"], st[f"session_{i}_pct"]))
                for e in st["entrant"]:
                    ok = pct[e] >= 50
                    if not ok and pct[e] > 40:
                        for s, lim in strats[1:]:
                            if e in in_strat[s]:
                                srank = 1 + sum(1 for o in in_strat[s] if pct[o] > pct[e])
                                ok = ok or srank <= len(in_strat[s]) / 2
                    if ok:
                        give(e, "BP", session_bp(ev["boards_per_session"], pct[e], 1))
        elif kind == "srr_pairs":
            half = D("0.5")
            teams, pairs = st[st["unit"] == "team"], st[st["unit"] == "pair"]
            for fl, g in teams.groupby("flight"):
                coef = F6[fl] * half
                for e, a in placings(list(zip(g["entrant"], g["rank"])), "team", coef_of=lambda e: coef).items():
                    give(e, "RP", a)
                for e, vp in zip(g["entrant"], g["winning_vp"]):
                    give(e, "BP", vp * D("0.003125") * ev["boards_per_match"] * 20 / D(ev["vp_scale"]) * coef)
            for fl, g in pairs.groupby("flight"):
                coef = F2[fl] * half
                for e, a in placings(list(zip(g["entrant"], g["rank"])), "pair", coef_of=lambda e: coef).items():
                    give(e, "RP", a)
                for i in (1, 2):
                    for e, pct in zip(g["entrant"], g[f"session_{i}_pct"]):
                        if pct >= 50:
                            give(e, "BP", session_bp(ev["boards_per_session"], pct, coef))
    return {k: v for k, v in got.items() if v != 0}


def ranks_with_ties(rng: random.Random, n: int) -> list[int]:
    """Competition ranks 1.. with random ties."""
    out, place = [], 1
    while len(out) < n:
        t = min(n - len(out), rng.choice([1, 1, 1, 1, 2, 2, 3]))
        out += [place] * t
        place += t
    return out


def pct(rng):
    return D(rng.randint(3500, 7200)) / 100


def make_case(seed: int):
    rng = random.Random(seed)
    kind = ["weekly_pairs", "weekly_teams", "ccg_pairs", "even_chance_teams", "womens_teams", "stf_pairs", "srr_pairs"][seed % 7]
    ev = dict(event_id=f"r{seed}", event_date="2024-06-02", kind=kind)
    hold = {}
    frames = []

    def fld(unit, n, flight="", prefix=""):
        size = [2] if unit == "pair" else [4, 5, 6]
        return pd.DataFrame({
            "unit": unit, "flight": flight, "entrant": [f"{prefix}{unit[0]}{flight}{i}" for i in range(n)],
            "rank": ranks_with_ties(rng, n),
            "players": [" ".join(f"{prefix}{unit[0]}{flight}{i}_{j}" for j in range(rng.choice(size))) for i in range(n)],
        })

    if kind.startswith("weekly"):
        ev["class_level"] = rng.randint(1, 5)
        frames.append(fld("pair" if kind == "weekly_pairs" else "team", rng.randint(3, 45)))
    elif kind == "ccg_pairs":
        ev |= dict(class_level=rng.randint(1, 5), sessions=1, boards_per_session=rng.choice([24, 26, 27]))
        f = fld("pair", rng.randint(4, 54))
        f["session_1_pct"] = [pct(rng) for _ in range(len(f))]
        frames.append(f)
    elif kind in ("even_chance_teams", "womens_teams"):
        ev |= dict(boards_per_match=rng.choice([6, 7, 8]), vp_scale=20, sessions=2, weekday=rng.random() < 0.5)
        flights = ["A", "B"] if kind == "womens_teams" else [""]
        if kind == "womens_teams":
            ev["team_flights"] = 2
        for fl in flights:
            f = fld("team", rng.randint(4, 30), fl)
            f["winning_vp"] = [D(rng.randint(0, 16000)) / 100 for _ in range(len(f))]
            frames.append(f)
    elif kind == "stf_pairs":
        ev |= dict(sessions=2, boards_per_session=26, strats=[("A", None), ("B", 1000), ("C", 500)])
        f = fld("pair", rng.randint(6, 54))
        f["session_1_pct"] = [pct(rng) for _ in range(len(f))]
        f["session_2_pct"] = [pct(rng) for _ in range(len(f))]
        for ps in f["players"]:
            for p in ps.split():
                hold[p] = D(rng.choice([0, 120, 499, 500, 700, 999, 1000, 3000]))
        frames.append(f)
    else:
        ev |= dict(sessions=2, boards_per_session=24, boards_per_match=6, vp_scale=30, team_flights=6, pair_flights=2)
        for fl in "ABCDEF":
            f = fld("team", 9, fl)
            f["winning_vp"] = [D(rng.randint(0, 24000)) / 100 for _ in range(9)]
            frames.append(f)
        for fl in "AB":
            f = fld("pair", rng.randint(10, 54), fl, prefix="x")
            f["session_1_pct"] = [pct(rng) for _ in range(len(f))]
            f["session_2_pct"] = [pct(rng) for _ in range(len(f))]
            frames.append(f)
    return ev, pd.concat(frames, ignore_index=True), hold


@pytest.mark.parametrize("seed", range(70))
def test_random_event_matches_independent_computation(seed):
    ev, st, hold = make_case(seed)
    holdings = pd.DataFrame({"player_id": list(hold), "masterpoints": list(hold.values())}) if hold else None
    lines = awards(ev, st, holdings)
    mine = {(p, d): v for p, d, v in zip(lines["player_id"], lines["denomination"], lines["points"])}
    assert mine == reference(ev, st, hold)
