"""`pointledger check`: run a rule system's parsing and validation on files, post nothing."""
from __future__ import annotations

import os
from datetime import date
from pathlib import Path

import pandas as pd

from pipelines.core.inbox import IGNORED_PREFIXES, sha256_of
from pipelines.core.lake import Lake
from pipelines.core.processing import process_isolated
from pipelines.core.rule_tables import check_settings
from pipelines.core.settings import DEFAULT_MAX_FILE_MB, StatePaths
from pipelines.core.system import RunContext, SourceFile, get_system
from pipelines.core.text import visible_controls


def _posted_sources(state: Path) -> pd.DataFrame:
    """The latest record of every path posted in a state folder (read only: nothing is written)."""
    from pipelines.core import inbox
    from schemas.ledger import SourceRecord

    history = Lake.open(StatePaths(state)).read("sources", SourceRecord)
    return inbox.latest_versions(history)


def _against_state(latest: pd.DataFrame, org_id: str, source_file: str, sha: str) -> tuple[str, str]:
    """What ``run`` would do with this content given what the state has posted: ("post" | "nothing" |
    "correction", the sentence saying why)."""
    mine = latest[(latest["organisation"] == org_id) & (latest["source_file"] == source_file)]
    standing = latest[(latest["organisation"] == org_id) & (latest["status"] != "duplicate")]
    if len(mine) and mine["sha256"].iloc[-1] == sha:
        return "nothing", (f"already posted: {source_file} was read with this content by run {mine['run_id'].iloc[-1]}; "
                           "run would post nothing")
    same = standing[(standing["sha256"] == sha) & (standing["source_file"] != source_file)]
    if len(same):
        return "nothing", (f"already posted from {same['source_file'].iloc[0]}: the same content at another path is a "
                           "duplicate; run would post nothing")
    if len(mine):
        return "correction", (f"a correction of {source_file} (posted by run {mine['run_id'].iloc[-1]} with other "
                              "content): run would reverse its earlier lines and post these")
    return "post", ""


def check_files(files: list[Path], organisations: pd.DataFrame, organisation: str | None, as_of: date,
                data_dir: Path, scratch: Path, state: Path | None = None) -> list[dict]:
    """``state``: a state folder of ``pointledger run`` (read, never written): each file is then
    checked as tonight's run would see it, beside what that state has posted ("already posted",
    "already posted from <path>", a correction, a session already posted by another file)."""
    lake = Lake.open(StatePaths(state if state is not None else scratch))
    ctx = RunContext(run_id="check", as_of=as_of, lake=lake, data_dir=data_dir)
    latest = _posted_sources(state) if state is not None else None
    active = (latest.loc[latest["status"] != "duplicate", ["source_file", "sha256"]]
              .rename(columns={"sha256": "source_sha256"}) if latest is not None
              else pd.DataFrame(columns=["source_file", "source_sha256"]))
    report = []
    for path in files:
        # the organisation is the nearest enclosing folder named after one (inbox/<org>/any/sub/folders);
        # the path as named, its links not resolved (a link is reported as one, as the run does)
        path = Path(os.path.abspath(path))
        folder = next((p for p in path.parents if p.name in organisations.index), None)
        org_id = organisation or (folder.name if folder else path.parent.name)
        if org_id not in organisations.index:
            raise KeyError(f"{path}: unknown organisation {org_id!r}; pass --organisation or put the file in a folder "
                           f"named after its organisation (known: {', '.join(organisations.index)})")
        org = organisations.loc[org_id]
        system = get_system(org["system"])
        check_settings(data_dir, organisations.loc[[org_id]])  # as the run does: its settings first (once per content)
        inside = path.relative_to(folder) if folder is not None and folder.name == org_id else Path(path.name)
        source_file = f"{org_id}/{inside.as_posix()}"
        if path.name.startswith(IGNORED_PREFIXES):
            report.append({"file": str(path), "records_ok": 0, "problems": [
                {"location": "whole file", "reason": "the nightly run ignores hidden files and editor lock files (names "
                 f"starting with {' or '.join(map(repr, IGNORED_PREFIXES))}): rename the file to have it read", "record": None}]})
            continue
        if path.suffix.lower() not in system.accepted_suffixes:
            report.append({"file": str(path), "records_ok": 0, "problems": [
                {"location": "whole file", "reason": f"unsupported file type {path.suffix or '(none)'}; expected one of "
                 f"{', '.join(system.accepted_suffixes)}", "record": None}]})
            continue
        if path.is_symlink():
            report.append({"file": str(path), "records_ok": 0, "problems": [
                {"location": "whole file", "reason": "a link, not a file: copy the file itself (links are not followed)",
                 "record": None}]})
            continue
        if not path.is_file():
            # a named pipe would block the read for ever, a device never end it, a folder is not a file
            report.append({"file": str(path), "records_ok": 0, "problems": [
                {"location": "whole file", "reason": "not a regular file (a folder, a device, pipe or socket): put the result "
                 "file itself into the inbox", "record": None}]})
            continue
        limit_mb = org.get("max_file_mb")
        limit_mb = DEFAULT_MAX_FILE_MB if limit_mb is None or pd.isna(limit_mb) else int(limit_mb)
        size = path.stat().st_size
        if size > limit_mb * 1_000_000:
            report.append({"file": str(path), "records_ok": 0, "problems": [
                {"location": "whole file", "reason": f"file too large: {size / 1_000_000:.1f} MB, the limit is {limit_mb} MB "
                 "(max_file_mb in the organisation settings); the file was not read", "record": None}]})
            continue
        sha = sha256_of(str(path))
        notes: list[str] = []
        superseded: set[str] = set()
        if latest is not None:
            action, note = _against_state(latest, org_id, source_file, sha)
            if action == "nothing":
                report.append({"file": str(path), "records_ok": 0, "problems": [], "notes": [note], "action": "nothing"})
                continue
            if action == "correction":
                notes.append(note)
                superseded = {source_file}
        # the same isolation as the nightly run: what check reports is what run would quarantine
        isolated = process_isolated(ctx, system, org, [SourceFile(org_id, source_file, path, sha)],
                                    active, superseded)
        batch = isolated.batch
        quarantine = batch.quarantine.assign(reason=visible_controls(batch.quarantine["reason"]),
                                             record=visible_controls(batch.quarantine["record"]))  # as the run shows them
        problems = [
            {"location": r.location, "reason": r.reason, "record": None if pd.isna(r.record) else r.record}
            for r in quarantine.itertuples()
        ]
        posted = int(batch.records["records_posted"].sum()) if len(batch.records) else 0
        report.append({"file": str(path), "records_ok": posted, "problems": problems, "notes": notes,
                       "internal_errors": [i.as_dict() for i in isolated.incidents]})
    return report
