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
