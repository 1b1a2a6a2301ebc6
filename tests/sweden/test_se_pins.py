"""The monthly pins list: per club, the first-time promotions of the month (CSV and printable HTML)."""
from __future__ import annotations

from datetime import date

import pandas as pd
import pytest

from pipelines.sweden.pins import pin_rows, render_month, reversal_rows
from se_helpers import ORG, post_event, register


def _promotions():
    return pd.DataFrame({
        "member": ["1", "2", "3", "1"], "name": ["<script>alert(1)</script>", "=cmd|' /C calc'!A0", "Bo Ek", "<script>alert(1)</script>"],
        "club": ["10002", "10001", "10001", "10002"], "club_name": ["Sundsvalls BK", "BK <Lavec>", "BK <Lavec>", "Sundsvalls BK"],
        "level": ["klöver", "ruter", "hjärter", "ruter"], "title": ["Klöver-/Klubbmästare", "Ruter-/Kretsmästare", "Hjärter-/Regionmästare",
                                                                    "Ruter-/Kretsmästare"],
        "reached_on": [date(2026, 11, 3), date(2026, 11, 2), date(2026, 12, 1), date(2026, 11, 20)],
        "run_id": ["r1", "r2", "r3", "r4"], "first_time": [True, True, True, False], "rule_version": "se-2009",
    })


def test_pins_by_month_and_club_escaped():
    pins = pin_rows(_promotions())
    # the regained Ruter of member 1 (first_time false) sends no second pin; Hjärter is December's
    assert list(zip(pins["month"], pins["club"], pins["member"])) == [("2026-11", "10001", "2"), ("2026-11", "10002", "1"),
                                                                      ("2026-12", "10001", "3")]
    rev = reversal_rows(pd.DataFrame({"member": ["1"], "name": ["<script>alert(1)</script>"], "club": ["10002"],
                                      "club_name": ["Sundsvalls BK"], "level_lost": ["ruter"], "level_now": ["klöver"],
                                      "changed_on": [date(2026, 11, 10)], "run_id": ["r9"], "rule_version": ["se-2009"]}))
    files = render_month("2026-11", pins[pins["month"] == "2026-11"], rev, {"ruter": "Ruter-/Kretsmästare", "klöver": "Klöver-/Klubbmästare"},
                         "Svensk Bridge", "2026-11-30")
    html = files["index.html"]
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "BK &lt;Lavec&gt;" in html
    assert html.index("BK &lt;Lavec&gt; (10001)") < html.index("Sundsvalls BK (10002)")  # one section per club, by number
    assert "break-before: page" in html and "Återgångar" in html and "Ruter-/Kretsmästare</td><td>Klöver-/Klubbmästare" in html
    lines = files["nålar.csv"].splitlines()
    assert lines[0] == "månad;klubb;klubbnamn;medlemsnummer;namn;nivå;mästarvärdighet;uppnådd;körning"
    assert lines[1] == "2026-11;10001;BK <Lavec>;2;'=cmd|' /C calc'!A0;ruter;Ruter-/Kretsmästare;2026-11-02;r2"
    assert len(lines) == 3


def test_nightly_run_publishes_the_months_pins(office):
    register(office)  # member 200000 plays for club 10001 (BK Lavec), 200001 for 10002 (Sundsvalls BK)
    # A2 row 100: the winners get 200 bp = 2 mp each: Klöver
    post_event(office, "bk-lavec", "2026-11-20-stor", 100, nivå="brons", brickor="24", datum="2026-11-20")
    office.run(date(2026, 11, 21))
    folder = office.state / "publications" / ORG / "nålar" / "2026-11"
    lines = (folder / "nålar.csv").read_text(encoding="utf-8").splitlines()
    assert [line.split(";")[:6] for line in lines[1:]] == [
        ["2026-11", "10001", "BK Lavec", "200000", "Spelare 000 Åström", "klöver"],
        ["2026-11", "10002", "Sundsvalls BK", "200001", "Spelare 001 Åström", "klöver"]]
    assert "Spelare 000 Åström" in (folder / "index.html").read_text(encoding="utf-8")


def test_a_months_list_keeps_the_date_it_was_made_until_its_rows_change(office):
    """A promotion is dated by the night that finds it. A night that adds a November promotion
    makes November's list again, dated that night; a night that adds nothing to November leaves
    its list as it was made (its page and its workbook: the same files)."""
    register(office)
    # A2 row 100: the winners (200000, 200001) get 200 bp = 2 mp each: Klöver, found on 2026-11-21
    post_event(office, "bk-lavec", "2026-11-20-stor", 100, nivå="brons", brickor="24", datum="2026-11-20")
    office.run(date(2026, 11, 21))
    folder = office.state / "publications" / ORG / "nålar" / "2026-11"
    page = folder / "index.html"
    assert "listan gjord 2026-11-21" in page.read_text(encoding="utf-8")

    # two more members (200300, 200301: 1st of another 100 pairs) reach Klöver on 2026-11-25
    post_event(office, "bk-lavec", "2026-11-24-sen", 100, nivå="brons", brickor="24", datum="2026-11-24", start=300)
    office.run(date(2026, 11, 25))
    made = page.read_bytes()
    assert "listan gjord 2026-11-25" in made.decode("utf-8") and "listan gjord 2026-11-21" not in made.decode("utf-8")
    members = [line.split(";")[3] for line in (folder / "nålar.csv").read_text(encoding="utf-8-sig").splitlines()[1:]]
    assert {"200000", "200001", "200300", "200301"} <= set(members)
    stamps = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in folder.iterdir()}
    assert {"index.html", "nålar.csv", "nålar.xlsx"} <= set(stamps)

    # December: a small event; nothing of November changes
    post_event(office, "bk-lavec", "2026-12-04-liten", 4, nivå="brons", brickor="24", datum="2026-12-04", start=500)
    office.run(date(2026, 12, 5))
    assert page.read_bytes() == made
    assert {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in folder.iterdir()} == stamps


def test_a_month_whose_rows_stand_is_not_made_again_and_an_older_page_keeps_its_date(office, monkeypatch):
    """A month's page keeps the digest of the rows it was made from: a night on which they stand
    makes nothing of that month. A page made before pages kept one (its digest taken out here)
    takes tonight's, and keeps the date it was made on, its CSV and its workbook."""
    import re

    from pipelines.sweden import pins as P

    register(office)
    post_event(office, "bk-lavec", "2026-11-20-stor", 100, nivå="brons", brickor="24", datum="2026-11-20")
    office.run(date(2026, 11, 21))
    folder = office.state / "publications" / ORG / "nålar" / "2026-11"
    page = folder / "index.html"
    digest = re.search(r'<meta name="pointledger-rows" content="([0-9a-f]{32})">', page.read_text(encoding="utf-8"))
    assert digest
    # as an earlier release made it: no digest
    page.write_text(page.read_text(encoding="utf-8").replace(digest.group(0) + "\n", ""), encoding="utf-8")
    files = {name: (folder / name).read_bytes() for name in ("nålar.csv", "nålar.xlsx")}
    stamps = {name: (folder / name).stat().st_ino for name in files}

    post_event(office, "bk-lavec", "2026-12-04-liten", 4, nivå="brons", brickor="24", datum="2026-12-04", start=500)
    office.run(date(2026, 12, 5))
    text = page.read_text(encoding="utf-8")
    assert digest.group(0) in text and "listan gjord 2026-11-21" in text
    assert {name: (folder / name).read_bytes() for name in files} == files
    assert {name: (folder / name).stat().st_ino for name in files} == stamps

    made = []
    monkeypatch.setattr(P, "render_month", lambda *a, **k: made.append(a[0]) or pytest.fail("made again"))
    post_event(office, "bk-lavec", "2026-12-06-liten", 4, nivå="brons", brickor="24", datum="2026-12-06", start=600)
    office.run(date(2026, 12, 7))
    assert made == [] and page.read_text(encoding="utf-8") == text
