"""Recompute after a backgammon table cell is corrected (issue 11).

The March Club Championship sample (Advanced/Open, 12 players, 5 rounds, multiplier 2; award =
max(placing, wins × per match) × multiplier, half-up to 0.01: see test_bg_pipeline.EXPECTED).
The club raises the Advanced/Open match award from .08 to .10 (match_awards.csv). By hand, only
the players whose matches beat their placing change: Zoe Park 4 wins .40 > .31 → 0.80 (was
0.64), Amir Haddad 3 × .10 → 0.60 (was 0.48), Bella Stone 0.40 (0.32), Carl Moss 0.20 (0.16).
Rosa 2.50 > .50, Tariq 1.25 > .40, Uma 0.83 > .40, Victor 0.55 > .30, Wendy and Xavier 0.31 > .30,
Yusuf 0.31 > .20 keep their placing; Dina has no win."""
from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

from pipelines.core import run as nightly

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples" / "inbox" / "ukbgclub"
MARCH = "ukbgclub/2025/2025-03-04-march-championship.csv"


def test_a_raised_match_award_reposts_only_the_players_it_moves(office):
    office.post(MARCH, (SAMPLES / "2025" / "2025-03-04-march-championship.csv").read_bytes())
    assert office.run().exit_code == nightly.EXIT_OK
    table = office.data / "rules" / "backgammon" / "match_awards.csv"
    text = table.read_text(encoding="utf-8")
    assert text.count("ucmp-1,Advanced/Open,0.08\n") == 1
    table.write_text(text.replace("ucmp-1,Advanced/Open,0.08\n", "ucmp-1,Advanced/Open,0.10\n"), encoding="utf-8")

    done = nightly.run(office.inbox, office.state, date(2026, 12, 3), office.data_dir(),
                       recompute=nightly.Recompute(system="backgammon", reason="match award .10"))
    lines = office.query("select entry_type, player_id, points from awards where run_id = ? order by 2, 1", [done.run_id])
    changed = {(e, p): v for e, p, v in zip(lines["entry_type"], lines["player_id"], lines["points"])}
    names = {p for _, p in changed}
    assert len(names) == 4 and len(changed) == 8
    by_name = {}
    for (entry, player), points in changed.items():
        by_name.setdefault(player, {})[entry] = points
    got = sorted((-v["reversal"], v["award"]) for v in by_name.values())
    assert got == sorted([(Decimal("0.64"), Decimal("0.80")), (Decimal("0.48"), Decimal("0.60")),
                          (Decimal("0.32"), Decimal("0.40")), (Decimal("0.16"), Decimal("0.20"))])
    total = office.query("select sum(points) as p from balances")["p"].iloc[0]
    # 5.00 + 2.50 + 1.66 + 1.10 + 0.62 × 3 + 0.80 + 0.60 + 0.40 + 0.20 + 0.00
    assert total == Decimal("14.12")
