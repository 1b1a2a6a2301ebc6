"""JCBL events sent as travellers (PBN, USEBIO, bridge CSV) instead of a standings file.

The travellers are scored by the bridge functions and posted by the JCBL system; each event is
checked against the same event sent as a standings file whose percentages / VPs come from the
bridge functions (pipelines.bridge.parse_pbn + compute_standings), with the ranks worked out
here from exact fractions, and one value per event typed in from the seed's tables.
"""
from __future__ import annotations

import csv
import io
import shutil
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest

from pipelines.bridge.parse_csv import parse_csv
from pipelines.bridge.parse_pbn import parse_pbn
from pipelines.bridge.samples import howell_session, mitchell_session, teams_event, teams_to_pbn, to_csv, to_pbn, to_usebio
from pipelines.bridge.standings import compute_standings
from pipelines.core import run as nightly
from pipelines.core.settings import SettingsError
from pipelines.core.sql import open_database
from pipelines.jcbl.system import event_key, role_of

ROOT = Path(__file__).resolve().parents[2]
ORG = "jcbl-tokyo"
AS_OF = date(2024, 7, 1)
D = Decimal

WEEKLY_EVENT = "name: 月曜ウィークリー\ndate: 2024-06-03\nkind: weekly_pairs\nclass: 2\n"
TEAMS_EVENT = "name: イーブンチャンス\ndate: 2024-06-09\nkind: even_chance_teams\nday: weekend\nboards_per_match: 6\nvp_scale: 20\n"
CCG_EVENT = "name: CCG\ndate: 2024-06-12\nkind: ccg_pairs\nclass: 3\nsessions: 2\nboards_per_session: 21\n"


class Desk:
    """An office of its own: inbox, state, and the nightly run on a JCBL-only data folder."""

    def __init__(self, root: Path, data_dir: Path):
        self.inbox, self.state, self.data_dir = root / "inbox", root / "var", data_dir
        self.inbox.mkdir(parents=True)

    def post(self, name: str, content: str | bytes) -> None:
        path = self.inbox / ORG / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)

    def run(self, as_of: date = AS_OF) -> nightly.RunResult:
        return nightly.run(self.inbox, self.state, as_of, data_dir=self.data_dir)

    def query(self, sql: str) -> pd.DataFrame:
        con = open_database(self.state / "warehouse.duckdb", read_only=True)  # (tests/office.py: why)
        try:
            return con.sql(sql).to_arrow_table().to_pandas(types_mapper=pd.ArrowDtype)
        finally:
            con.close()

    def points(self) -> dict:
        rows = self.query("select player_id, denomination, sum(points) as p from awards group by all having sum(points) <> 0")
        return {(p, d): v for p, d, v in zip(rows["player_id"], rows["denomination"], rows["p"])}


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    data = tmp_path / "jcbl-data"
    (data / "organisations").mkdir(parents=True)
    (data / "rules").mkdir()
    shutil.copy(ROOT / "data" / "organisations" / f"{ORG}.toml", data / "organisations")
    shutil.copytree(ROOT / "data" / "rules" / "jcbl", data / "rules" / "jcbl")
    return data


@pytest.fixture
def travellers(tmp_path, data_dir) -> Desk:
    return Desk(tmp_path / "travellers-office", data_dir)


@pytest.fixture
def standings(tmp_path, data_dir) -> Desk:
    return Desk(tmp_path / "standings-office", data_dir)


def competition_ranks(values: list[Fraction]) -> list[int]:
    return [1 + sum(other > v for other in values) for v in values]


def bridge_scores(parser, name: str, data: bytes, **options) -> dict[str, pd.DataFrame]:
    frames, q = parser(name, data)
    assert q.empty, q
    return compute_standings(frames["traveller_lines"], frames["events"], frames["entrants"], **options)


def pairs_standings_csv(ss: pd.DataFrame, sessions: int = 1) -> str:
    """The standings file a club would type from the bridge results: rank by the exact combined
    score (total matchpoints / total maximum), session percentages as the bridge prints them."""
    ss = ss.assign(key=ss["player_ids"].map(lambda p: " ".join(sorted(p.split(";")))))
    keys = list(dict.fromkeys(ss["key"]))
    total = {k: (sum(Fraction(int(x), int(d)) for x, d in zip(g["score_x"], g["score_den"])),
                 sum(Fraction(int(x), int(d)) for x, d in zip(g["max_x"], g["score_den"])))
             for k, g in ss.groupby("key")}
    ranks = competition_ranks([total[k][0] / total[k][1] for k in keys])
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["rank", "entrant", "players"] + [f"session_{i}" for i in range(1, sessions + 1)])
    for k, r in zip(keys, ranks):
        rows = ss[ss["key"] == k].set_index("session")
        first = rows.loc[1]
        w.writerow([r, f"{first['direction']}{first['entrant']}", " ".join(first["player_ids"].split(";"))]
                   + [str(rows.loc[i, "percentage"]) for i in range(1, sessions + 1)])
    return out.getvalue()


# --------------------------------------------------------------------------- file names


def test_traveller_file_names_are_results_of_their_event():
    assert role_of("jcbl-tokyo/2026-11-09-monday.pbn") == "travellers"
    assert role_of("jcbl-tokyo/x/2026-11-09-monday.XML") == "travellers"
    assert role_of("jcbl-tokyo/2026-11-09-monday.travellers.csv") == "travellers"
    assert role_of("jcbl-tokyo/2026-11-09-monday.standings.csv") == "standings"
    assert role_of("jcbl-tokyo/2026-11-09-monday.csv") is None
    assert event_key("jcbl-tokyo/a/2026-11-09-monday.travellers.csv") == "jcbl-tokyo/a/2026-11-09-monday"
    assert event_key("jcbl-tokyo/2026-11-09-monday.pbn") == event_key("jcbl-tokyo/2026-11-09-monday.event.txt")


# --------------------------------------------------------------------------- weekly pairs (PBN, Mitchell)


def test_weekly_pairs_from_pbn_post_as_the_standings_file_with_the_bridge_percentages(travellers, standings):
    # a 10-table Mitchell: 20 pairs, ranked together (both directions) for the JCBL placing
    pbn = to_pbn(mitchell_session(seed=2024_06_03, name="Monday Pairs", day=date(2024, 6, 3), tables=10))
    travellers.post("2024-06-03-monday.event.txt", WEEKLY_EVENT)
    travellers.post("2024-06-03-monday.pbn", pbn)
    result = travellers.run()
    assert result.exit_code == nightly.EXIT_OK

    ss = bridge_scores(parse_pbn, f"{ORG}/2024-06-03-monday.pbn", pbn)["session_standings"]
    assert len(ss) == 20
    standings.post("2024-06-03-monday.event.txt", WEEKLY_EVENT)
    standings.post("2024-06-03-monday.standings.csv", pairs_standings_csv(ss))
    assert standings.run().exit_code == nightly.EXIT_OK

    got = travellers.points()
    assert got == standings.points() and got
    # by hand from the seed (weekly class 2 pairs, 20 pairs): 1st 0.40, 2nd 0.28, 3rd 0.20 BP each player
    best = ss.assign(r=[Fraction(int(x), int(m)) for x, m in zip(ss["score_x"], ss["max_x"])]).sort_values("r", ascending=False)
    assert best["r"].iloc[0] > best["r"].iloc[1] > best["r"].iloc[2] > best["r"].iloc[3]
    for place, expected in enumerate((D("0.40"), D("0.28"), D("0.20"))):
        for player in best["player_ids"].iloc[place].split(";"):
            assert got[(player, "BP")] == expected
    assert set(d for _, d in got) == {"BP"}

    # what the run recorded: the traveller file is the unit of posting
    ev = travellers.query("select event_id, kind, source_file, location from events")
    assert ev["event_id"].tolist() == [f"{ORG}/2024-06-03-monday"]
    assert ev["source_file"].tolist() == [f"{ORG}/2024-06-03-monday.pbn"]
    assert ev["location"].iloc[0].startswith("travellers: ")
    st = travellers.query("select entrant, rank, session_1_pct, field_size from jcbl_standings order by rank, entrant")
    assert len(st) == 20 and set(st["field_size"]) == {20}
    top = best.iloc[0]
    assert st["entrant"].iloc[0] == f"{top['direction']}{top['entrant']}"
    assert st["session_1_pct"].iloc[0] == top["percentage"]
    assert (travellers.state / "publications" / ORG / "2024-06-03-monday" / "index.html").exists()


def test_the_same_session_as_usebio_posts_the_same_points(travellers, standings):
    session = mitchell_session(seed=2024_06_03, name="Monday Pairs", day=date(2024, 6, 3), tables=10)
    travellers.post("m.event.txt", WEEKLY_EVENT)
    travellers.post("m.pbn", to_pbn(session))
    standings.post("m.event.txt", WEEKLY_EVENT)
    standings.post("m.xml", to_usebio(session))
    assert travellers.run().exit_code == nightly.EXIT_OK
    assert standings.run().exit_code == nightly.EXIT_OK
    assert travellers.points() == standings.points()


# --------------------------------------------------------------------------- teams (PBN teams)


def test_teams_event_from_pbn_team_travellers(travellers, standings):
    pbn = teams_to_pbn(teams_event(seed=2024_06_09, name="Even Chance", day=date(2024, 6, 9), teams=6, boards_per_match=6))
    travellers.post("2024-06-09-ec.event.txt", TEAMS_EVENT)
    travellers.post("2024-06-09-ec.pbn", pbn)
    assert travellers.run().exit_code == nightly.EXIT_OK

    frames, q = parse_pbn(f"{ORG}/2024-06-09-ec.pbn", pbn)
    tm = compute_standings(frames["traveller_lines"], frames["events"], frames["entrants"], vp_scale="JCBL20",
                           boards_per_match=6)["team_matches"]
    assert len(tm) == 6 * 5
    teams = frames["entrants"].set_index("entrant")
    vps = {t: list(g.sort_values("round")["vp"]) for t, g in tm.groupby("team")}
    order = sorted(vps)
    ranks = competition_ranks([Fraction(sum(vps[t], D(0))) for t in order])
    lines = ["rank,entrant,players,match_vps"] + [
        f"{r},{t},{' '.join(teams.loc[t, 'player_ids'].split(';'))},{' '.join(str(v) for v in vps[t])}"
        for t, r in zip(order, ranks)]
    standings.post("2024-06-09-ec.event.txt", TEAMS_EVENT)
    standings.post("2024-06-09-ec.standings.csv", "\n".join(lines) + "\n")
    assert standings.run().exit_code == nightly.EXIT_OK

    got = travellers.points()
    assert got == standings.points() and got
    # by hand: BP = winning VP (VPs of the matches won) × 0.003125 × 6 boards × 20/20 × Even Chance 10/16
    for t in order:
        won = sum((v for v in vps[t] if v > 10), D(0))
        bp = (won * D("0.003125") * 6 * D(10) / D(16)).quantize(D("0.01"), rounding=ROUND_HALF_UP)
        for player in teams.loc[t, "player_ids"].split(";"):
            assert got.get((player, "BP"), D("0.00")) == bp
    # the winner's RP: 0.22 × (6 + 10) × 1/1 × 10/16 = 2.20
    winner = order[ranks.index(1)]
    assert ranks.count(1) == 1
    assert got[(teams.loc[winner, "player_ids"].split(";")[0], "RP")] == D("2.20")
    st = travellers.query("select entrant, match_vps, winning_vp from jcbl_standings where entrant = '1'")
    assert st["match_vps"].iloc[0] == " ".join(str(v) for v in vps["1"])
    assert st["winning_vp"].iloc[0] == sum((v for v in vps["1"] if v > 10), D(0))


def test_a_30_vp_event_from_travellers_waits_for_a_standings_file(travellers):
    pbn = teams_to_pbn(teams_event(seed=11, name="SRR", day=date(2024, 6, 9), teams=4, boards_per_match=6))
    travellers.post("t.event.txt", TEAMS_EVENT.replace("vp_scale: 20", "vp_scale: 30"))
    travellers.post("t.pbn", pbn)
    result = travellers.run()
    assert result.exit_code == nightly.EXIT_QUARANTINE
    q = travellers.query("select source_file, reason from quarantine")
    assert any("no VP scale is stored for vp_scale 30" in r for r in q["reason"])
    assert travellers.query("select count(*) as n from awards")["n"].iloc[0] == 0


# --------------------------------------------------------------------------- two sessions (CSV travellers)


def two_session_csv() -> bytes:
    """A CCG of two Howell sessions in one CSV: the same 8 pairs (same pair numbers and member
    numbers), other deals and movements. (The bridge parsers keep one entrant list per event, so a
    pair keeps its number in both sessions of one file.)"""
    one = to_csv(howell_session(seed=5, name="CCG", day=date(2024, 6, 12), pairs=8))
    two = to_csv(howell_session(seed=5 + 89, name="CCG", day=date(2024, 6, 12), pairs=8))
    rows = list(csv.reader(io.StringIO(two.decode("utf-8"))))
    header, body = rows[0], rows[1:]
    col = {h: i for i, h in enumerate(header)}
    for r in body:
        r[col["session"]] = "2"
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(body)
    return one + out.getvalue().encode("utf-8")


def test_ccg_of_two_sessions_from_csv_travellers(travellers, standings):
    data = two_session_csv()
    name = f"{ORG}/2024-06-12-ccg.travellers.csv"
    scored = bridge_scores(parse_csv, name, data)["session_standings"]
    assert sorted(set(scored["session"])) == [1, 2] and len(scored) == 16
    travellers.post("2024-06-12-ccg.event.txt", CCG_EVENT)
    travellers.post("2024-06-12-ccg.travellers.csv", data)
    assert travellers.run().exit_code == nightly.EXIT_OK
    standings.post("2024-06-12-ccg.event.txt", CCG_EVENT)
    standings.post("2024-06-12-ccg.standings.csv", pairs_standings_csv(scored, sessions=2))
    assert standings.run().exit_code == nightly.EXIT_OK
    got = travellers.points()
    assert got == standings.points() and got
    st = travellers.query("select players, session_1_pct, session_2_pct from jcbl_standings")
    assert st["session_2_pct"].notna().all() and len(st) == 8


# --------------------------------------------------------------------------- problems


def test_a_malformed_traveller_file_is_quarantined_and_the_event_waits(travellers):
    pbn = to_pbn(howell_session(seed=3, name="Weekly", day=date(2024, 6, 5), pairs=8)).decode("utf-8")
    lines = pbn.splitlines()
    # the first played result of the file gets a wrong NS score
    i = next(i for i, l in enumerate(lines) if l[:1] == " " and len(l.split()) == 9 and l.split()[7].isdigit()
             and l.split()[7] != "0")
    cells = lines[i].split()
    wrong = str(int(cells[7]) + 10)
    lines[i] = lines[i].replace(f" {cells[7]} ", f" {wrong} ".rjust(len(cells[7]) + 2), 1)
    travellers.post("w.event.txt", "date: 2024-06-05\nkind: weekly_pairs\nclass: 3\n")
    travellers.post("w.pbn", "\n".join(lines) + "\n")
    result = travellers.run()
    assert result.exit_code == nightly.EXIT_QUARANTINE
    q = travellers.query("select source_file, location, reason from quarantine")
    # the event file that arrived with them says what it waits for (issue 14: no file is silent)
    assert set(q["source_file"]) == {f"{ORG}/w.pbn", f"{ORG}/w.event.txt"}
    waiting = q[q["source_file"] == f"{ORG}/w.event.txt"]
    assert list(waiting["location"]) == ["whole file"]
    assert waiting["reason"].iloc[0].startswith(f"waiting for a corrected traveller file {ORG}/w.pbn")
    q = q[q["source_file"] == f"{ORG}/w.pbn"]
    law77 = q[q["reason"].str.contains("disagrees with Law 77")]
    assert len(law77) == 1 and law77["location"].iloc[0].startswith("BOARD ")
    held = q[q["location"] == "whole file"]["reason"].iloc[0]
    assert "waits for a corrected traveller file" in held and f"{ORG}/w.pbn" in held
    assert travellers.query("select count(*) as n from awards")["n"].iloc[0] == 0
    # the corrected travellers at the same path post the event; the event file is not sent again
    travellers.post("w.pbn", pbn)
    fixed = travellers.run()
    assert fixed.exit_code == nightly.EXIT_OK
    assert fixed.report["award_lines"]["posted"] > 0


def test_travellers_without_member_numbers_wait_for_a_corrected_file(travellers):
    pbn = to_pbn(howell_session(seed=4, name="Weekly", day=date(2024, 6, 5), pairs=8)).decode("utf-8")
    head, table = pbn.split("[TotalScoreTable", 1)
    table = table.replace("MemberID1\\8R;MemberID2\\8R", "Dummy\\1R").splitlines()
    rows = [table[0]] + [" ".join(r.rsplit(" ", 2)[:1]) + " -" for r in table[1:] if r.strip()]
    travellers.post("w.event.txt", "date: 2024-06-05\nkind: weekly_pairs\nclass: 3\n")
    travellers.post("w.pbn", head + "[TotalScoreTable" + "\n".join(rows) + "\n")
    assert travellers.run().exit_code == nightly.EXIT_QUARANTINE
    q = travellers.query("select source_file, location, reason from quarantine")
    q = q[q["source_file"] == f"{ORG}/w.pbn"]
    assert q["reason"].str.contains("expected the member numbers of both players of pair").sum() == 8
    assert travellers.query("select count(*) as n from awards")["n"].iloc[0] == 0


def test_a_standings_file_and_travellers_for_one_event_are_refused(travellers):
    pbn = to_pbn(howell_session(seed=6, name="Weekly", day=date(2024, 6, 5), pairs=8))
    travellers.post("w.event.txt", "date: 2024-06-05\nkind: weekly_pairs\nclass: 3\n")
    travellers.post("w.pbn", pbn)
    travellers.post("w.standings.csv", "rank,entrant,players\n1,1,A B\n2,2,C D\n")
    assert travellers.run().exit_code == nightly.EXIT_QUARANTINE
    q = travellers.query("select source_file, reason from quarantine")
    assert set(q["source_file"]) == {f"{ORG}/w.pbn", f"{ORG}/w.standings.csv", f"{ORG}/w.event.txt"}
    assert q["reason"].str.contains("more than one results file").all()
    assert travellers.query("select count(*) as n from awards")["n"].iloc[0] == 0


def test_travellers_arriving_after_their_event_file_post_then(travellers):
    travellers.post("w.event.txt", "date: 2024-06-05\nkind: weekly_pairs\nclass: 3\n")
    first = travellers.run()
    reason = travellers.query("select reason from quarantine")["reason"].iloc[0]
    assert first.exit_code == nightly.EXIT_QUARANTINE and "or the travellers jcbl-tokyo/w.pbn" in reason
    travellers.post("w.pbn", to_pbn(howell_session(seed=8, name="Weekly", day=date(2024, 6, 5), pairs=8)))
    second = travellers.run()
    assert second.exit_code == nightly.EXIT_OK and second.report["award_lines"]["posted"] > 0


def test_running_twice_posts_nothing_new(travellers):
    travellers.post("w.event.txt", WEEKLY_EVENT)
    travellers.post("w.pbn", to_pbn(mitchell_session(seed=1, name="Monday Pairs", day=date(2024, 6, 3), tables=10)))
    travellers.post("ec.event.txt", TEAMS_EVENT)
    travellers.post("ec.pbn", teams_to_pbn(teams_event(seed=2, name="EC", day=date(2024, 6, 9), teams=6, boards_per_match=6)))
    first = travellers.run()
    assert first.exit_code == nightly.EXIT_OK
    before = travellers.query("select award_id, points from awards order by award_id")
    second = travellers.run()
    assert second.exit_code == nightly.EXIT_OK
    assert second.report["award_lines"] == {"posted": 0, "reversals": 0}
    after = travellers.query("select award_id, points from awards order by award_id")
    assert before.equals(after) and len(after) == first.report["award_lines"]["posted"]


def test_a_corrected_traveller_file_reverses_and_reposts(travellers):
    travellers.post("w.event.txt", WEEKLY_EVENT)
    travellers.post("w.pbn", to_pbn(mitchell_session(seed=1, name="Monday Pairs", day=date(2024, 6, 3), tables=10)))
    travellers.run()
    before = travellers.points()
    # the club re-sends the session's travellers (a scoring slip fixed: other results)
    travellers.post("w.pbn", to_pbn(mitchell_session(seed=99, name="Monday Pairs", day=date(2024, 6, 3), tables=10)))
    result = travellers.run()
    assert result.report["files"]["corrections"] == 1
    assert result.report["award_lines"]["reversals"] == sum(1 for v in before.values() if v)
    assert travellers.points() != before


# --------------------------------------------------------------------------- VP scales


@pytest.mark.parametrize("boards", [6, 7])
def test_jcbl20_steps_never_grow_at_the_sectionals_match_lengths(boards):
    """The WBF report's property of the continuous scale: each extra IMP adds no more VP than the
    one before (after rounding to 2 decimals), so no concavity correction applies at 6 and 7 boards."""
    from pipelines.bridge.imps import vp_for_margin

    margins = list(range(0, 60))
    win, lose = vp_for_margin(margins, [boards] * len(margins), "JCBL20")
    steps = [b - a for a, b in zip(win, win[1:])]
    assert all(later <= earlier for earlier, later in zip(steps, steps[1:]))
    assert win[0] == D("10.00") and win[-1] == D("20.00")
    assert all(w + l == 20 for w, l in zip(win, lose))


def test_the_offices_own_traveller_scale_table_is_the_one_read(travellers):
    """The office keeps its rule data in its own folder (--data-dir): a vp_scale its
    traveller_vp_scales.csv does not map is not computed from the bundled table's row. Before,
    the bundled table was always read, and this event posted."""
    table = travellers.data_dir / "rules" / "jcbl" / "traveller_vp_scales.csv"
    table.write_text("vp_scale,scale_id,note\n", encoding="utf-8")  # the office has no scale for 20 VP
    pbn = teams_to_pbn(teams_event(seed=11, name="SRR", day=date(2024, 6, 9), teams=4, boards_per_match=6))
    travellers.post("t.event.txt", TEAMS_EVENT)
    travellers.post("t.pbn", pbn)
    assert travellers.run().exit_code == nightly.EXIT_QUARANTINE
    q = travellers.query("select source_file, reason from quarantine")
    assert any("no VP scale is stored for vp_scale 20 (data/rules/jcbl/traveller_vp_scales.csv knows none)" in r
               for r in q["reason"])
    assert travellers.query("select count(*) as n from awards")["n"].iloc[0] == 0


def test_a_broken_traveller_scale_table_stops_the_run(travellers):
    table = travellers.data_dir / "rules" / "jcbl" / "traveller_vp_scales.csv"
    table.write_text("vp_scale,scale_id,note\n20,,x\n", encoding="utf-8")  # line 2: no scale named
    travellers.post("t.event.txt", TEAMS_EVENT)
    with pytest.raises(SettingsError, match="rules/jcbl/traveller_vp_scales.csv line 2 column scale_id"):
        travellers.run()
