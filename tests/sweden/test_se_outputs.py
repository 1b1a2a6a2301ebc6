"""Views, publications, explain, corrections, isolation groups and the shared key: value reader."""
from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from pipelines.core.keyvalue import read_key_values
from pipelines.core.system import SourceFile, get_system
from office import pointledger
from se_helpers import ORG, column, post_event, register


def test_key_value_reader():
    kv = read_key_values("datum: 2024-09-03\nNivå = brons\n# kommentar\nnivå: silver\nfel\n".encode("cp1252"),
                         {"datum": "", "nivå": ""})
    assert kv.get("datum") == "2024-09-03" and kv.get("nivå") == "brons" and kv.encoding == "cp1252"
    assert [loc for loc, _ in kv.problems] == ["line 4", "line 5"]


def test_isolation_groups_pair_event_and_list():
    system = get_system("sweden")
    s = [SourceFile(ORG, f"{ORG}/a/x.event.txt", Path("x"), "0"), SourceFile(ORG, f"{ORG}/a/x.standings.csv", Path("y"), "0"),
         SourceFile(ORG, f"{ORG}/medlemsregister.csv", Path("z"), "0")]
    groups = system.isolation_groups(s)
    assert sorted(len(g) for g in groups) == [1, 2]
    assert "plac;par;medlemmar" in system.expected_content


def test_views_publications_and_fees(office):
    register(office)
    post_event(office, "bk-lavec", "2024-10-01-pub", 8, nivå="brons", brickor="24", namn="<b>Kväll & natt</b>")
    post_event(office, "bk-lavec", "2024-10-08-kort", 6, nivå="brons", brickor="12", orutinerade="ja")
    office.run()
    r = office.query("select * from se_results where event_id like '%pub' order by place")
    assert list(r["place_label"])[:3] == ["1", "2", "3"] and list(r["names"][0]) == ["Spelare 000 Åström", "Spelare 001 Åström"]
    h = office.query("select * from se_holdings where member = '200000'")
    # A1 row 8 winner 16 bp; the novices' event A1 row 6 winner 12 at half: 6 bp → 22 bp = 0.22 mp
    assert h["bp"][0] == Decimal("22.00") and h["mp"][0] == Decimal("0.22")
    fees = office.query("select * from se_club_fees")
    # bronze pairs 2.50 kr per player and session: 16 players × 1 + 12 players × ½ (12 boards) = 22 → 55 kr
    assert fees["player_sessions"][0] == Decimal("22.00") and fees["amount_sek"][0] == Decimal("55.00")
    page = (office.state / "publications" / ORG / "bk-lavec" / "2024-10-01-pub" / "index.html").read_text(encoding="utf-8")
    assert "&lt;b&gt;Kväll &amp; natt&lt;/b&gt;" in page and "<b>Kväll" not in page
    csv = (office.state / "publications" / ORG / "bk-lavec" / "2024-10-01-pub" / "resultat.csv").read_text(encoding="utf-8-sig")
    assert csv.splitlines()[0] == "plac;plac_label;par;namn;medlemmar;klubb;bp;sp;gp"
    assert csv.splitlines()[1].endswith(";16;;")
    month = (office.state / "publications" / ORG / "bk-lavec" / "månad-2024-10" / "avgifter.csv").read_text(encoding="utf-8")
    # a ';' table's decimals with a comma, as the Swedish Excel that reads ';' expects them
    assert "10001;2024-10;brons;par;1,50;22,00;55,00" in month


def test_explain_shows_the_arithmetic(office):
    register(office)
    post_event(office, "bk-lavec", "s", 40, nivå="silver", brickor="52", mött="15")
    office.run()
    awards = office.query("select basis from awards where player_id = '200004'")
    # 3rd pair: D row 28 (1 + 15 + 24/2 = 28): 28 19 13 → 13 sp
    assert awards["basis"][0] == ("silver, 40 pairs, met 15 of 39: 1 + 15 + 24/2 = 28 → row 28, 7 silver places, "
                                  "bronze 2 × Tabell A2 row 40 to place 14; 3rd place: 13 sp")
    import duckdb

    from pipelines.sweden.publish import explain_player

    con = duckdb.connect(str(office.state / "warehouse.duckdb"), read_only=True)
    try:
        lines = explain_player(con, "200004")
    finally:
        con.close()
    assert lines[0] == "Sverige 200004 Spelare 004 Åström (Gävle BK): 0.00 bp, 13.00 sp, 0.00 gp = 1.30 mp"
    assert "place 3 of 40, entrant 3: 0 bp, 13 sp, 0 gp" in lines[1]


def test_explain_finds_a_member_by_the_name_in_the_register(office):
    # issue 8: `explain <member or name>`; the register names member 200004 'Spelare 004 Åström'
    # (se_helpers), and a second register line gives 200599's name to 200598 as well
    register(office)
    office.post(f"{ORG}/medlemsregister.csv", (office.inbox / ORG / "medlemsregister.csv").read_text(encoding="utf-8")
                .replace("200598;Spelare 598 Åström", "200598;Spelare 599 Åström"))
    post_event(office, "bk-lavec", "s", 40, nivå="silver", brickor="52", mött="15")
    office.run()
    by_name = pointledger("explain", "spelare  004 åström", "--state", office.state, "--data-dir", office.data_dir())
    by_number = pointledger("explain", "200004", "--state", office.state, "--data-dir", office.data_dir())
    assert by_name.returncode == 0 and by_name.stdout == by_number.stdout
    assert by_name.stdout.startswith("200004: 1 ledger line(s)")
    twice = pointledger("explain", "Spelare 599 Åström", "--state", office.state, "--data-dir", office.data_dir())
    assert twice.returncode == 6
    assert ("warning: 2 members are named 'Spelare 599 Åström': 200598 (svensk-bridge), 200599 (svensk-bridge); "
            "explain one of them as listed") in " ".join(twice.stderr.split())


def test_corrected_result_list_reverses_and_reposts(office):
    register(office)
    post_event(office, "bk-lavec", "c", 4, nivå="brons", brickor="24")
    office.run()
    office.post(f"{ORG}/bk-lavec/c.standings.csv", "plac;par;medlemmar\n1;2;200002 200003\n2;1;200000 200001\n"
                                                   "3;3;200004 200005\n4;4;200006 200007\n")
    office.run()
    net = office.query("select player_id, sum(points) as p from awards group by player_id order by player_id")
    got = dict(zip(net["player_id"], net["p"].map(int)))
    assert got["200002"] == 8 and got["200000"] == 6  # A1 row 4: 8, 6
    assert office.query("select count(*) as n from awards where entry_type = 'reversal'")["n"][0] == 4


def test_corrected_event_file_after_posting_asks_for_the_list_again(office):
    register(office)
    post_event(office, "bk-lavec", "e", 4, nivå="brons", brickor="24")
    office.run()
    office.post(f"{ORG}/bk-lavec/e.event.txt", "datum: 2024-10-01\nnivå: brons\nform: par\nbrickor: 26\n")
    office.run()
    q = office.query("select reason from quarantine where source_file like '%e.event.txt'")
    assert any("send the result list" in r and "again" in r for r in q["reason"])
    assert office.query("select count(*) as n from awards where entry_type = 'reversal'")["n"][0] == 0


def test_a_night_rewrites_only_the_event_pages_that_change(office):
    # two Tuesday events of October; a third one the next night: the first two pages stay as
    # they were (the same folder, its workbook not made again); a register that renames member
    # 200000 (1st pair of the first event) rewrites that event's page with the new name
    register(office)
    post_event(office, "bk-lavec", "2024-10-01-a", 8, datum="2024-10-01")
    post_event(office, "bk-lavec", "2024-10-08-b", 8, datum="2024-10-08", start=100)
    assert office.run().exit_code == 0
    site = office.state / "publications" / ORG / "bk-lavec"
    first, second = site / "2024-10-01-a", site / "2024-10-08-b"
    before = {p: (p.stat().st_ino, (p / "resultat.xlsx").stat().st_mtime_ns) for p in (first, second)}
    post_event(office, "bk-lavec", "2024-10-15-c", 8, datum="2024-10-15", start=200)
    assert office.run().exit_code == 0
    assert (site / "2024-10-15-c" / "index.html").is_file()
    assert {p: (p.stat().st_ino, (p / "resultat.xlsx").stat().st_mtime_ns) for p in (first, second)} == before
    # the month page lists all three
    assert (site / "månad-2024-10" / "index.html").read_text(encoding="utf-8").count('href="../') >= 3
    renamed = (office.inbox / ORG / "medlemsregister.csv").read_text(encoding="utf-8").replace(
        "200000;Spelare 000 Åström", "200000;Karin Öberg")
    office.post(f"{ORG}/medlemsregister.csv", renamed)
    assert office.run().exit_code == 0
    page = (first / "index.html").read_text(encoding="utf-8")
    assert "Karin Öberg" in page and "Spelare 000 Åström" not in page
    assert second.stat().st_ino == before[second][0]  # no member of the second event was renamed


def _places(folder: Path) -> dict[str, str]:
    """{pair: place label} of an event's published list (resultat.csv)."""
    import csv
    import io

    text = (folder / "resultat.csv").read_bytes().decode("utf-8-sig")
    return {row["par"]: row["plac_label"] for row in csv.DictReader(io.StringIO(text), delimiter=";")}


def test_a_correction_rewrites_its_event_page_also_after_a_run_killed_after_its_commit(office):
    """A night renders the pages of the events whose rows are new (not every event of the
    month): a corrected list (pairs 1 and 2 change places) rewrites its page and leaves the other
    event of the month alone, also when the run that posted the correction was killed after its
    commit, before publishing (the next run publishes what it posted)."""
    import os
    import subprocess
    import sys

    from pipelines.core import run as nightly

    register(office)
    post_event(office, "bk-lavec", "2024-10-01-a", 8, datum="2024-10-01")
    post_event(office, "bk-lavec", "2024-10-08-b", 8, datum="2024-10-08", start=100)
    assert office.run().exit_code == 0
    site = office.state / "publications" / ORG / "bk-lavec"
    first, second = site / "2024-10-01-a", site / "2024-10-08-b"
    assert _places(first)["1"] == "1" and _places(first)["2"] == "2"
    untouched = second.stat().st_ino

    corrected = ["2", "1", "3", "4", "5", "6", "7", "8"]
    post_event(office, "bk-lavec", "2024-10-01-a", 8, places=corrected, datum="2024-10-01")
    killed = subprocess.run(
        [sys.executable, "-m", "pipelines.cli", "run", "--inbox", str(office.inbox), "--state", str(office.state),
         "--as-of", "2026-12-02", "--data-dir", str(office.data_dir())],
        capture_output=True, text=True, env={**os.environ, nightly.KILL_ENV: "after_manifest"},
        cwd=Path(__file__).resolve().parents[2])
    assert killed.returncode == -9
    assert _places(first)["1"] == "1"  # committed, not yet published

    assert office.run().exit_code == 0  # nothing new in the inbox: the killed run's event is published
    assert _places(first)["1"] == "2" and _places(first)["2"] == "1"
    assert second.stat().st_ino == untouched
    # the club's month page still lists both events
    month = (site / "månad-2024-10" / "index.html").read_text(encoding="utf-8")
    assert "2024-10-01-a/index.html" in month and "2024-10-08-b/index.html" in month


def test_a_night_renders_the_month_pages_of_the_clubs_it_touched_only(office, tmp_path, monkeypatch):
    """A club's month page lists its own events and fees only: a night renders the month pages of
    the clubs with an event posted tonight or lost tonight (its corrected list wholly held back),
    and leaves every other club's page of the month alone (a federation's month has 300). What
    the night leaves is what a fresh run on the same inbox writes."""
    import shutil

    from office import Office
    from pipelines.core import run as nightly
    from pipelines.sweden import publish

    register(office)
    post_event(office, "bk-lavec", "2024-10-01-a", 8, datum="2024-10-01")
    post_event(office, "sundsvalls-bk", "2024-10-02-b", 8, datum="2024-10-02", start=100)
    post_event(office, "sundsvalls-bk", "2024-10-09-c", 6, datum="2024-10-09", start=200)
    post_event(office, "bk-skara", "2024-10-03-d", 8, datum="2024-10-03", start=300)
    assert office.run().exit_code == 0
    site = office.state / "publications" / ORG

    rendered = []
    original = publish.write_month_pages

    def spy(chunk):
        rendered.extend(sorted(set(zip(chunk[0]["slug"], chunk[0]["month"]))))
        return original(chunk)

    monkeypatch.setattr(publish, "write_month_pages", spy)
    post_event(office, "bk-lavec", "2024-10-15-e", 8, datum="2024-10-15", start=400)
    lost = office.inbox / ORG / "sundsvalls-bk" / "2024-10-09-c.standings.csv"
    office.post(lost.relative_to(office.inbox).as_posix(),  # a header no reader knows: the whole list is held back
                lost.read_text(encoding="utf-8").replace("plac;par;medlemmar", "plats;par;medlemmar"))
    assert office.run().exit_code == nightly.EXIT_QUARANTINE
    assert rendered == [("bk-lavec", "2024-10"), ("sundsvalls-bk", "2024-10")]
    lavec = (site / "bk-lavec" / "månad-2024-10" / "index.md").read_text(encoding="utf-8")
    sundsvall = (site / "sundsvalls-bk" / "månad-2024-10" / "index.md").read_text(encoding="utf-8")
    assert "2024-10-15" in lavec and "2024-10-09" not in sundsvall and "2024-10-02" in sundsvall

    fresh_root = tmp_path / "fresh"
    fresh_root.mkdir()
    fresh = Office(fresh_root)
    shutil.copytree(office.inbox, fresh.inbox, dirs_exist_ok=True)
    assert fresh.run().exit_code == nightly.EXIT_QUARANTINE
    for club in ("bk-lavec", "sundsvalls-bk", "bk-skara"):
        for name in ("index.md", "avgifter.csv"):
            night = (site / club / "månad-2024-10" / name).read_bytes()
            assert night == (fresh.state / "publications" / ORG / club / "månad-2024-10" / name).read_bytes(), (club, name)


def test_a_month_chunk_in_any_order_writes_each_club_month_page_once_with_its_events_in_order(tmp_path):
    """write_month_pages gets one row per event (and the fee rows of the touched months); its
    pages group the rows by club and month whatever order they come in, each event in its own
    order within its page. Expected Markdown and CSV written out by hand."""
    import datetime as dt

    import pandas as pd

    from pipelines.core.publishing import read_table
    from pipelines.sweden.publish import write_month_pages

    def event(slug, club, event_id, day, name, entrants, bp):
        return {"event_id": f"{ORG}/{slug}/{event_id}", "event_date": dt.date.fromisoformat(day), "event_name": name,
                "level": "brons", "form": "par", "club": club, "club_name": f"BK {slug}", "entrants": entrants,
                "bp": Decimal(bp), "sp": Decimal("0"), "gp": Decimal("0"), "slug": slug, "month": day[:7]}

    summary = pd.DataFrame([  # the two pages' rows interleaved
        event("norr", "101", "2024-10-01-a", "2024-10-01", "Tisdag", 8, "96"),
        event("syd", "202", "2024-10-03-c", "2024-10-03", "Torsdag", 6, "64"),
        event("norr", "101", "2024-10-08-b", "2024-10-08", "Tisdag", 10, "120"),
    ])
    fees = pd.DataFrame([{"organisation": ORG, "club": "101", "month": "2024-10", "level": "brons", "form": "par",
                          "sessions": Decimal("2.00"), "player_sessions": Decimal("36.00"), "amount_sek": Decimal("180.00")}])
    written = write_month_pages((summary, fees, tmp_path))
    assert written == [tmp_path / "norr" / "månad-2024-10", tmp_path / "syd" / "månad-2024-10"]
    norr = (tmp_path / "norr" / "månad-2024-10" / "index.md").read_text(encoding="utf-8").splitlines()
    assert norr[0] == "# BK norr – 2024-10"
    assert [line for line in norr if line.startswith("| 2024-")] == [
        "| 2024-10-01 | Tisdag | brons | par | 8 | 96 | 0 | 0 |",
        "| 2024-10-08 | Tisdag | brons | par | 10 | 120 | 0 | 0 |"]
    assert norr[-1] == "| brons | par | 2.00 | 36.00 | 180.00 |"
    syd = (tmp_path / "syd" / "månad-2024-10" / "index.md").read_text(encoding="utf-8").splitlines()
    assert [line for line in syd if line.startswith("| 2024-")] == ["| 2024-10-03 | Torsdag | brons | par | 6 | 64 | 0 | 0 |"]
    assert syd[-1] == "|---|---|---|---|---|"  # no fee rows for this club this month
    _, header, rows = read_table((tmp_path / "norr" / "månad-2024-10" / "avgifter.csv").read_text(encoding="utf-8-sig"))
    assert header == ["klubb", "månad", "nivå", "form", "speltillfällen", "spelartillfällen", "kr"]
    assert rows == [["101", "2024-10", "brons", "par", "2,00", "36,00", "180,00"]]  # decimal commas in a ';' table
    html = (tmp_path / "norr" / "månad-2024-10" / "index.html").read_text(encoding="utf-8")
    assert html.index("2024-10-01") < html.index("2024-10-08") and "2024-10-03" not in html
    # the same chunk again: nothing to write
    assert write_month_pages((summary, fees, tmp_path)) == []


def test_a_club_month_page_lists_its_events_and_series_matches_by_date(tmp_path):
    """The summary gives a month's result lists first and its series matches after them (a match
    of 2024-10-03 after an evening of 2024-10-08): the page lists them by date, as a secretary
    reads a month."""
    import datetime as dt

    import pandas as pd

    from pipelines.sweden.publish import write_month_pages

    def row(event_id, day, name, form, href=None):
        return {"event_id": event_id, "event_date": dt.date.fromisoformat(day), "event_name": name, "level": "brons",
                "form": form, "club": "101", "club_name": "BK norr", "entrants": 2, "bp": Decimal("64"),
                "sp": Decimal("0"), "gp": Decimal("0"), "slug": "norr", "month": "2024-10", "href": href}

    summary = pd.DataFrame([
        row(f"{ORG}/norr/2024-10-08-tisdag", "2024-10-08", "Tisdag", "par"),
        row(f"{ORG}/norr/hostserien/r1", "2024-10-03", "hostserien omg 1: Lag Ek – Lag Gran", "lag",
            "../serie-hostserien/index.html"),
    ])
    fees = pd.DataFrame(columns=["organisation", "club", "month", "level", "form", "sessions", "player_sessions",
                                 "amount_sek"])
    write_month_pages((summary, fees, tmp_path))
    md = (tmp_path / "norr" / "månad-2024-10" / "index.md").read_text(encoding="utf-8").splitlines()
    assert [line.split(" | ")[0] for line in md if line.startswith("| 2024-")] == ["| 2024-10-03", "| 2024-10-08"]
    html = (tmp_path / "norr" / "månad-2024-10" / "index.html").read_text(encoding="utf-8")
    assert html.index("2024-10-03") < html.index("2024-10-08")
