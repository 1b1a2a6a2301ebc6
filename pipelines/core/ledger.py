"""Posting award lines: ids, run stamps, and reversals of corrected sources."""
from __future__ import annotations

import pyarrow as pa
from datetime import date

import pandas as pd

from pipelines.core.sql import arrow, scratch
from schemas.common import empty_frame
from schemas.ledger import AwardLine

# The run is part of a line's identity: a file put back to an earlier version (X → Y → X) posts
# X's lines again, and they must not collide with the first posting of X.
_ID_PARTS = ["run_id", "organisation", "source_file", "source_sha256", "event_id", "player_id", "denomination"]


def _award_ids(drafts: pd.DataFrame) -> pd.Series:
    """md5 of the line's identifying fields (run, file version, event, player, denomination),
    computed set-based in DuckDB (an identifier, not a signature: 96 bits are plenty)."""
    con = scratch()
    try:
        con.register("drafts", pa.Table.from_pandas(drafts[_ID_PARTS], preserve_index=False))
        ids = arrow(
            con, "select 'a-' || left(md5(concat_ws(chr(31), " + ", ".join(_ID_PARTS) + ")), 24) as award_id from drafts")
    finally:
        con.close()
    return pd.Series(pd.arrays.ArrowExtensionArray(ids.column("award_id").combine_chunks()), index=drafts.index)


def post(drafts: pd.DataFrame, run_id: str, posted_on: date) -> pd.DataFrame:
    if drafts.empty:
        return empty_frame(AwardLine)
    drafts = drafts.assign(run_id=run_id)
    return drafts.assign(
        award_id=_award_ids(drafts),
        entry_type="award",
        reverses_award_id=pd.NA,
        posted_on=posted_on,
    )[list(AwardLine.to_schema().columns)]


def standing_lines(awards: pd.DataFrame) -> pd.DataFrame:
    """Award lines that have not been reversed."""
    reversed_ids = set(awards.loc[awards["entry_type"] == "reversal", "reverses_award_id"].dropna())
    return awards[(awards["entry_type"] == "award") & ~awards["award_id"].isin(reversed_ids)]


def reverse(lines: pd.DataFrame, new_sha: pd.Series, run_id: str, posted_on: date) -> pd.DataFrame:
    """Reversal lines for standing award lines of corrected sources (`new_sha`: path → new content)."""
    if lines.empty:
        return empty_frame(AwardLine)
    return lines.assign(
        award_id="r-" + lines["award_id"].str.slice(2),
        run_id=run_id,
        entry_type="reversal",
        reverses_award_id=lines["award_id"],
        points=-lines["points"],
        basis="reversal of " + lines["award_id"] + ": " + lines["source_file"] + " was corrected ("
        + lines["source_sha256"].str.slice(0, 8) + " → " + lines["source_file"].map(new_sha).str.slice(0, 8)
        + "); was: " + lines["basis"],
        posted_on=posted_on,
    )[list(AwardLine.to_schema().columns)]
