"""`pointledger check`: run a rule system's parsing and validation on files, post nothing."""
from __future__ import annotations

import hashlib
from datetime import date
from pathlib import Path

import pandas as pd

from pipelines.core.lake import Lake
from pipelines.core.settings import StatePaths
from pipelines.core.system import RunContext, SourceFile, get_system


def check_files(files: list[Path], organisations: pd.DataFrame, organisation: str | None, as_of: date,
                data_dir: Path, scratch: Path) -> list[dict]:
    ctx = RunContext(run_id="check", as_of=as_of, lake=Lake.open(StatePaths(scratch)), data_dir=data_dir)
    report = []
    for path in files:
        # the organisation is the nearest enclosing folder named after one (inbox/<org>/any/sub/folders)
        folder = next((p for p in path.resolve().parents if p.name in organisations.index), None)
        org_id = organisation or (folder.name if folder else path.resolve().parent.name)
        if org_id not in organisations.index:
            raise KeyError(f"{path}: unknown organisation {org_id!r}; pass --organisation or put the file in a folder "
                           f"named after its organisation (known: {', '.join(organisations.index)})")
        org = organisations.loc[org_id]
        system = get_system(org["system"])
        inside = path.resolve().relative_to(folder) if folder is not None and folder.name == org_id else Path(path.name)
        source_file = f"{org_id}/{inside.as_posix()}"
        if path.suffix.lower() not in system.accepted_suffixes:
            report.append({"file": str(path), "records_ok": 0, "problems": [
                {"location": "whole file", "reason": f"unsupported file type {path.suffix or '(none)'}; expected one of "
                 f"{', '.join(system.accepted_suffixes)}", "record": None}]})
            continue
        sha = hashlib.sha256(path.read_bytes()).hexdigest()
        batch = system.process(ctx, org, [SourceFile(org_id, source_file, path, sha)],
                               pd.DataFrame(columns=["source_file", "source_sha256"]), set())
        problems = [
            {"location": r.location, "reason": r.reason, "record": None if pd.isna(r.record) else r.record}
            for r in batch.quarantine.itertuples()
        ]
        report.append({"file": str(path), "records_ok": int(batch.records["records_posted"].sum()), "problems": problems})
    return report
