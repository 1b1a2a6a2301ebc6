"""Rule tables and settings are validated once per content (pipelines.core.settings.cached_by_content): a copy
of the same tables in another data folder is not validated again, an edited table is."""
from __future__ import annotations

import os
import shutil

from pipelines.core.settings import DATA_DIR, cached_by_content
from pipelines.jcbl.rules import load_rules


def test_the_same_content_is_loaded_once_and_an_edit_is_loaded_again(tmp_path):
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "table.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    loads = []

    def load(where):
        loads.append(where)
        return (where / "table.csv").read_text(encoding="utf-8")

    first = cached_by_content("test.table", (folder,), lambda: load(folder))
    again = cached_by_content("test.table", (copy,), lambda: load(copy))
    assert first == again == "a,b\n1,2\n" and loads == [folder]
    (copy / "table.csv").write_text("a,b\n1,3\n", encoding="utf-8")
    os.utime(copy / "table.csv", ns=(1, 1))  # even with an older time stamp, the new content counts
    assert cached_by_content("test.table", (copy,), lambda: load(copy)) == "a,b\n1,3\n" and loads == [folder, copy]
    # another loader, or the same loader with other inputs, is another entry
    assert cached_by_content("test.other", (folder,), lambda: "other") == "other"
    assert cached_by_content("test.table", (folder,), lambda: "with x", "x") == "with x"


def test_jcbl_rules_copied_to_another_folder_are_the_same_validated_tables(tmp_path):
    shutil.copytree(DATA_DIR / "rules" / "jcbl", tmp_path / "jcbl")
    assert load_rules(tmp_path / "jcbl") is load_rules(DATA_DIR / "rules" / "jcbl")
    versions = (tmp_path / "jcbl" / "versions.csv").read_text(encoding="utf-8")
    (tmp_path / "jcbl" / "versions.csv").write_text(versions + "\n", encoding="utf-8")  # an edit (a blank line)
    assert load_rules(tmp_path / "jcbl") is not load_rules(DATA_DIR / "rules" / "jcbl")


def test_the_same_settings_in_two_data_folders_each_name_their_own_files(tmp_path):
    """Settings are read and validated once per content, but a message about a settings file
    names the file of the data folder the run uses (an office's restored copy, a second office)."""
    from pipelines.core.settings import DATA_DIR, load_organisations

    first, second = tmp_path / "a", tmp_path / "b"
    for folder in (first, second):
        shutil.copytree(DATA_DIR / "organisations", folder / "organisations")
    a, b = load_organisations(first), load_organisations(second)
    assert list(a.index) == list(b.index) and len(a) >= 5
    assert all(f == (first / "organisations" / f"{o}.toml").as_posix() for o, f in a["settings_file"].items())
    assert all(f == (second / "organisations" / f"{o}.toml").as_posix() for o, f in b["settings_file"].items())


def test_duckdb_threads_come_from_the_environment_and_a_wrong_value_stops_the_run(tmp_path, monkeypatch):
    from datetime import date

    import pytest

    from pipelines.core import run as nightly
    from pipelines.core.settings import SettingsError
    from pipelines.core.sql import open_database

    monkeypatch.setenv("POINTLEDGER_DUCKDB_THREADS", "3")
    con = open_database()
    try:
        assert con.execute("select current_setting('threads')").fetchone() == (3,)
    finally:
        con.close()
    monkeypatch.setenv("POINTLEDGER_DUCKDB_THREADS", "two")
    with pytest.raises(SettingsError, match="POINTLEDGER_DUCKDB_THREADS: expected a whole number of threads of at "
                                            "least 1, found 'two'"):
        nightly.run(tmp_path / "inbox", tmp_path / "var", date(2026, 12, 2))
    assert not (tmp_path / "var").exists()  # nothing was read or written


# -- values kept between processes (a nightly run keeps them in its state's cache) ---------------


def _new_process(monkeypatch):
    """What a new process starts with: no value in memory."""
    from pipelines.core import settings

    monkeypatch.setattr(settings, "_BY_CONTENT", {})


def test_a_kept_value_is_read_by_the_next_process_instead_of_loaded_again(tmp_path, monkeypatch):
    from pipelines.core import settings
    from pipelines.core.settings import values_kept_in

    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "table.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    kept = tmp_path / "var" / "cache" / "settings"
    loads = []

    def load():
        loads.append(1)
        return {"rows": [(1, 2)]}

    _new_process(monkeypatch)
    with values_kept_in(kept):
        assert cached_by_content("test.kept", (folder,), load) == {"rows": [(1, 2)]}
    assert len(loads) == 1 and len(list(kept.glob("test.kept-*.pickle"))) == 1

    _new_process(monkeypatch)
    with values_kept_in(kept):
        assert cached_by_content("test.kept", (folder,), load) == {"rows": [(1, 2)]}
    assert len(loads) == 1  # read from the file, not loaded

    # an edited table is another key: loaded again and kept beside
    (folder / "table.csv").write_text("a,b\n1,3\n", encoding="utf-8")
    _new_process(monkeypatch)
    with values_kept_in(kept):
        cached_by_content("test.kept", (folder,), load)
    assert len(loads) == 2 and len(list(kept.glob("test.kept-*.pickle"))) == 2

    # other code (a new release, an edited schema) never reads a value the old code made
    monkeypatch.setattr(settings, "_CODE", ["another release"])
    _new_process(monkeypatch)
    with values_kept_in(kept):
        cached_by_content("test.kept", (folder,), load)
    assert len(loads) == 3


def test_a_damaged_kept_file_is_made_again_and_nothing_is_kept_outside_a_run(tmp_path, monkeypatch):
    from pipelines.core.settings import values_kept_in

    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "table.csv").write_text("a\n1\n", encoding="utf-8")
    kept = tmp_path / "kept"
    _new_process(monkeypatch)
    with values_kept_in(kept):
        cached_by_content("test.damaged", (folder,), lambda: [1, 2, 3])
    (file,) = kept.glob("test.damaged-*.pickle")
    file.write_bytes(file.read_bytes()[:5])  # cut short, as by a full disk
    _new_process(monkeypatch)
    with values_kept_in(kept):
        assert cached_by_content("test.damaged", (folder,), lambda: [1, 2, 3]) == [1, 2, 3]
    assert file.read_bytes() != b"" and len(file.read_bytes()) > 5  # made again, whole

    # a value that cannot be pickled is simply not kept
    _new_process(monkeypatch)
    with values_kept_in(kept):
        value = cached_by_content("test.unpicklable", (folder,), lambda: (lambda: 1))
    assert value() == 1 and not list(kept.glob("test.unpicklable-*"))

    # outside a run (a test, `check`) nothing is written anywhere
    _new_process(monkeypatch)
    cached_by_content("test.outside", (folder,), lambda: [4])
    assert not list(kept.glob("test.outside-*")) and not list(tmp_path.glob("**/test.outside-*"))


def test_the_next_night_does_not_validate_the_rule_tables_again(tmp_path, monkeypatch):
    """A night in a new process reads the validated tables its state kept; its outputs are those
    of a night that validated them (the Swedish sample's standings list, both ways)."""
    from office import Office

    import pipelines.sweden.rules as sweden_rules

    samples = DATA_DIR / "samples" / "inbox" / "svensk-bridge"
    (tmp_path / "kept").mkdir()
    office = Office(tmp_path / "kept")
    for name in ("medlemsregister.csv", "bk-lavec/2024-09-05-grupp-b.event.txt",
                 "bk-lavec/2024-09-05-grupp-b.standings.csv"):
        office.post(f"svensk-bridge/{name}", (samples / name).read_bytes())
    _new_process(monkeypatch)
    first = office.run()
    assert list((office.state / "cache" / "settings").glob("sweden.rules-*.pickle"))

    loads = []
    original = sweden_rules._load
    monkeypatch.setattr(sweden_rules, "_load", lambda d: loads.append(d) or original(d))
    _new_process(monkeypatch)
    office.post("svensk-bridge/bk-lavec/2024-09-05-grupp-b.standings.csv",
                (samples / "bk-lavec/2024-09-05-grupp-b.standings.csv").read_bytes() + b"\n")  # sent again
    second = office.run()
    assert loads == [] and first.exit_code == second.exit_code == 0
    holdings = "select member, bp, sp, gp from se_holdings order by member"
    # the same night in a state without kept values (validated afresh)
    (tmp_path / "fresh").mkdir()
    fresh = Office(tmp_path / "fresh")
    for name in ("medlemsregister.csv", "bk-lavec/2024-09-05-grupp-b.event.txt",
                 "bk-lavec/2024-09-05-grupp-b.standings.csv"):
        fresh.post(f"svensk-bridge/{name}", (samples / name).read_bytes())
    monkeypatch.setattr(sweden_rules, "_load", original)
    _new_process(monkeypatch)
    fresh.run()
    assert office.query(holdings).astype(str).values.tolist() == fresh.query(holdings).astype(str).values.tolist()
    assert len(office.query(holdings)) > 0
