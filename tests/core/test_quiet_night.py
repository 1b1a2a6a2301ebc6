"""A night that brings nothing new posts nothing and publishes nothing, in every system at once.

The whole sample office (every organisation of every system, their malformed files included) after
its first run, copied as a backup is restored (new inodes: every page is read again), then run
again on the same inbox. Nothing may be posted, and no publication written: each publisher compares
what it would write with what stands (a team series' page was written again every night until
2026-12-07, and the site then linked it again)."""
from __future__ import annotations

import shutil

from pipelines.core import run as nightly
from pipelines.core.settings import DATA_DIR

from office import AS_OF  # tests/office.py (on sys.path)


def test_a_night_with_nothing_new_posts_and_publishes_nothing(sample_run, tmp_path):
    shutil.copytree(sample_run.inbox, tmp_path / "inbox")
    shutil.copytree(sample_run.state, tmp_path / "var")
    night = nightly.run(tmp_path / "inbox", tmp_path / "var", AS_OF, DATA_DIR)
    assert night.report["records"]["posted"] == 0
    assert night.report["award_lines"] == {"posted": 0, "reversals": 0}
    assert night.report["publications"] == []
