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

import hashlib
from datetime import date
from decimal import Decimal
from pathlib import Path

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


# -- which files a recomputation re-derives -------------------------------------------------------


def recomputation_id(run_id: str) -> str:
    return "rc-" + run_id


def _chosen(organisations: pd.DataFrame, request) -> pd.Index:
    """The organisations a recomputation is asked for (all, one, or those of one system)."""
    chosen = organisations.index.to_series()
    if request.organisation:
        chosen = chosen[chosen == request.organisation]
    if request.system:
        chosen = chosen[organisations.loc[chosen.index, "system"] == request.system]
    return chosen.index


def _with_events_in_range(versions: pd.DataFrame, lake, request) -> pd.DataFrame:
    """The file versions (organisation, source_file, sha256, ...) with an event in the requested
    date range (all of them over the whole range)."""
    from schemas.ledger import EventRecord

    if request.full_range or versions.empty:
        return versions
    events = pd.concat([lake.read("events", EventRecord, org) for org in versions["organisation"].unique()], ignore_index=True)
    dates = pd.to_datetime(events["event_date"].astype("string"))
    inside = pd.Series(True, index=events.index)
    if request.date_from:
        inside &= dates >= pd.Timestamp(request.date_from)
    if request.date_to:
        inside &= dates <= pd.Timestamp(request.date_to)
    hit = events.loc[inside, ["organisation", "source_file", "source_sha256"]].astype("string").drop_duplicates()
    return versions.merge(hit.rename(columns={"source_sha256": "sha256"}), on=["organisation", "source_file", "sha256"],
                          how="inner")


def recompute_selection(files: pd.DataFrame, latest: pd.DataFrame, lake, organisations: pd.DataFrame, request) -> pd.DataFrame:
    """The scanned files a recomputation re-derives: the current version of each path that posted
    (wholly or in part), of the organisations and system asked for, with an event in the date
    range; over the whole range also each current version that was quarantined whole (a rule
    change can make it post: a new rule version reaching back to its date; its date is not known
    until it is read, so a ranged recompute leaves it). They are processed as corrections of
    themselves (`supersedes_sha256` = own content), so their lake rows and source records are
    renewed; every other file is left for the night."""
    status = latest[["organisation", "source_file", "sha256", "status"]].astype("string")
    f = files[(files["action"] == "unchanged") & files["organisation"].isin(_chosen(organisations, request))]
    f = f.merge(status, on=["organisation", "source_file", "sha256"], how="inner")
    statuses = ["posted", "posted_with_quarantine"] + (["quarantined"] if request.full_range else [])
    f = _with_events_in_range(f[f["status"].isin(statuses)].drop(columns="status"), lake, request)
    return f.assign(action="recompute", supersedes_sha256=f["sha256"].astype("string"),
                    duplicate_of=pd.Series(pd.NA, index=f.index, dtype="string"))[list(files.columns)]


def not_rederived(files: pd.DataFrame, latest: pd.DataFrame, lake, organisations: pd.DataFrame, request) -> dict[str, list[str]]:
    """The posted file versions a recomputation cannot re-derive, because the inbox no longer holds
    them as posted: `removed` (their lines stand under the rules they were posted with until the
    file is put back and recomputed again) and `changed` (the next nightly run posts the new
    version, under the rules now in data/). Said by `recompute`, never passed over in silence."""
    keys = ["organisation", "source_file", "sha256"]
    posted = latest[latest["organisation"].isin(_chosen(organisations, request))
                    & latest["status"].isin(["posted", "posted_with_quarantine"])][keys].astype("string")
    present = files.loc[files["action"].isin(["unchanged", "recompute"]), keys].astype("string")
    gone = posted.merge(present, on=keys, how="left", indicator=True)
    gone = _with_events_in_range(gone[gone["_merge"] == "left_only"].drop(columns="_merge"), lake, request)
    in_inbox = set(files["source_file"].astype(str))
    names = sorted(set(gone["source_file"].astype(str)))
    return {"removed": [f for f in names if f not in in_inbox], "changed": [f for f in names if f in in_inbox]}


# -- what a recomputation reports ----------------------------------------------------------------


def difference_by_player(lines: pd.DataFrame) -> list[dict]:
    """Per player, event and denomination: points before, after, the delta and the bases."""
    if lines is None or lines.empty:
        return []
    keys = ["organisation", "player_id", "event_id", "denomination"]
    signed = lines.assign(
        before=(-lines["points"]).where(lines["entry_type"] == "reversal", 0),
        after=lines["points"].where(lines["entry_type"] == "award", 0),
    )
    out = []
    for key, g in signed.groupby(keys, sort=True):
        before = sum((Decimal(str(v)) for v in g["before"]), Decimal("0"))
        after = sum((Decimal(str(v)) for v in g["after"]), Decimal("0"))
        out.append({
            **dict(zip(keys, map(str, key))),
            "before": str(before), "after": str(after), "delta": str(after - before),
            "basis_before": "; ".join(g.loc[g["entry_type"] == "reversal", "basis"].astype(str).str.split("; was: ", n=1).str[-1]),
            "basis_after": "; ".join(g.loc[g["entry_type"] == "award", "basis"].astype(str)),
        })
    return out


def recomputation_rows(recomputation: str, run_id: str, request, files: pd.DataFrame, award_lines: pd.DataFrame,
                       lake, data_dir) -> pd.DataFrame:
    """One `recomputations` row per organisation the recomputation covered."""
    from pipelines.core.settings import load_organisations

    organisations = load_organisations(data_dir)
    chosen = files.loc[files["action"] == "recompute", "organisation"].astype(str).value_counts()
    previous = (lake.runs[-1].get("history_rule_data", {}) if lake.runs else {})
    rows = []
    for org, n in sorted(chosen.items()):
        mine = award_lines[award_lines["organisation"] == org] if len(award_lines) else award_lines
        reversed_ = mine[mine["entry_type"] == "reversal"] if len(mine) else mine
        posted = mine[mine["entry_type"] == "award"] if len(mine) else mine
        system = str(organisations.loc[org, "system"])
        rows.append({
            "recomputation_id": recomputation, "run_id": run_id, "organisation": org, "system": system,
            "reason": request.reason or "", "date_from": request.date_from, "date_to": request.date_to, "files": int(n),
            "rule_versions_before": ",".join(sorted(set(reversed_["rule_version"].astype(str)))) if len(reversed_) else "",
            "rule_versions_after": ",".join(sorted(set(posted["rule_version"].astype(str)))) if len(posted) else "",
            "rule_data_before": previous.get(org), "rule_data_after": rule_data_fingerprint(data_dir, system, org),
            "lines_reversed": int(len(reversed_)), "lines_posted": int(len(posted)),
        })
    frame = pd.DataFrame(rows, columns=["recomputation_id", "run_id", "organisation", "system", "reason", "date_from",
                                        "date_to", "files", "rule_versions_before", "rule_versions_after", "rule_data_before",
                                        "rule_data_after", "lines_reversed", "lines_posted"])
    return frame.astype({"date_from": "object", "date_to": "object"})


# -- has the rule data changed since posted history was scored? ------------------------------------


def rule_data_fingerprint(data_dir, system: str, organisation: str) -> str:
    """sha256 over an organisation's rule data: its system's tables (data/rules/<system>/) and its
    own settings (data/organisations/<organisation>.toml), by path and content."""
    root = Path(data_dir)
    digest = hashlib.sha256()
    paths = sorted((root / "rules" / system).rglob("*")) + [root / "organisations" / f"{organisation}.toml"]
    for path in paths:
        if path.is_file():
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def rule_data_record(lake, organisations: pd.DataFrame, data_dir, award_lines: pd.DataFrame, request) -> dict:
    """For the run record: the rule data now (`rule_data`) and the rule data each organisation's
    posted history was scored under (`history_rule_data`). History is scored under the data of
    its first posting until a recomputation over the whole range re-derives it."""
    now = {org: rule_data_fingerprint(data_dir, str(row["system"]), org) for org, row in organisations.iterrows()}
    history = dict(lake.runs[-1].get("history_rule_data", {})) if lake.runs else {}
    posted_by = set(map(str, award_lines["organisation"].unique())) if len(award_lines) else set()  # distinct first: a night posts a million lines
    for org, fingerprint in now.items():
        whole = request is not None and request.full_range and (request.organisation in (None, org)) and \
            (request.system in (None, str(organisations.loc[org, "system"])))
        # an organisation seen for the first time (or in a state folder older than this record)
        # is taken to be scored under the data it is scored under now
        first = org not in history and (org in posted_by or bool(lake.committed_files("awards", org)))
        if whole or first:
            history[org] = fingerprint
    return {"rule_data": now, "history_rule_data": history}


def rule_data_warnings(run_record: dict) -> list[dict]:
    """Organisations whose posted history was scored under rule data that no longer matches."""
    now, history = run_record.get("rule_data", {}), run_record.get("history_rule_data", {})
    return [
        {"organisation": org, "message": (
            f"the rule data of {org} changed since its posted lines were scored; see the effect with "
            f"`pointledger recompute --organisation {org} --dry-run`, then post it with "
            f"`pointledger recompute --organisation {org} --reason \"...\"`")}
        for org, fingerprint in sorted(history.items()) if org in now and now[org] != fingerprint
    ]
