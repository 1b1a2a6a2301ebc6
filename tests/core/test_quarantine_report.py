"""The per-organisation quarantine report (issue 12): the open problems a secretary must act on,
gone once the corrected file is posted."""
from __future__ import annotations

import csv
import io

from office import Office

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
    assert "2 open problem(s) in 2 file(s)" in html
    assert "<b>40000</b>" not in html and "&lt;b&gt;40000&lt;/b&gt;" in html
    assert (folder / "quarantine.xlsx").exists()

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
