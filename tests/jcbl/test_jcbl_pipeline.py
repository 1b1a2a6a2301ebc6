"""JCBL plugged into the nightly run, end to end: inbox → ledger → warehouse → publications.

Expected points come from the independent reference of test_jcbl_reference.py (plain Decimal
arithmetic written from RULES.md §1); the sample files are read here with the csv module and a
few lines of string splitting, not with pipelines/jcbl/parse.py.

The runs use a data folder holding only the JCBL organisation and rules, so these tests do not
depend on the other rule systems' organisations.
"""
from __future__ import annotations

import csv
import io
import shutil
from collections import defaultdict
from datetime import date
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pytest

from pipelines.core import run as nightly
from pipelines.core.explain import explain_player
from pipelines.jcbl.system import event_key, role_of, season_label
from test_jcbl_reference import reference

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "data" / "samples" / "inbox" / "jcbl-tokyo"
ORG = "jcbl-tokyo"
AS_OF = date(2024, 7, 1)
D = Decimal


# --------------------------------------------------------------------------- helpers


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    data = tmp_path / "jcbl-data"
    (data / "organisations").mkdir(parents=True)
    (data / "rules").mkdir()
    shutil.copy(ROOT / "data" / "organisations" / f"{ORG}.toml", data / "organisations")
    shutil.copytree(ROOT / "data" / "rules" / "jcbl", data / "rules" / "jcbl")
    return data


def run(office, data_dir, as_of=AS_OF) -> nightly.RunResult:
    return nightly.run(office.inbox, office.state, as_of, data_dir=data_dir)


def post_sample(office, name: str) -> None:
    office.post(f"{ORG}/{name}", (SAMPLES / name).read_bytes())


def read_event(text: str) -> dict:
    """An event file as the reference wants it (independent of pipelines.jcbl.parse)."""
    ev = {}
    for line in text.splitlines():
        line = line.split("#")[0].strip()
        if not line:
            continue
        key, value = (part.strip() for part in line.split(":", 1))
        ev[key] = value
    out = {"kind": ev["kind"], "date": ev["date"]}
    for key in ("class", "boards_per_session", "boards_per_match", "sessions"):
        if key in ev:
            out["class_level" if key == "class" else key] = int(ev[key])
    if "vp_scale" in ev:
        out["vp_scale"] = D(ev["vp_scale"])
    day = ev.get("day")
    out["weekday"] = (date.fromisoformat(ev["date"]).weekday() < 5) if day is None else day == "weekday"
    if "strats" in ev:
        out["strats"] = [(s.split("=")[0].strip(), None if s.split("=")[1].strip() == "open" else int(s.split("=")[1]))
                         for s in ev["strats"].split(",")]
    return out


def read_standings(text: str, vp_scale: Decimal | None = None) -> pd.DataFrame:
    rows = []
    for r in csv.DictReader(io.StringIO(text)):
        row = {"entrant": r["entrant"], "players": r["players"], "rank": int(r["rank"].rstrip("=")), "flight": r.get("flight", "")}
        for i in (1, 2):
            if r.get(f"session_{i}"):
                row[f"session_{i}_pct"] = D(r[f"session_{i}"])
        if "match_vps" in r:
            row["winning_vp"] = sum((D(v) for v in r["match_vps"].split() if D(v) > vp_scale / 2), D(0))
        rows.append(row)
    return pd.DataFrame(rows)


def expected_awards(events: list[tuple[str, str]], opening: dict | None = None) -> dict:
    """{(event_id, player, denomination): points} for events (event text, standings text) in date
    order, holdings from the opening balances and the earlier events (for strats)."""
    held = defaultdict(lambda: D(0), opening or {})
    out = {}
    for event_id, ev_text, st_text in sorted(events, key=lambda e: read_event(e[1])["date"]):
        ev = read_event(ev_text)
        st = read_standings(st_text, ev.get("vp_scale"))
        got = reference(ev, st, dict(held))
        for (player, denomination), points in got.items():
            out[(event_id, player, denomination)] = points
        for (player, _), points in got.items():
            held[player] += points
    return out


def sample_events(*names: str) -> list[tuple[str, str, str]]:
    return [(f"{ORG}/{n}", (SAMPLES / f"{n}.event.txt").read_text(encoding="utf-8"),
             (SAMPLES / f"{n}.standings.csv").read_text(encoding="utf-8")) for n in names]


def ledger(office) -> dict:
    rows = office.query("select event_id, player_id, denomination, sum(points) as points from awards "
                        "group by all having sum(points) <> 0")
    return {(e, p, d): v for e, p, d, v in zip(rows["event_id"], rows["player_id"], rows["denomination"], rows["points"])}


GOOD = ("2024-06-05-weekly", "2024-06-09-even-chance", "2024-06-16-stf")

WEEKLY_EVENT = "name: 水曜ウィークリー\ndate: 2024-06-05\nkind: weekly_pairs\nclass: 3\n"
WEEKLY = "rank,entrant,players\n" + "".join(f"{i},NS{i},P{i}a P{i}b\n" for i in range(1, 11))
STF_EVENT = ("name: STF\ndate: 2024-06-16\nkind: stf_pairs\nday: weekend\nsessions: 2\nboards_per_session: 26\n"
             "strats: A=open, B=1000, C=500\n")
# pairs 1–3 hold ≥ 1000 MP, pairs 4–6 between 500 and 1000, pairs 7–12 under 500 (opening balances)
STF = "rank,entrant,players,session_1,session_2\n" + "".join(
    f"{i},N{i},S{i}a S{i}b,{55 - i}.00,{54 - i}.50\n" for i in range(1, 13))
OPENING = ("player_id,as_of,rp,bp,note\n"
           + "".join(f"S{i}{x},2024-04-01,{2000 if i <= 3 else 700 if i <= 6 else 0},0,joined\n" for i in range(1, 13) for x in "ab"))


# --------------------------------------------------------------------------- the bundled samples


def test_the_bundled_samples_post_as_the_independent_reference(office, data_dir):
    for path in sorted(SAMPLES.iterdir()):
        post_sample(office, path.name)
    result = run(office, data_dir)
    assert result.exit_code == nightly.EXIT_QUARANTINE  # the malformed pair
    assert ledger(office) == expected_awards(sample_events(*GOOD))
    events = office.query("select event_id, kind, source_file from events order by event_id")
    assert events["event_id"].tolist() == [f"{ORG}/{n}" for n in GOOD]
    assert events["kind"].tolist() == ["jcbl_weekly_pairs", "jcbl_even_chance_teams", "jcbl_stf_pairs"]
    assert events["source_file"].tolist() == [f"{ORG}/{n}.standings.csv" for n in GOOD]
    sources = office.query("select source_file, status from sources").set_index("source_file")["status"].to_dict()
    assert sources == {**{f"{ORG}/{n}.{s}": "posted" for n in GOOD for s in ("event.txt", "standings.csv")},
                       f"{ORG}/2024-06-19-malformed.event.txt": "quarantined",
                       f"{ORG}/2024-06-19-malformed.standings.csv": "quarantined",
                       f"{ORG}/members.csv": "posted"}  # the member register (names only, no ledger lines)
    # a few values typed in from the seed's tables (10 pairs class 3: 0.30; Even Chance 10 teams 1st: 2.75)
    lines = ledger(office)
    assert lines[(f"{ORG}/2024-06-05-weekly", "JT0101", "BP")] == D("0.30")
    assert lines[(f"{ORG}/2024-06-09-even-chance", "JT0201", "RP")] == D("2.75")
    awards = office.query("select * from awards")
    assert set(awards["season"]) == {"2024-25"} and set(awards["system"]) == {"jcbl"}
    assert str(awards["points"].dtype) == "decimal128(12, 2)[pyarrow]"


def test_the_malformed_sample_is_quarantined_with_actionable_reasons(office, data_dir):
    for path in sorted(SAMPLES.iterdir()):
        post_sample(office, path.name)
    run(office, data_dir)
    q = office.query("select source_file, location, reason from quarantine order by source_file, location")
    assert set(q["source_file"]) == {f"{ORG}/2024-06-19-malformed.event.txt", f"{ORG}/2024-06-19-malformed.standings.csv"}
    reasons = {(s.split("/")[-1], loc): r for s, loc, r in zip(q["source_file"], q["location"], q["reason"])}
    assert "unknown setting 'clas'" in reasons[("2024-06-19-malformed.event.txt", "line 4")]
    assert "expected 2 player ids (pair) or 4 to 6 (team), found 1" in reasons[("2024-06-19-malformed.standings.csv", "line 3")]
    held = reasons[("2024-06-19-malformed.standings.csv", "whole file")]
    assert "held back until the event settings file jcbl-tokyo/2024-06-19-malformed.event.txt is corrected" in held
    # correcting both files posts the event; nothing else is sent again
    office.post(f"{ORG}/2024-06-19-malformed.event.txt", "date: 2024-06-19\nkind: weekly_pairs\nclass: 3\n")
    office.post(f"{ORG}/2024-06-19-malformed.standings.csv",
                "rank,entrant,players\n1,NS1,JT0101 JT0102\n2,NS2,JT0103 JT0104\n3,NS3,JT0105 JT0106\n")
    result = run(office, data_dir)
    assert result.exit_code == nightly.EXIT_OK
    assert result.report["award_lines"] == {"posted": 4, "reversals": 0}  # 3 pairs: the top 2 places (35%, rounded up)


def test_running_twice_posts_nothing_new(office, data_dir):
    for path in sorted(SAMPLES.iterdir()):
        post_sample(office, path.name)
    first = run(office, data_dir)
    second = run(office, data_dir)
    assert first.report["award_lines"]["posted"] == 84
    assert second.report["award_lines"] == {"posted": 0, "reversals": 0}
    assert second.report["files"]["already_posted"] == 9  # 8 event and standings files + the member register
    assert second.exit_code == nightly.EXIT_OK
    assert len(office.query("select * from awards")) == 84


# --------------------------------------------------------------------------- two files, two nights


def test_standings_arriving_a_night_after_their_event_file_post_then(office, data_dir):
    post_sample(office, "2024-06-09-even-chance.event.txt")
    first = run(office, data_dir, date(2024, 6, 9))
    assert first.exit_code == nightly.EXIT_QUARANTINE
    q = office.query("select source_file, location, reason from quarantine")
    assert q["location"].tolist() == ["whole file"]
    assert q["reason"].iloc[0].startswith("waiting for the standings file jcbl-tokyo/2024-06-09-even-chance.standings.csv")
    assert office.query("select count(*) as n from awards")["n"].iloc[0] == 0

    post_sample(office, "2024-06-09-even-chance.standings.csv")
    second = run(office, data_dir, date(2024, 6, 10))
    assert second.exit_code == nightly.EXIT_OK
    assert ledger(office) == expected_awards(sample_events("2024-06-09-even-chance"))
    assert (office.state / "publications" / ORG / "2024-06-09-even-chance" / "index.html").exists()


def test_an_event_file_arriving_after_its_standings_posts_the_waiting_standings(office, data_dir):
    post_sample(office, "2024-06-16-stf.standings.csv")
    first = run(office, data_dir)
    reason = office.query("select reason from quarantine")["reason"].iloc[0]
    assert first.exit_code == nightly.EXIT_QUARANTINE
    assert reason.startswith("waiting for the event settings file jcbl-tokyo/2024-06-16-stf.event.txt")
    assert "need not be sent again" in reason

    post_sample(office, "2024-06-16-stf.event.txt")
    second = run(office, data_dir)
    assert second.exit_code == nightly.EXIT_OK
    assert ledger(office) == expected_awards(sample_events("2024-06-16-stf"))
    # the lines and the event belong to the standings file, as posted tonight from the inbox
    events = office.query("select event_id, source_file, run_id from events")
    assert events["source_file"].tolist() == [f"{ORG}/2024-06-16-stf.standings.csv"]
    assert events["run_id"].tolist() == [second.run_id]
    assert set(office.query("select source_file from awards")["source_file"]) == {f"{ORG}/2024-06-16-stf.standings.csv"}
    # a third night posts nothing
    third = run(office, data_dir)
    assert third.report["award_lines"] == {"posted": 0, "reversals": 0}


# --------------------------------------------------------------------------- corrections


def test_a_corrected_standings_file_reverses_and_reposts(office, data_dir):
    office.post(f"{ORG}/w.event.txt", WEEKLY_EVENT)
    office.post(f"{ORG}/w.standings.csv", WEEKLY)
    run(office, data_dir)
    before = ledger(office)
    # the secretary swaps the first two pairs
    corrected = WEEKLY.replace("1,NS1,P1a P1b", "2,NS1,P1a P1b").replace("2,NS2,P2a P2b", "1,NS2,P2a P2b")
    corrected = "rank,entrant,players\n" + "\n".join(sorted(corrected.splitlines()[1:], key=lambda l: int(l.split(",")[0]))) + "\n"
    office.post(f"{ORG}/w.standings.csv", corrected)
    result = run(office, data_dir)
    assert result.report["files"]["corrections"] == 1
    assert result.report["award_lines"] == {"posted": len(before), "reversals": len(before)}
    assert ledger(office) == expected_awards([(f"{ORG}/w", WEEKLY_EVENT, corrected)])
    assert ledger(office)[(f"{ORG}/w", "P2a", "BP")] == D("0.30")
    csv_text = (office.state / "publications" / ORG / "w" / "awards.csv").read_text(encoding="utf-8-sig")
    assert csv_text.splitlines()[1].split(",")[8] == "NS2"  # after rank and rank_label
    standings = office.query("select entrant, rank from jcbl_standings order by rank, entrant")
    assert standings["entrant"].tolist()[:2] == ["NS2", "NS1"] and len(standings) == 10


def test_a_corrected_event_file_changing_posted_awards_asks_for_the_standings_again(office, data_dir):
    office.post(f"{ORG}/w.event.txt", WEEKLY_EVENT)
    office.post(f"{ORG}/w.standings.csv", WEEKLY)
    run(office, data_dir)
    # a new name changes no award: nothing to do
    office.post(f"{ORG}/w.event.txt", WEEKLY_EVENT.replace("水曜ウィークリー", "水曜ウィークリー (午後)"))
    renamed = run(office, data_dir)
    assert renamed.exit_code == nightly.EXIT_OK and renamed.report["award_lines"] == {"posted": 0, "reversals": 0}
    # class 3 → 5 changes them: the event file is held with what to do
    office.post(f"{ORG}/w.event.txt", WEEKLY_EVENT.replace("class: 3", "class: 5"))
    held = run(office, data_dir)
    assert held.exit_code == nightly.EXIT_QUARANTINE and held.report["award_lines"] == {"posted": 0, "reversals": 0}
    reason = office.query("select reason from quarantine where run_id = ?", [held.run_id])["reason"].iloc[0]
    assert "send the standings file jcbl-tokyo/w.standings.csv again with any change" in reason
    # ... which reverses the class-3 awards and posts the class-5 ones
    office.post(f"{ORG}/w.standings.csv", WEEKLY + "# settings corrected\n")
    reposted = run(office, data_dir)
    assert reposted.exit_code == nightly.EXIT_OK
    assert ledger(office) == expected_awards([(f"{ORG}/w", WEEKLY_EVENT.replace("class: 3", "class: 5"), WEEKLY)])


# --------------------------------------------------------------------------- strats from the ledger


def _stf_rp(office) -> dict:
    return {k[1]: v for k, v in ledger(office).items() if k[0] == f"{ORG}/stf" and k[2] == "RP"}


@pytest.mark.parametrize("same_night", [False, True])
def test_points_of_an_earlier_event_change_the_strat_of_a_later_one(office, data_dir, same_night):
    # S7a starts with 499.80 MP: under 500, so pair N7 plays strat C (△500) ...
    office.post(f"{ORG}/opening_balances.csv", OPENING.replace("S7a,2024-04-01,0,0", "S7a,2024-04-01,499.50,0.30"))
    # ... until the weekly game of 2024-06-05 gives S7a 0.30 BP: 500.10 MP on 2024-06-16
    office.post(f"{ORG}/w.event.txt", WEEKLY_EVENT)
    office.post(f"{ORG}/w.standings.csv", WEEKLY.replace("P1a P1b", "S7a P1b"))
    if not same_night:
        assert run(office, data_dir).exit_code == nightly.EXIT_OK
    office.post(f"{ORG}/stf.event.txt", STF_EVENT)
    office.post(f"{ORG}/stf.standings.csv", STF)
    assert run(office, data_dir).exit_code == nightly.EXIT_OK

    opening = {f"S{i}{x}": D(2000 if i <= 3 else 700 if i <= 6 else 0) for i in range(1, 13) for x in "ab"}
    opening["S7a"] = D("499.80")
    expected = expected_awards([(f"{ORG}/w", WEEKLY_EVENT, WEEKLY.replace("P1a P1b", "S7a P1b")),
                                (f"{ORG}/stf", STF_EVENT, STF)], opening)
    assert ledger(office) == expected
    rp = _stf_rp(office)
    # N7 is 4th of the 9 pairs of strat B (0.08×29×0.4×13/16 = 0.75), no longer 1st of strat C (1.43);
    # N8 is 1st of strat C now
    assert rp["S7a"] == D("0.75")
    assert rp["S8a"] == D("1.38")  # 0.08×25×1×11/16 = 1.375


def test_without_the_earlier_event_the_pair_stays_in_the_lower_strat(office, data_dir):
    office.post(f"{ORG}/opening_balances.csv", OPENING.replace("S7a,2024-04-01,0,0", "S7a,2024-04-01,499.50,0.30"))
    office.post(f"{ORG}/stf.event.txt", STF_EVENT)
    office.post(f"{ORG}/stf.standings.csv", STF)
    assert run(office, data_dir).exit_code == nightly.EXIT_OK
    assert _stf_rp(office)["S7a"] == D("1.43")  # 1st of the 6 pairs of strat C: 0.08×26×1×11/16


def test_a_bad_opening_balance_line_is_quarantined_and_the_rest_counts(office, data_dir):
    office.post(f"{ORG}/opening_balances.csv", OPENING + "S99a,2024-04-01,12.345,0,too many decimals\n")
    office.post(f"{ORG}/stf.event.txt", STF_EVENT)
    office.post(f"{ORG}/stf.standings.csv", STF)
    result = run(office, data_dir)
    assert result.exit_code == nightly.EXIT_QUARANTINE
    q = office.query("select source_file, location, reason from quarantine")
    assert q["source_file"].tolist() == [f"{ORG}/opening_balances.csv"] and q["location"].tolist() == ["line 26"]
    assert "rp: expected points with at most 2 decimals" in q["reason"].iloc[0]
    assert _stf_rp(office)["S7a"] == D("1.43")


# --------------------------------------------------------------------------- warehouse, publications, explain


def test_a_standings_file_copied_to_another_event_the_same_night_is_a_duplicate(office, data_dir):
    """DESIGN.md: the same content again under any path is a duplicate and posts nothing, on the
    night it arrives beside its original as on any later night. The second event waits and says why."""
    office.post(f"{ORG}/a.event.txt", WEEKLY_EVENT)
    office.post(f"{ORG}/a.standings.csv", WEEKLY)
    office.post(f"{ORG}/b.event.txt", WEEKLY_EVENT.replace("2024-06-05", "2024-06-12"))
    office.post(f"{ORG}/b.standings.csv", WEEKLY)
    result = run(office, data_dir, date(2024, 6, 20))
    assert result.exit_code == nightly.EXIT_QUARANTINE
    events = office.query("select event_id from events")["event_id"].tolist()
    assert events == [f"{ORG}/a"]
    q = office.query("select source_file, reason from quarantine")
    assert q["source_file"].tolist() == [f"{ORG}/b.event.txt"]
    assert "has the same content as another file that is posted (tonight or earlier)" in q["reason"].iloc[0]
    status = office.query("select source_file, status from sources order by 1")
    assert dict(zip(status["source_file"], status["status"]))[f"{ORG}/b.standings.csv"] == "duplicate"


def test_masterpoints_per_season_and_lifetime(office, data_dir):
    office.post(f"{ORG}/a.event.txt", WEEKLY_EVENT)
    office.post(f"{ORG}/a.standings.csv", WEEKLY)
    office.post(f"{ORG}/b.event.txt", WEEKLY_EVENT.replace("2024-06-05", "2025-03-31"))
    # the same field three times; each list names its evening (identical content at two paths
    # would be one file sent twice: a duplicate, which posts nothing)
    office.post(f"{ORG}/b.standings.csv", "# 2025-03-31\n" + WEEKLY)
    office.post(f"{ORG}/c.event.txt", WEEKLY_EVENT.replace("2024-06-05", "2025-04-01"))
    office.post(f"{ORG}/c.standings.csv", "# 2025-04-01\n" + WEEKLY)
    run(office, data_dir, date(2025, 4, 2))
    rows = office.query("select season, rp, bp, mp, lifetime_mp from jcbl_masterpoints where player_id = 'P1a' order by season")
    assert rows["season"].tolist() == ["2024-25", "2025-26"]
    assert rows["bp"].tolist() == [D("0.60"), D("0.30")] and rows["rp"].tolist() == [D("0"), D("0")]
    assert rows["mp"].tolist() == [D("0.60"), D("0.30")]
    assert rows["lifetime_mp"].tolist() == [D("0.60"), D("0.90")]
    balances = office.query("select season, denomination, points from balances where player_id = 'P1a' order by season")
    assert balances["points"].tolist() == [D("0.60"), D("0.30")] and set(balances["denomination"]) == {"BP"}


def test_the_publication_escapes_html_and_defuses_spreadsheet_formulas(office, data_dir):
    office.post(f"{ORG}/x.event.txt", "name: <script>alert(1)</script>\ndate: 2024-06-05\nkind: weekly_pairs\nclass: 3\n")
    office.post(f"{ORG}/x.standings.csv", "rank,entrant,players\n1,=HYPERLINK(\"http://x\"),A1 A2\n2,<b>B</b>,B1 B2\n3,C,C1 C2\n")
    assert run(office, data_dir).exit_code == nightly.EXIT_OK
    folder = office.state / "publications" / ORG / "x"
    html = (folder / "index.html").read_text(encoding="utf-8")
    # the one script is the shared table enhancement; the hostile one stays text
    assert "<script>alert(1)" not in html and html.count("<script>") == 1 and "&lt;script&gt;" in html and "&lt;b&gt;B&lt;/b&gt;" in html
    rows = list(csv.reader(io.StringIO((folder / "awards.csv").read_text(encoding="utf-8-sig"))))
    assert rows[0][:13] == ["event_id", "event_date", "event_name", "kind", "unit", "flight", "rank", "rank_label", "entrant", "players", "rp", "bp", "mp"]
    assert rows[1][8] == "'=HYPERLINK(\"http://x\")" and rows[1][10:13] == ["0.00", "0.09", "0.09"]


def test_explain_shows_the_season_and_each_entry(office, data_dir):
    for n in GOOD:
        post_sample(office, f"{n}.event.txt")
        post_sample(office, f"{n}.standings.csv")
    run(office, data_dir)
    lines = explain_player(office.state / "warehouse.duckdb", "JT0201")
    assert "JCBL jcbl-tokyo season 2024-25: RP 5.31 + BP 2.70 = MP 8.01; lifetime MP 8.01" in lines
    assert any("jcbl-tokyo/2024-06-16-stf STF Pairs: pair N4 place 1 of 12: RP 2.56, BP 1.70" in l for l in lines)


# --------------------------------------------------------------------------- small pieces


def test_file_roles_and_event_ids():
    assert role_of("jcbl-tokyo/2024-06-16-stf.event.txt") == "event"
    assert role_of("jcbl-tokyo/sub/X.Standings.CSV") == "standings"
    assert role_of("jcbl-tokyo/opening_balances.csv") == role_of("jcbl-tokyo/2025.opening_balances.csv") == "opening"
    assert role_of("jcbl-tokyo/notes.txt") is None and role_of("jcbl-tokyo/.event.txt") is None
    assert event_key("jcbl-tokyo/sub/2024-06-16-stf.standings.csv") == "jcbl-tokyo/sub/2024-06-16-stf"


def test_season_labels():
    dates = pd.Series([date(2025, 3, 31), date(2025, 4, 1), date(2024, 12, 31)])
    assert season_label(dates, 4).tolist() == ["2024-25", "2025-26", "2024-25"]
    assert season_label(dates, 1).tolist() == ["2025", "2025", "2024"]
    assert season_label(pd.Series([date(1999, 9, 1)]), 9).tolist() == ["1999-00"]


def test_an_unknown_file_name_is_quarantined(office, data_dir):
    office.post(f"{ORG}/notes.txt", "hello")
    result = run(office, data_dir)
    assert result.exit_code == nightly.EXIT_QUARANTINE
    assert "not a JCBL file name" in office.query("select reason from quarantine")["reason"].iloc[0]


def test_a_correction_that_breaks_the_standings_reverses_and_withdraws_the_publication(office, data_dir):
    office.post(f"{ORG}/w.event.txt", WEEKLY_EVENT)
    office.post(f"{ORG}/w.standings.csv", WEEKLY)
    first = run(office, data_dir)
    folder = office.state / "publications" / ORG / "w"
    assert (folder / "index.html").exists()
    office.post(f"{ORG}/w.standings.csv", WEEKLY.replace("NS3,P3a P3b", "NS3,P3a"))
    second = run(office, data_dir)
    assert second.exit_code == nightly.EXIT_QUARANTINE
    assert second.report["award_lines"] == {"posted": 0, "reversals": first.report["award_lines"]["posted"]}
    assert ledger(office) == {}
    assert not folder.exists()
    assert office.query("select count(*) as n from events")["n"].iloc[0] == 0


def test_an_event_the_rules_cannot_score_is_held_with_its_reasons(office, data_dir):
    office.post(f"{ORG}/stf.event.txt", STF_EVENT.replace("boards_per_session: 26\n", ""))
    office.post(f"{ORG}/stf.standings.csv", STF)
    result = run(office, data_dir)
    assert result.exit_code == nightly.EXIT_QUARANTINE and ledger(office) == {}
    q = office.query("select source_file, location, reason from quarantine order by source_file, location")
    rows = set(zip(q["source_file"], q["location"]))
    assert (f"{ORG}/stf.event.txt", "boards_per_session") in rows
    assert {(f"{ORG}/stf.event.txt", "whole file"), (f"{ORG}/stf.standings.csv", "whole file")} <= rows
    assert all("the event file must give boards_per_session" in r for r in q["reason"][q["location"] != "boards_per_session"])
    sources = office.query("select source_file, status from sources")
    assert set(sources["status"]) == {"quarantined"}


def test_scores_with_more_decimals_than_the_lake_keeps_are_quarantined(office, data_dir):
    office.post(f"{ORG}/ec.event.txt", "date: 2024-06-09\nkind: even_chance_teams\nday: weekend\nboards_per_match: 6\nvp_scale: 20\n")
    office.post(f"{ORG}/ec.standings.csv", "rank,entrant,players,match_vps\n"
                "1,T1,A1 A2 A3 A4,15.123456 12\n2,T2,B1 B2 B3 B4,4.876544 8\n3,T3,C1 C2 C3 C4,10 10\n")
    result = run(office, data_dir)
    assert result.exit_code == nightly.EXIT_QUARANTINE and ledger(office) == {}
    q = office.query("select location, reason from quarantine where location = 'line 2'")
    assert "match_vps: expected VPs with at most 4 decimals, found 15.123456" in q["reason"].tolist()


def test_an_event_page_lists_every_entrant_with_those_who_earned_nothing_greyed(office, data_dir):
    # the sample weekly pairs: 10 pairs in the standings file; only the top 35 % of a field get
    # placing awards, rounded up: 10 -> 4 (RULES.md §JCBL): places 1, 2, 3=, 3=; six earn nothing
    for name in ("2024-06-05-weekly.event.txt", "2024-06-05-weekly.standings.csv"):
        post_sample(office, name)
    assert run(office, data_dir).exit_code == nightly.EXIT_OK
    html = (office.state / "publications" / ORG / "2024-06-05-weekly" / "index.html").read_text(encoding="utf-8")
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    assert "（10 組）" in html and body.count("<tr") == 10
    assert body.count('<tr class="nil">') == 6
    for entrant in ("NS3", "EW5", "NS1", "EW2", "NS4", "EW4"):
        assert f">{entrant}<" in body


def test_the_offices_own_rule_versions_decide_which_event_dates_are_scored(office, data_dir):
    """An office that dates its first rule version earlier (a data change in its own folder,
    --data-dir) posts an event of that earlier date. Before, the event file was checked against
    the bundled rule data ('date 2018-09-05 is before the first JCBL rule version (2018-12-01)');
    the event kinds are read from the same rules."""
    versions = data_dir / "rules" / "jcbl" / "versions.csv"
    text = versions.read_text(encoding="utf-8")
    assert text.count("jcbl-2018-12,2018-12-01,") == 1
    versions.write_text(text.replace("jcbl-2018-12,2018-12-01,", "jcbl-2018-12,2018-06-01,"), encoding="utf-8")
    office.post(f"{ORG}/a.event.txt", WEEKLY_EVENT.replace("2024-06-05", "2018-09-05"))
    office.post(f"{ORG}/a.standings.csv", WEEKLY)
    assert run(office, data_dir).exit_code == nightly.EXIT_OK
    # 1st of 10 pairs in a class-3 weekly: 0.30 BP, as in the 2024 sample (the same rule version)
    assert ledger(office)[(f"{ORG}/a", "P1a", "BP")] == D("0.30")
