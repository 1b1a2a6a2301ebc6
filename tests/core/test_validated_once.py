"""A system's lake table is checked against its model once a night (issue 13: validate where a
stage boundary is guarded, not twice on the same frame): `process_isolated` validates each
organisation's table, and the run validates again only the frames of several organisations put
together, whose grain may collide."""
from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
from pipelines.core import run as nightly
from pipelines.core import validation
from pipelines.core.settings import DATA_DIR
from schemas.mahjong import MahjongResult
from office import AS_OF

GAME = "2026-11-0{day}\n・1位{first} 40000\n・2位B 30000\n・3位C 20000\n・4位D 10000\n"


def _two_leagues(root: Path) -> Path:
    """A data folder with the sample league and a second league of the same system."""
    data = root / "data"
    shutil.copytree(DATA_DIR, data, ignore=shutil.ignore_patterns("samples"))
    organisations = data / "organisations"
    for settings in organisations.glob("*.toml"):
        if settings.stem != "sofu-mahjong":
            settings.unlink()
    text = (organisations / "sofu-mahjong.toml").read_text(encoding="utf-8")
    (organisations / "other-league.toml").write_text(
        text.replace('organisation = "sofu-mahjong"', 'organisation = "other-league"'), encoding="utf-8")
    return data


def _counting(monkeypatch) -> list[int]:
    """The row counts of every MahjongResult validation, in order (every validation at a stage
    boundary asks `validation._schema_for` for the schema to validate with)."""
    calls: list[int] = []
    original = validation._schema_for

    def schema_for(model, frame):
        if model is MahjongResult:
            calls.append(len(frame))
        return original(model, frame)

    monkeypatch.setattr(validation, "_schema_for", schema_for)
    return calls


def test_one_organisations_table_is_validated_once(tmp_path, monkeypatch):
    data = _two_leagues(tmp_path)
    (data / "organisations" / "other-league.toml").unlink()
    inbox = tmp_path / "inbox" / "sofu-mahjong"
    inbox.mkdir(parents=True)
    (inbox / "a.txt").write_text(GAME.format(day=3, first="A") + GAME.format(day=4, first="E"), encoding="utf-8")
    calls = _counting(monkeypatch)
    result = nightly.run(tmp_path / "inbox", tmp_path / "var", AS_OF, data)
    assert result.exit_code == nightly.EXIT_OK
    assert calls == [8]  # two games of four players, in process_isolated only


def test_two_organisations_tables_are_validated_together_again(tmp_path, monkeypatch):
    data = _two_leagues(tmp_path)
    for league, first in [("sofu-mahjong", "A"), ("other-league", "E")]:
        folder = tmp_path / "inbox" / league
        folder.mkdir(parents=True)
        (folder / "a.txt").write_text(GAME.format(day=3, first=first), encoding="utf-8")
    calls = _counting(monkeypatch)
    result = nightly.run(tmp_path / "inbox", tmp_path / "var", AS_OF, data)
    assert result.exit_code == nightly.EXIT_OK
    assert calls == [4, 4, 8]  # each league's batch, then the night's table of both
    con = duckdb.connect(str(tmp_path / "var" / "warehouse.duckdb"), read_only=True)
    rows = con.sql("select organisation, count(*) from mahjong_results group by all order by 1").fetchall()
    con.close()
    assert rows == [("other-league", 4), ("sofu-mahjong", 4)]
