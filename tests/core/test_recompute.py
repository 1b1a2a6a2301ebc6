"""recompute.difference: only changed lines are reversed and reposted (issue 11).

Hand computation: a mahjong game under sofu-league season-1 placing points (1st 7, 2nd 4, 3rd 2,
4th 0; data/rules/mahjong/placing_points.csv). The league corrects 2nd place from 4 to 5. Only the
2nd-placed player's line changes: reversal -4.00 and new line 5.00, balance 4 -> 5; the others
are untouched, and recomputing again posts nothing.
"""
from datetime import date
from decimal import Decimal

import pandas as pd

from pipelines.core import ledger
from pipelines.core.recompute import difference
from schemas.common import POINTS
from schemas.ledger import AwardDraft, AwardLine

SHA = "a" * 64


def drafts(points: dict[str, str]) -> pd.DataFrame:
    players = list(points)
    return pd.DataFrame({
        "organisation": "sofu", "system": "mahjong", "event_id": "sofu-g1", "event_date": date(2026, 3, 1),
        "player_id": players, "denomination": "rp",
        "points": pd.array([Decimal(points[p]) for p in players], dtype=POINTS),
        "rule_version": "season-1", "basis": [f"place {i + 1}: {points[p]}" for i, p in enumerate(players)],
        "season": "2026", "source_file": "sofu/2026-03-01.csv", "source_sha256": SHA, "location": "line 2",
    }).pipe(AwardDraft.validate)


BEFORE = {"ann": "7", "bob": "4", "cid": "2", "dan": "0"}
AFTER = {"ann": "7", "bob": "5", "cid": "2", "dan": "0"}


def balances(lines: pd.DataFrame) -> dict[str, Decimal]:
    return {p: sum(g, Decimal(0)) for p, g in lines.groupby("player_id")["points"]}


def test_only_the_changed_line_is_reversed_and_reposted():
    posted = ledger.post(drafts(BEFORE), "run-1", date(2026, 3, 2))
    out = difference(ledger.standing_lines(posted), drafts(AFTER), "rc-1", "run-2", date(2026, 4, 1))
    AwardLine.validate(out)
    assert sorted(zip(out["entry_type"], out["player_id"], out["points"])) == [
        ("award", "bob", Decimal("5.00")), ("reversal", "bob", Decimal("-4.00"))]
    reversal = out[out["entry_type"] == "reversal"].iloc[0]
    assert reversal["reverses_award_id"] == posted.loc[posted["player_id"] == "bob", "award_id"].iloc[0]
    assert out["basis"].str.contains("rc-1").all()
    ledger_now = pd.concat([posted, out], ignore_index=True)
    assert balances(ledger_now) == {"ann": Decimal(7), "bob": Decimal(5), "cid": Decimal(2), "dan": Decimal(0)}
    # second recompute: nothing
    again = difference(ledger.standing_lines(ledger_now), drafts(AFTER), "rc-2", "run-3", date(2026, 4, 2))
    assert again.empty


def test_unchanged_rules_post_nothing_and_a_vanished_line_is_reversed():
    posted = ledger.post(drafts(BEFORE), "run-1", date(2026, 3, 2))
    assert difference(ledger.standing_lines(posted), drafts(BEFORE), "rc-1", "run-2", date(2026, 4, 1)).empty
    three = drafts({"ann": "7", "bob": "4", "cid": "2"})
    out = difference(ledger.standing_lines(posted), three, "rc-1", "run-2", date(2026, 4, 1))
    assert list(zip(out["entry_type"], out["player_id"], out["points"])) == [("reversal", "dan", Decimal("0.00"))]


def test_a_new_rule_version_alone_counts_as_a_change():
    posted = ledger.post(drafts(BEFORE), "run-1", date(2026, 3, 2))
    relabelled = drafts(BEFORE).assign(rule_version="season-1b")
    out = difference(ledger.standing_lines(posted), relabelled, "rc-1", "run-2", date(2026, 4, 1))
    assert (out["entry_type"] == "reversal").sum() == 4 and (out["entry_type"] == "award").sum() == 4
    assert balances(pd.concat([posted, out])) == {p: Decimal(v) for p, v in BEFORE.items()}
