"""Drive a rule system's ``process`` directly on a temporary inbox (no full nightly run): what the
fuzz and bounds tests need to check that a batch never raises and accounts for every record."""
from __future__ import annotations

import hashlib
from datetime import date
from pathlib import Path

import pandas as pd

from pipelines.core.lake import Lake
from pipelines.core.settings import DATA_DIR, StatePaths, load_organisations
from pipelines.core.system import RunContext, SourceFile, get_system


def sources_in(inbox: Path, organisation: str, files: dict[str, bytes]) -> list[SourceFile]:
    out = []
    for name, data in files.items():
        path = inbox / organisation / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        out.append(SourceFile(organisation, f"{organisation}/{name}", path, hashlib.sha256(data).hexdigest()))
    return out


def process(tmp: Path, system: str, organisation: str, files: dict[str, bytes], as_of: date):
    """(batch, sources): SYSTEM.process over ``files`` (name inside the organisation folder → bytes)."""
    inbox = tmp / "inbox"
    sources = sources_in(inbox, organisation, files)
    lake = Lake.open(StatePaths(tmp / "var"))
    ctx = RunContext(run_id="20260101T000000000000Z-test", as_of=as_of, lake=lake, data_dir=DATA_DIR, inbox=inbox)
    org = load_organisations(DATA_DIR).loc[organisation]
    active = pd.DataFrame({"source_file": pd.Series(dtype="string"), "source_sha256": pd.Series(dtype="string")})
    return get_system(system).process(ctx, org, sources, active, set()), sources
