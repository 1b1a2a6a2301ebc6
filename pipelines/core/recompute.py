"""Recompute after a rule change: the difference between posted lines and re-derived drafts.

`difference` is the core of `pointledger recompute` (issue 11): given the standing award lines
of the file versions in range and the drafts the rule system derives from the same files under
the rule data now in data/, it returns only what changed: a reversal of each changed standing
line and its new line, both naming the recomputation. Unchanged lines are not touched, so a
second recompute over the same data yields nothing.

A line is identified by (organisation, source_file, event_id, player_id, denomination); it has
changed when its points or its rule version differ, or when it exists on one side only.
Set-based: one outer merge, no per-row loop.
"""
from __future__ import annotations

from datetime import date

import pandas as pd

from pipelines.core import ledger
from schemas.common import empty_frame
from schemas.ledger import AwardLine

KEY = ["organisation", "source_file", "event_id", "player_id", "denomination"]


def difference(standing: pd.DataFrame, drafts: pd.DataFrame, recomputation_id: str, run_id: str,
               posted_on: date) -> pd.DataFrame:
    """Reversal lines + new award lines (AwardLine columns) that take `standing` to `drafts`."""
    columns = list(AwardLine.to_schema().columns)
    if standing.empty and drafts.empty:
        return empty_frame(AwardLine)
    old = standing[KEY + ["award_id", "points", "rule_version"]] if len(standing) else pd.DataFrame(columns=KEY + ["award_id", "points", "rule_version"])
    new = drafts[KEY + ["points", "rule_version"]] if len(drafts) else pd.DataFrame(columns=KEY + ["points", "rule_version"])
    merged = old.astype({k: "string" for k in KEY}).merge(
        new.astype({k: "string" for k in KEY}), on=KEY, how="outer", suffixes=("_old", "_new"), indicator=True)
    same = ((merged["_merge"] == "both")
            & (merged["points_old"].astype("string") == merged["points_new"].astype("string")).fillna(False)
            & (merged["rule_version_old"].astype("string") == merged["rule_version_new"].astype("string")).fillna(False))
    changed = merged.loc[~same, KEY]
    changed_old = standing.merge(changed.astype({k: "string" for k in KEY}), on=KEY, how="inner") if len(standing) else standing
    changed_new = drafts.merge(changed.astype({k: "string" for k in KEY}), on=KEY, how="inner") if len(drafts) else drafts
    parts = []
    if len(changed_old):
        parts.append(changed_old.assign(
            award_id="r-" + changed_old["award_id"].str.slice(2),
            run_id=run_id,
            entry_type="reversal",
            reverses_award_id=changed_old["award_id"],
            points=-changed_old["points"],
            basis="reversal of " + changed_old["award_id"] + " by recomputation " + recomputation_id
            + " (rule data changed); was: " + changed_old["basis"],
            posted_on=posted_on,
        )[columns])
    if len(changed_new):
        posted = ledger.post(changed_new[list(drafts.columns)].reset_index(drop=True), run_id, posted_on)
        parts.append(posted.assign(basis=posted["basis"] + " [recomputation " + recomputation_id + "]")[columns])
    if not parts:
        return empty_frame(AwardLine)
    return pd.concat(parts, ignore_index=True)
