"""The per-organisation quarantine report (issue 12): the open problems a secretary must act on,
gone once the corrected file is posted."""
from __future__ import annotations

import csv
import io
from datetime import date
from pathlib import Path

import pytest

from office import Office

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples" / "inbox"

GAME = "・1位A {a}\n・2位B 30000\n・3位C 20000\n・4位D 10000\n"
OTHER_GAME = "・1位E 40000\n・2位F 30000\n・3位G 20000\n・4位H 10000\n"


def _report(office, organisation="sofu-mahjong"):
    folder = office.state / "publications" / organisation / "quarantine"
    rows = list(csv.DictReader(io.StringIO((folder / "quarantine.csv").read_bytes().decode("utf-8-sig"))))
    return folder, rows


def test_open_problems_are_listed_and_a_correction_clears_them(tmp_path):
    office = Office(tmp_path)
    # 39000 + 30000 + 20000 + 10000 = 99000: the four scores must add up to 100000
    office.post("sofu-mahjong/2026-10-10.txt", "2026-10-10\n" + GAME.format(a=39000) + "\n" + OTHER_GAME)
    office.post("sofu-mahjong/2026-10-11.txt", "2026-10-11\n" + GAME.format(a="<b>40000</b>"))
    office.run()
    folder, rows = _report(office)
    assert [(r["source_file"], r["location"]) for r in rows] == [
        ("sofu-mahjong/2026-10-10.txt", "lines 2–5"), ("sofu-mahjong/2026-10-11.txt", "lines 2–5")]
    assert "99000" in rows[0]["reason"] and "100000" in rows[0]["reason"]
    html = (folder / "index.html").read_text(encoding="utf-8")
    # the league's language is Japanese (data/organisations/sofu-mahjong.toml): so is its report
    assert '<html lang="ja">' in html and "未解決の問題 2 件（2 ファイル）" in html and "同じ名前で送り直してください" in html
    assert "<b>40000</b>" not in html and "&lt;b&gt;40000&lt;/b&gt;" in html
    assert (folder / "quarantine.xlsx").exists()
    # the way back to the organisation's pages (the report had no link out)
    assert '<a href="../index.html">↑ sofu-mahjong</a>' in html and (folder.parent / "index.html").is_file()

    office.post("sofu-mahjong/2026-10-10.txt", "2026-10-10\n" + GAME.format(a=40000) + "\n" + OTHER_GAME)
    office.run()
    _, rows = _report(office)
    assert [r["source_file"] for r in rows] == ["sofu-mahjong/2026-10-11.txt"]


def test_a_swedish_federations_report_is_separated_by_semicolons(tmp_path):
    # as its other tables: the Excel of a Swedish Windows splits a CSV on ';', not ','
    office = Office(tmp_path)
    office.post("svensk-bridge/bk-lavec/notes.csv", "hej, du\n")
    office.run()
    folder = office.state / "publications" / "svensk-bridge" / "quarantine"
    text = (folder / "quarantine.csv").read_bytes().decode("utf-8-sig")
    assert text.splitlines()[0] == "source_file;location;reason;record"
    [row] = list(csv.DictReader(io.StringIO(text), delimiter=";"))
    assert row["source_file"] == "svensk-bridge/bk-lavec/notes.csv" and "not a Swedish masterpoint file name" in row["reason"]


def _open_problems(office) -> set[tuple[str, str, str]]:
    rows = office.query("select source_file, location, reason from quarantine where is_open")
    return set(rows.itertuples(index=False, name=None))


def _held_rows(office, source_file: str):
    return office.query("select is_open, resolved_by_run from quarantine where source_file = ? and location = 'whole file' "
                        "and starts_with(reason, 'held back until the event ')", [source_file])


JCBL_EVENT = "date: 2024-06-19\nkind: {kind}\n{key}: 3\n"
# line 3 names one player: its own problem, whatever the event file says
JCBL_STANDINGS = "rank,entrant,players\n1,NS1,JT0101 JT0102\n2,NS2,JT0103\n4,NS3,JT0105 JT0106\n"
SE_EVENT = "datum: 2024-09-17\nnivå: {level}\nform: par\nbrickor: {boards}\n"
# line 5's place is not a number: the list's own problem
SE_STANDINGS = "plac;par;medlemmar\n1;1;100000 100001\n2;2;100002 100003\n3;3;100004 100005\ntre;4;100006 100007\n"


@pytest.mark.parametrize("system", ["jcbl", "sweden"])
def test_a_file_held_for_its_event_file_is_resolved_when_that_file_is_corrected(tmp_path, system):
    """Both files of an event wrong: the result list is held back "until the event file is
    corrected" and has a problem of its own. A second event file still wrong keeps the hold open; a
    right one resolves it, and the list's own problem stays open: the open problems are then those
    of a fresh run on the same inbox (the hold stayed open for ever before, in the view and the
    report)."""
    if system == "jcbl":
        folder, members = "jcbl-tokyo", "jcbl-tokyo/members.csv"
        event, standings = f"{folder}/2024-06-19-club.event.txt", f"{folder}/2024-06-19-club.standings.csv"
        versions = [JCBL_EVENT.format(kind="weekly_pairs", key="clas"), JCBL_EVENT.format(kind="weekly_pair", key="class"),
                    JCBL_EVENT.format(kind="weekly_pairs", key="class")]
        list_text = JCBL_STANDINGS
    else:
        folder, members = "svensk-bridge/bk-lavec", "svensk-bridge/medlemsregister.csv"
        event, standings = f"{folder}/2024-09-17-klubb.event.txt", f"{folder}/2024-09-17-klubb.standings.csv"
        versions = [SE_EVENT.format(level="platina", boards="tjugo"), SE_EVENT.format(level="brons", boards="tjugo"),
                    SE_EVENT.format(level="brons", boards="24")]
        list_text = SE_STANDINGS
    register = (SAMPLES / members).read_bytes()
    (tmp_path / "history").mkdir(), (tmp_path / "fresh").mkdir()
    office = Office(tmp_path / "history")
    office.post(members, register)
    office.post(standings, list_text)
    for night, text in enumerate(versions, start=1):
        office.post(event, text)
        office.run(date(2026, 12, night))
        held = _held_rows(office, standings)
        assert len(held) == 1
        # nights 1 and 2: the event file has a problem of its own, so the list is still held for it
        assert bool(held["is_open"].iloc[0]) is (night < 3)
    assert held["resolved_by_run"].notna().all()
    if system == "sweden":
        # a Swedish list is read by its event's form, so while the event file is wrong its own
        # problems are not known; once it is right they are named, on the event file that waits
        # for the list (a fresh run names them on the list itself)
        assert [(f, loc) for f, loc, reason in _open_problems(office) if "'tre'" in reason] == [(event, "whole file")]
        return
    # the list's own problem still stands, and nothing else than in a fresh run
    fresh = Office(tmp_path / "fresh")
    fresh.post(members, register)
    fresh.post(standings, list_text)
    fresh.post(event, versions[-1])
    fresh.run(date(2026, 12, 3))
    assert _open_problems(office) == _open_problems(fresh)
    assert any(f == standings and loc == "line 3" for f, loc, _ in _open_problems(office))
    _, rows = _report(office, "jcbl-tokyo")
    assert not any(r["reason"].startswith("held back until the event ") for r in rows)
    assert any(r["source_file"] == standings and r["location"] == "line 3" for r in rows)


def test_the_report_speaks_the_organisation_s_language_and_follows_a_change_of_it(tmp_path):
    """The report's fixed texts were English for every organisation: a Swedish club secretary read
    "open problems in sent files", "Correct the file and send it again"."""
    from pipelines.core import run as nightly

    office = Office(tmp_path)
    office.post("svensk-bridge/bk-lavec/notes.csv", "hej, du\n")
    office.run()
    page = office.state / "publications" / "svensk-bridge" / "quarantine" / "index.html"
    html = page.read_text(encoding="utf-8")
    assert '<html lang="sv">' in html and "<h1>svensk-bridge: öppna problem i inskickade filer</h1>" in html
    assert "1 öppna problem i 1 fil(er)." in html and "Rätta filen och skicka den igen med samma namn" in html
    assert "<th>fil</th><th>var</th><th>problem</th><th>vad som hittades</th>" in html
    assert "open problems" not in html and "Correct the file" not in html

    # the office makes the federation's site English: the next night rewrites the report (the same
    # open problem, so the same CSV), nothing else
    data = office.data_dir()
    settings = data / "organisations" / "svensk-bridge.toml"
    settings.write_text(settings.read_text(encoding="utf-8").replace('language = "sv"', 'language = "en"'), encoding="utf-8")
    nightly.run(office.inbox, office.state, date(2026, 12, 3), data)
    html = page.read_text(encoding="utf-8")
    assert '<html lang="en">' in html and "1 open problem(s) in 1 file(s)." in html and "öppna problem" not in html
