"""Kill anywhere (issue 14): runs SIGKILLed at random moments, each night finished, the result
compared with a clean single run. The long version is `make soak` (at least 30 kills)."""
from __future__ import annotations

from pipelines.fuzz.soak import differences, nights_of, run_soak


def test_runs_killed_at_random_moments_end_like_a_clean_run(tmp_path):
    result = run_soak(kills=3, seed=7, copies=1, work=tmp_path / "soak", units_per_org=2, log=lambda line: None)
    assert result["kills"] == 3
    assert result["runs_failed"] == 0, result["failures"]
    # two units of each of the five sample organisations (an event file with its standings or
    # travellers is one unit: 2 files, as in JCBL and the first two Swedish events in path order)
    assert result["files"] == 2 + 2 + 2 + 4 + 4
    # every relation of the warehouse was compared, and every publication
    assert result["relations_compared"] >= 20 and result["rows_compared"] > 0
    assert result["publications_compared"] > 0
    assert result["differences"] == 0, result["differences_detail"]


def test_a_difference_is_seen():
    # the comparison itself: one extra row, one changed publication
    from collections import Counter

    clean = {"relations": {"balances": Counter({("A", "2.00"): 1})}, "publications": {"x/index.html": b"a"}}
    soaked = {"relations": {"balances": Counter({("A", "2.00"): 2})}, "publications": {"x/index.html": b"b"}}
    found = differences(soaked, clean)
    assert len(found) == 2
    assert "1 row(s) only after the kills" in found[0] and "publication x/index.html: differs" in found[1]
    assert differences(clean, clean) == []


def test_files_are_delivered_in_path_order_over_the_nights():
    units = [["m/1.txt"], ["m/2.txt"], ["m/3.txt"], ["j/a.event.txt", "j/a.standings.csv"]]
    nights = nights_of(units, 2)
    assert nights == [["m/1.txt", "m/2.txt", "j/a.event.txt", "j/a.standings.csv"], ["m/3.txt"]]
