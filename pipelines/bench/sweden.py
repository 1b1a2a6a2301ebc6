"""Swedish masterpoints: a federation through the nightly run (issue 8), then one night on it.

The issue's size is 300 clubs × 24 months (about 90,000 events); `make bench` runs a small
federation by default so that it finishes in about a minute. The size is set by the environment:

    make bench BENCH=sweden SE_CLUBS=300 SE_MONTHS=24        (the issue's size; long, run it alone)
"""
from __future__ import annotations

import os
from pathlib import Path

from pipelines.sweden.bench import run as run_federation

CLUBS = int(os.environ.get("SE_CLUBS", "8"))
MONTHS = int(os.environ.get("SE_MONTHS", "1"))


def run(workdir: Path) -> dict:
    scale = f"{CLUBS} clubs × {MONTHS} months" + ("" if (CLUBS, MONTHS) == (300, 24) else " (the target is 300 × 24)")
    return {"scale": scale, **run_federation(workdir, CLUBS, MONTHS)}
