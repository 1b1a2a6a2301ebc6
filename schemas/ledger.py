"""Stage contracts shared by every rule system: award lines, quarantine records, sources, events.

The ledger (`awards`) is append-only. A correction never edits a line: it appends a `reversal`
line (negated points, `reverses_award_id` set) and new `award` lines.
"""
from __future__ import annotations

import pandas as pd
import pandera.pandas as pa
from pandera.typing import Series

from schemas.common import BOOL, DATE, INT, POINTS, TEXT, unique_grain

ENTRY_TYPES = ["award", "reversal"]


class AwardDraft(pa.DataFrameModel):
    """What a rule system hands to the ledger: one line per player per award, not yet posted."""

    organisation: TEXT = pa.Field()
    system: TEXT = pa.Field()
    event_id: TEXT = pa.Field()
    event_date: DATE = pa.Field()
    player_id: TEXT = pa.Field(str_length={"min_value": 1})
    denomination: TEXT = pa.Field()
    points: POINTS = pa.Field()
    rule_version: TEXT = pa.Field()
    basis: TEXT = pa.Field(str_length={"min_value": 1})
    season: TEXT = pa.Field()
    source_file: TEXT = pa.Field()
    source_sha256: TEXT = pa.Field(str_length={"min_value": 64, "max_value": 64})
    location: TEXT = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["event_id", "player_id", "denomination"]


class AwardLine(AwardDraft):
    """A posted ledger line."""

    award_id: TEXT = pa.Field()
    run_id: TEXT = pa.Field()
    entry_type: TEXT = pa.Field(isin=ENTRY_TYPES)
    reverses_award_id: TEXT = pa.Field(nullable=True)
    posted_on: DATE = pa.Field()

    class Config:
        strict = True
        coerce = True
        # the grain is award_id, checked below on sort-based codes: pandera's `unique` spells a
        # history's million ids out as Python strings (about 200 MB above the night's lines)
        unique = None

    @pa.dataframe_check(error="award_id must be unique: two lines have the same id")
    def one_line_per_award_id(cls, df: pd.DataFrame) -> pd.DataFrame | bool:
        return unique_grain(df, ["award_id"])

    @pa.dataframe_check(error="a reversal line must name the line it reverses, an award line must not")
    def reversal_names_its_line(cls, df: pd.DataFrame) -> Series[bool]:
        is_reversal = df["entry_type"] == "reversal"
        return is_reversal == df["reverses_award_id"].notna()


class QuarantineRecord(pa.DataFrameModel):
    """One rejected input record, with what a club secretary needs to fix it."""

    run_id: TEXT = pa.Field()
    organisation: TEXT = pa.Field()
    source_file: TEXT = pa.Field()
    location: TEXT = pa.Field()
    reason: TEXT = pa.Field(str_length={"min_value": 1})
    record: TEXT = pa.Field(nullable=True)

    class Config:
        strict = True
        coerce = True


class QuarantineDraft(pa.DataFrameModel):
    """Quarantine rows as parsers produce them (the run fills in run_id and organisation)."""

    source_file: TEXT = pa.Field()
    location: TEXT = pa.Field()
    reason: TEXT = pa.Field(str_length={"min_value": 1})
    record: TEXT = pa.Field(nullable=True)

    class Config:
        strict = True
        coerce = True


SOURCE_STATUSES = ["posted", "posted_with_quarantine", "quarantined", "duplicate"]


class SourceRecord(pa.DataFrameModel):
    """Every inbox file the pipeline has looked at, one row per (path, content) it processed."""

    run_id: TEXT = pa.Field()
    organisation: TEXT = pa.Field()
    source_file: TEXT = pa.Field()
    sha256: TEXT = pa.Field(str_length={"min_value": 64, "max_value": 64})
    size_bytes: INT = pa.Field(ge=0)
    mtime_ns: INT = pa.Field()
    status: TEXT = pa.Field(isin=SOURCE_STATUSES)
    duplicate_of: TEXT = pa.Field(nullable=True)
    supersedes_sha256: TEXT = pa.Field(nullable=True)
    records_posted: INT = pa.Field(ge=0)
    records_quarantined: INT = pa.Field(ge=0)
    award_lines: INT = pa.Field(ge=0)

    class Config:
        strict = True
        coerce = True
        unique = ["organisation", "source_file", "sha256"]

    @pa.dataframe_check(error="a duplicate must name the file it duplicates")
    def duplicate_names_original(cls, df: pd.DataFrame) -> Series[bool]:
        return (df["status"] == "duplicate") == df["duplicate_of"].notna()


class EventRecord(pa.DataFrameModel):
    """One scored event (a mahjong game, a bridge session, a backgammon tournament...)."""

    event_id: TEXT = pa.Field()
    organisation: TEXT = pa.Field()
    system: TEXT = pa.Field()
    event_date: DATE = pa.Field()
    kind: TEXT = pa.Field()
    source_file: TEXT = pa.Field()
    source_sha256: TEXT = pa.Field()
    location: TEXT = pa.Field()
    run_id: TEXT = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["event_id"]


__all__ = [
    "AwardDraft",
    "AwardLine",
    "EventRecord",
    "QuarantineDraft",
    "QuarantineRecord",
    "SourceRecord",
    "BOOL",
]


class RecomputationRecord(pa.DataFrameModel):
    """One recomputation of an organisation's posted history (`pointledger recompute`): why, what
    range, under which rule data, and how many lines it reversed and posted."""

    recomputation_id: TEXT = pa.Field()
    run_id: TEXT = pa.Field()
    organisation: TEXT = pa.Field()
    system: TEXT = pa.Field()
    reason: TEXT = pa.Field()
    date_from: DATE = pa.Field(nullable=True)
    date_to: DATE = pa.Field(nullable=True)
    files: INT = pa.Field(ge=0)
    rule_versions_before: TEXT = pa.Field()  # the versions of the lines it reversed (comma separated)
    rule_versions_after: TEXT = pa.Field()  # the versions of the lines it posted
    rule_data_before: TEXT = pa.Field(nullable=True)  # fingerprint of the rule data history was scored under
    rule_data_after: TEXT = pa.Field()  # fingerprint of the rule data now in data/
    lines_reversed: INT = pa.Field(ge=0)
    lines_posted: INT = pa.Field(ge=0)

    class Config:
        strict = True
        coerce = True
        unique = ["recomputation_id", "organisation"]
