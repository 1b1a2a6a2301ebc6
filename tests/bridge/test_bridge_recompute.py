"""Recompute after a bridge VP scale changes (issue 11).

The Sunday teams sample is posted under the WBF continuous 20-VP scale; every match's VP is checked
against the WBF formula computed here independently. The club then moves to its own discrete
table (a data change in the office's data directory: a new scale in vp_scales.csv and
vp_scale_tables.csv, and vp_scale in the club's settings) and recomputes: every match's VP follows
the table, looked up here by hand from its IMP margin; the team standings page is rewritten with
the new sums; a second recompute changes nothing. Bridge posts no ledger lines itself (JCBL awards
from its results), so the recomputation reverses and posts none: what changes is the results."""
from __future__ import annotations

import math
from datetime import date
from decimal import ROUND_HALF_UP, Decimal, getcontext
from pathlib import Path

from pipelines.core import run as nightly

CLUB = "tokyo-bridge-club"
SAMPLE = Path(__file__).resolve().parents[2] / "data" / "samples" / "inbox" / CLUB / "2026-11-15-sunday-teams.pbn"
TEAMS = f"{CLUB}/2026-11-15-sunday-teams.pbn"

# the club's own table: (lowest margin, highest margin or None, winner VP, loser VP), any boards
STEPS = [(0, 2, 10, 10), (3, 10, 12, 8), (11, 20, 15, 5), (21, None, 18, 2)]


def wbf20(margin: int, boards: int) -> Decimal:
    """WBF 2013 continuous scale, winner's VP: 10 + 10 (1 - tau^(3M/B)) / (1 - tau^3), tau the
    golden ratio's inverse, B = 15 sqrt(boards), at most 20, half-up to 2 places."""
    getcontext().prec = 40
    tau = (Decimal(5).sqrt() - 1) / 2
    b = 15 * Decimal(boards).sqrt()
    x = 3 * Decimal(margin) / b
    value = Decimal(10) + Decimal(10) * (1 - (x * tau.ln()).exp()) / (1 - tau ** 3)
    return min(value, Decimal(20)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def steps(margin: int) -> tuple[int, int]:
    for low, high, win, lose in STEPS:
        if margin >= low and (high is None or margin <= high):
            return win, lose
    raise AssertionError(margin)


def matches(office):
    return office.query("select round, team, imps_for, imps_against, boards, vp from team_matches order by round, team")


def test_a_new_vp_scale_is_recomputed_for_the_posted_matches(office):
    office.post(TEAMS, SAMPLE.read_bytes())
    assert office.run().exit_code == nightly.EXIT_OK
    before = matches(office)
    assert len(before) >= 4
    for r in before.itertuples():
        margin = int(r.imps_for) - int(r.imps_against)
        winner = wbf20(abs(margin), int(r.boards))
        expected = winner if margin > 0 else Decimal(20) - winner if margin < 0 else Decimal(10)
        assert Decimal(r.vp) == expected, r

    rules = office.data / "rules" / "bridge"
    with open(rules / "vp_scales.csv", "a", encoding="utf-8") as f:
        f.write('CLUB-STEPS,table,20,0,,,"the club\'s own four-step table"\n')
    with open(rules / "vp_scale_tables.csv", "a", encoding="utf-8") as f:
        for low, high, win, lose in STEPS:
            f.write(f"CLUB-STEPS,1,999,{low},{'' if high is None else high},{win},{lose}\n")
    data = office.data_dir()  # the office's data folder as the runs see it (its organisations)
    settings = data / "organisations" / f"{CLUB}.toml"
    text = settings.read_text(encoding="utf-8")
    assert text.count('vp_scale = "WBF20"') == 1
    settings.write_text(text.replace('vp_scale = "WBF20"', 'vp_scale = "CLUB-STEPS"'), encoding="utf-8")

    done = nightly.run(office.inbox, office.state, date(2026, 12, 3), data,
                       recompute=nightly.Recompute(system="bridge", reason="the club's own VP table"))
    assert done.exit_code == nightly.EXIT_OK
    after = matches(office)
    assert list(after["team"]) == list(before["team"]) and list(after["imps_for"]) == list(before["imps_for"])
    for r in after.itertuples():
        margin = int(r.imps_for) - int(r.imps_against)
        win, lose = steps(abs(margin))
        assert Decimal(r.vp) == (win if margin > 0 else lose if margin < 0 else 10), r
    rc = office.query("select files, lines_reversed, lines_posted, reason from recomputations")
    assert list(zip(rc["files"], rc["lines_reversed"], rc["lines_posted"])) == [(1, 0, 0)]
    # the standings page follows: each team's VP is the sum over its matches
    page = next((office.state / "publications" / CLUB).glob("*sunday-teams")) / "standings.csv"
    rows = page.read_text(encoding="utf-8-sig").splitlines()
    sums = {}
    for r in after.itertuples():
        sums[str(r.team)] = sums.get(str(r.team), Decimal(0)) + Decimal(r.vp)
    got = {row.split(",")[2]: Decimal(row.split(",")[-1]) for row in rows[1:]}
    assert got == sums

    # a second recompute changes nothing
    again = nightly.run(office.inbox, office.state, date(2026, 12, 4), data,
                        recompute=nightly.Recompute(system="bridge", reason="again"))
    assert again.exit_code == nightly.EXIT_OK
    assert matches(office).equals(after)
    assert math.isclose(float(sum(sums.values())), float(sum(Decimal(v) for v in after["vp"])))
