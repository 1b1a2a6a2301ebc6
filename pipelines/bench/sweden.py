"""Swedish masterpoints: a scaled-down federation through the nightly run.

The issue's target is two years of 300 clubs (about 90,000 events) in under 60 s. The system is
far from that today (about 70 events/s at 608 events, ~960 s extrapolated for 90,000; see docs/sweden.md), so `make bench` runs a small
federation that finishes in seconds and reports events per second; the full size is
`python -c "from pipelines.sweden.bench import run; ..."` with clubs=300, months=24.
"""
from __future__ import annotations

from pathlib import Path

from pipelines.sweden.bench import run as run_federation

CLUBS = 8
MONTHS = 1


def run(workdir: Path) -> dict:
    return {"scale": f"{CLUBS} clubs, {MONTHS} month (not the 300-club target)", **run_federation(workdir, CLUBS, MONTHS)}
