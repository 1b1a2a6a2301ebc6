"""A history's events are checked, scored and posted in slices (pipelines/sweden/system.py,
EVENTS_PER_SLICE), so that its intermediate frames are held for a few events at a time. Cut into
slices of one event each, the sample federation must post what one slice of all its events posts:
the same ledger lines, events, quarantine, results, holdings, classes and ranking, and the same pages
(the sanction limits, which count a club's silver events in date order, carry across slices)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd

from office import Office
from se_helpers import assert_differ_only_by_run, post_event, register
from pipelines.core.settings import DATA_DIR
import pipelines.sweden.system as system

ORG = "svensk-bridge"
# the columns that name the run which wrote a row (its id, time, or an id made from it)
RUN_COLUMNS = {"run_id", "award_id", "reverses_award_id", "posted_on", "record", "first_run_id", "last_run_id"}
VIEWS = ["awards", "events", "quarantine", "sources", "se_results", "se_holdings", "se_club_fees", "se_levels",
         "se_promotions", "se_ranking_results"]


def _rows(query, view: str) -> pd.DataFrame:
    frame = query(f"select * from {view} where organisation = ?", [ORG])
    frame = frame.drop(columns=[c for c in frame.columns if c in RUN_COLUMNS]).astype(str)
    return frame.sort_values(list(frame.columns)).reset_index(drop=True)


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_slices_of_one_event_post_what_one_slice_posts(sample_run, tmp_path, monkeypatch):
    # the sample run: the samples' few dozen events are one slice
    (tmp_path / "sliced").mkdir()
    sliced = Office(tmp_path / "sliced")
    shutil.copytree(DATA_DIR / "samples" / "inbox" / ORG, sliced.inbox / ORG)
    slices = []
    score_slice = system._Batch._score_slice

    def spy(batch, parsed):
        slices.append(len(parsed))
        return score_slice(batch, parsed)

    monkeypatch.setattr(system, "EVENTS_PER_SLICE", 1)
    monkeypatch.setattr(system._Batch, "_score_slice", spy)
    sliced.run()

    assert len(slices) >= 15 and set(slices) == {1}
    for view in VIEWS:
        got, want = _rows(sliced.query, view), _rows(sample_run.query, view)
        assert len(want), view
        pd.testing.assert_frame_equal(got, want, obj=view)
    got, want = _files(sliced.state / "publications" / ORG), _files(sample_run.state / "publications" / ORG)
    assert_differ_only_by_run(got, want)


def test_the_sanction_limits_count_across_slices(office, monkeypatch):
    # test_se_validation's season of BK Skara (60 members: five silver events a season, at most
    # three on weekdays), its seven events scored in slices of two: the count carries over
    monkeypatch.setattr(system, "EVENTS_PER_SLICE", 2)
    register(office)
    days = ["2024-09-02", "2024-09-03", "2024-09-04", "2024-09-05", "2024-09-07", "2024-09-08", "2024-09-14"]
    for i, d in enumerate(days):
        post_event(office, "bk-skara", f"s{i}", 16, nivå="silver", brickor="42", datum=d)
    office.run()
    reasons = list(office.query("select reason from quarantine")["reason"])
    assert any("at most 3 silver events on weekdays" in r and "number 4" in r for r in reasons)
    assert any("may hold 5 silver events in season 2024/25 and this is number 6" in r for r in reasons)
    assert office.query("select count(*) as n from events")["n"][0] == 5
