"""The mahjong benchmark's nights (issue 13): each night run NIGHTS times, each time on the state
as it was before the night, the two histories in turn, and the median run reported. The timed run
is replaced here by one that reads a mark the state holds, changes the state as a night does, and
takes the seconds given by hand."""
from __future__ import annotations

from datetime import date
from pathlib import Path

from pipelines.bench import mahjong


def test_each_night_starts_from_the_state_before_it_and_the_median_run_is_reported(tmp_path, monkeypatch):
    states = {}
    for name in ("two_years", "one_month"):
        state = tmp_path / name / "var"
        state.mkdir(parents=True)
        (state / "mark").write_text(f"{name} before the night", encoding="utf-8")
        states[name] = (tmp_path / name / "inbox", state)
    seconds = {"two_years": [3.1, 2.5, 2.9], "one_month": [2.0, 2.6, 2.2]}
    seen = []

    def timed_run(inbox: Path, state: Path, data: Path, as_of: date) -> dict:
        name = state.parent.name
        seen.append((name, (state / "mark").read_text(encoding="utf-8")))
        (state / "mark").write_text("after a night", encoding="utf-8")  # a night changes its state
        (state / "tonight.parquet").write_text("x", encoding="utf-8")
        wall = seconds[name][sum(1 for n, _ in seen if n == name) - 1]
        return {"wall_seconds": wall, "peak_memory_mib": 100 * wall, "stages": {"publish": wall / 2}}

    monkeypatch.setattr(mahjong, "_timed_run", timed_run)
    monkeypatch.setattr(mahjong, "NIGHTS", 3)
    nights = mahjong._alternated_nights(states, tmp_path / "data", date(2026, 12, 1))

    # in turn, and every run on the state as it was before the night
    assert seen == [("two_years", "two_years before the night"), ("one_month", "one_month before the night")] * 3
    # the median of 3.1, 2.5, 2.9 is 2.9 (its own memory and stages with it); of 2.0, 2.6, 2.2 it is 2.2
    assert nights["two_years"]["wall_seconds"] == 2.9 and nights["two_years"]["stages"] == {"publish": 1.45}
    assert nights["two_years"]["peak_memory_mib"] == 290.0
    assert nights["one_month"]["wall_seconds"] == 2.2
    assert nights["two_years"]["runs_seconds"] == [3.1, 2.5, 2.9]
    assert nights["one_month"]["runs_seconds"] == [2.0, 2.6, 2.2]
    # the copies made for the nights are gone; each state is left as its last night left it
    assert sorted(p.name for p in (tmp_path / "two_years").iterdir()) == ["var"]
    assert (tmp_path / "one_month" / "var" / "mark").read_text(encoding="utf-8") == "after a night"
