"""What a run holds while its publications are made (issue 8: a Swedish history of 90,000 events
must stay under 2 GiB with the publications' workers beside it). The lines and system tables are
in the lake by then; a frame still referenced from the run (a loop variable left on the last
table, a list of an organisation's sources) is held through every publication."""
from __future__ import annotations

import gc
import shutil

import pandas as pd
import pyarrow as pa

from pipelines.core import memory
from pipelines.core import run as nightly
from pipelines.core.settings import DATA_DIR
from pipelines.core.system import SourceFile
from office import AS_OF


def test_no_line_table_or_source_of_the_night_is_held_through_the_publications(tmp_path, monkeypatch):
    shutil.copytree(DATA_DIR / "samples" / "inbox", tmp_path / "inbox")
    held: dict[str, list] = {}
    refresh = nightly.refresh_outputs

    def looking(*args, **kwargs):
        gc.collect()
        alive = gc.get_objects()
        frames = [o for o in alive if isinstance(o, pd.DataFrame) and len(o)]
        held["se_results"] = [f for f in frames if {"rp_basis", "place_label"} <= set(f.columns)]
        held["lines"] = [f for f in frames if {"basis", "points"} <= set(f.columns)]
        held["sources"] = [o for o in alive if isinstance(o, SourceFile)]
        return refresh(*args, **kwargs)

    monkeypatch.setattr(nightly, "refresh_outputs", looking)
    result = nightly.run(tmp_path / "inbox", tmp_path / "var", AS_OF)
    assert result.report["award_lines"]["posted"] > 0
    assert held == {"se_results": [], "lines": [], "sources": []}


def test_the_run_gives_arrow_the_allocator_numpy_uses_unless_told_otherwise(monkeypatch):
    before = pa.default_memory_pool()
    try:
        monkeypatch.setenv("ARROW_DEFAULT_MEMORY_POOL", "mimalloc")
        pa.set_memory_pool(pa.mimalloc_memory_pool())
        memory.use_system_allocator()
        assert pa.default_memory_pool().backend_name == "mimalloc"  # the office's explicit choice
        monkeypatch.delenv("ARROW_DEFAULT_MEMORY_POOL")
        memory.use_system_allocator()
        assert pa.default_memory_pool().backend_name == "system"
        memory.give_back()  # and handing memory back is safe at any moment
    finally:
        pa.set_memory_pool(before)


def test_the_heap_is_handed_back_only_after_a_history_worth_of_lines(office, monkeypatch):
    """A collection and a trim cost a night 0.04-0.09 s and free nothing there; a history's lines
    free a gigabyte: handed back before the audit and before the publications' workers, from
    GIVE_BACK_FROM_LINES lines."""
    calls = []
    monkeypatch.setattr(memory, "give_back", lambda: calls.append("give_back"))
    office.post("sofu-mahjong/2026-11-03.txt", "2026-11-03\n・1位A 40000\n・2位B 30000\n・3位C 20000\n・4位D 10000\n")
    assert office.run().report["award_lines"]["posted"] == 4
    assert calls == []
    monkeypatch.setattr(nightly, "GIVE_BACK_FROM_LINES", 4)
    office.post("sofu-mahjong/2026-11-04.txt", "2026-11-04\n・1位E 45000\n・2位F 30000\n・3位G 15000\n・4位H 10000\n")
    assert office.run().report["award_lines"]["posted"] == 4
    assert calls == ["give_back", "give_back"]
