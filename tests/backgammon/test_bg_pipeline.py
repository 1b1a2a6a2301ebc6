"""Backgammon through the nightly run: inbox → ledger → warehouse → publications.

Expected points are computed by hand from the printed table (seed 001, copied in the comments
next to each value), never from the program's output. The runs use a data folder with only
backgammon clubs (the rule tables of the repository, the club settings as shipped or written
here), so that these tests see the backgammon system alone; the last test runs the shipped
settings of every organisation.
"""
from __future__ import annotations

import csv
import io
import shutil
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from pipelines.core import run as nightly
from pipelines.core.explain import explain_player
from office import Office  # tests/office.py (on sys.path)

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "data" / "samples" / "inbox" / "ukbgclub"
SHIPPED_SETTINGS = ROOT / "data" / "organisations" / "ukbgclub.toml"
AS_OF = date(2026, 12, 2)

MARCH = "ukbgclub/2025/2025-03-04-march-championship.csv"
LOG = "ukbgclub/2025/2025-03-11-tuesday-match-log.csv"
NOVICE = "ukbgclub/2025/2025-03-18-novice-night.csv"
MALFORMED = "ukbgclub/2025/2025-03-25-tuesday-results.csv"

D = Decimal

# ---------------------------------------------------------------------------------------------
# Hand computation from the printed table: award = max(placing, wins × per match) × multiplier,
# rounded half-up to 0.01.
EXPECTED = {
    # March Club Championship: Advanced/Open, method max, 12 players → column "12 to 23",
    # 5 rounds → column "24 to 32 / 5 rounds": the higher is the 5-rounds column
    # (1st 2.50, 2nd 1.25, 3rd 0.83, 4th 0.55, 5,6,7,8 tie 0.31); .08 per match; multiplier 2.
    "ukbgclub/2025-03-04/march-club-championship/main": {
        "Rosa Quinn": D("5.00"),   # 1st 2.50 vs 5 × .08 = .40 → 2.50 × 2
        "Tariq Shah": D("2.50"),   # 2nd 1.25 vs .32 → 1.25 × 2
        "Uma Patel": D("1.66"),    # 3rd 0.83 vs .32 → 0.83 × 2
        "Victor Lund": D("1.10"),  # 4th 0.55 vs .24 → 0.55 × 2
        "Wendy Ross": D("0.62"),   # 5-8 tie 0.31 vs .24 → 0.31 × 2
        "Xavier Diaz": D("0.62"),  # 5-8 tie 0.31 vs .24
        "Yusuf Ali": D("0.62"),    # 5-8 tie 0.31 vs .16
        "Zoe Park": D("0.64"),     # 5-8 tie 0.31 vs 4 × .08 = .32: the matches win → .32 × 2
        "Amir Haddad": D("0.48"),  # no place, 3 × .08 = .24 → × 2
        "Bella Stone": D("0.32"),  # 2 × .08 = .16 → × 2
        "Carl Moss": D("0.16"),    # 1 × .08 → × 2
        "Dina Fox": D("0.00"),     # no place, no win
    },
    # Tuesday Night Tournament match log, main bracket: Intermediate, max, 16 players → column
    # "12 to 23", 4 rounds → column "4 rounds": column 2 (1st 1.50, 2nd 0.75, 3/4 tie 0.38,
    # 5,6,7,8 tie 0.19); .04 per match; multiplier 1.5. Final Mia–Alice, semi-final losers Eve
    # and Ivan, quarter-final losers Chloe, Gita, Kai, Omar (Omar forfeited his quarter-final
    # to Mia: not a match won for Mia).
    "ukbgclub/2025-03-11/tuesday-night-tournament/main": {
        "Mia Moreau": D("2.25"),    # 1st 1.50 vs 3 wins (R1, R3, R4) × .04 → 1.50 × 1.5
        "Alice Archer": D("1.13"),  # 2nd 0.75 vs 3 × .04 → 0.75 × 1.5 = 1.125 → 1.13
        "Eve Evans": D("0.57"),     # 3/4 tie 0.38 × 1.5
        "Ivan Ilic": D("0.57"),
        "Chloe Chen": D("0.29"),    # 5-8 tie 0.19 × 1.5 = 0.285 → 0.29
        "Gita Gupta": D("0.29"),
        "Kai Kumar": D("0.29"),
        "Omar Osei": D("0.29"),
        **{p: D("0.00") for p in ["Ben Baxter", "Dan Doyle", "Finn Fraser", "Hugo Hart", "Jade Jones",
                                  "Liam Lowe", "Noah Nash", "Pia Price"]},  # round-1 losers
    },
    # consolation: 7 players (Hugo went home) → column "1 to 11", 3 rounds → column "3 rounds":
    # column 1 (1st 1.25, 2nd 0.63, 3/4 tie 0.31, 5,6,7,8 tie 0.16); multiplier 1.5.
    # Final Pia–Finn (Finn's round-1 bye is not a match won), semi-final losers Ben and Jade.
    "ukbgclub/2025-03-11/tuesday-night-tournament/consolation": {
        "Pia Price": D("1.88"),    # 1st 1.25 vs 3 × .04 → 1.25 × 1.5 = 1.875 → 1.88
        "Finn Fraser": D("0.95"),  # 2nd 0.63 × 1.5 = 0.945 → 0.95
        "Ben Baxter": D("0.47"),   # 3/4 tie 0.31 × 1.5 = 0.465 → 0.47
        "Jade Jones": D("0.47"),
        "Dan Doyle": D("0.24"),    # 5-8 tie 0.16 × 1.5
        "Liam Lowe": D("0.24"),
        "Noah Nash": D("0.24"),
    },
    # Novice Night: Novice, method players, 9 players → column "1 to 11" (1/2 tie 0.38,
    # 3/4 tie 0.13, 5,6,7,8 tie 0.06); .02 per match; multiplier 1.
    "ukbgclub/2025-03-18/novice-night/main": {
        "Eli Grant": D("0.38"), "Fay Holt": D("0.38"),
        "Gus Irwin": D("0.13"), "Hana Ito": D("0.13"),
        "Ian Jarvis": D("0.06"), "Jo Klein": D("0.06"),
        "Kim Lee": D("0.04"),      # 2 × .02
        "Lou Mendes": D("0.00"),
        "Max Novak": D("0.02"),
    },
    # The malformed results file: Intermediate, method rounds, 4 rounds → column 2; only the
    # three good lines post.
    "ukbgclub/2025-03-25/tuesday-night-tournament/main": {
        "Oscar Petit": D("0.75"),  # 2nd 0.75 vs 3 × .04
        "Vera Tan": D("0.04"),     # no place, 1 × .04
        "Walt Udall": D("0.19"),   # "5,6,7,8 tie" as printed: 0.19 vs .04
    },
}

MALFORMED_LINES = {  # line → a phrase its reason must contain
    9: "Nora Olsen is listed 2 times (lines 9, 18)",
    11: "the table's '3/4 tie' row allows at most 2",
    12: "the table's '3/4 tie' row allows at most 2",
    13: "the table's '3/4 tie' row allows at most 2",
    14: "matches won 'five' is not a whole number",
    15: "place '9th' is not a place row of the table",
    16: "Uri Stern won 6 matches but the event had 4 round(s)",
    18: "Nora Olsen is listed 2 times (lines 9, 18)",
}


# --------------------------------------------------------------------------- helpers


def backgammon_data(root: Path, extra_clubs: dict[str, str] | None = None) -> Path:
    """A data folder with the repository's rule tables and only backgammon clubs (beside the
    office's own copy of data/, which holds every organisation)."""
    data = root / "backgammon-data"
    (data / "organisations").mkdir(parents=True, exist_ok=True)
    (data / "rules").mkdir(exist_ok=True)
    if not (data / "rules" / "backgammon").exists():
        (data / "rules" / "backgammon").symlink_to(ROOT / "data" / "rules" / "backgammon")
    shutil.copy(SHIPPED_SETTINGS, data / "organisations" / "ukbgclub.toml")
    for name, text in (extra_clubs or {}).items():
        (data / "organisations" / f"{name}.toml").write_text(text, encoding="utf-8")
    return data


@pytest.fixture
def club(office, tmp_path):
    """The office with a backgammon-only data folder; `club.run()` runs the night."""
    return _backgammon_only(office, tmp_path)


def _backgammon_only(office, root: Path):
    data = backgammon_data(root)

    def run(as_of: date = AS_OF, data_dir: Path = data) -> nightly.RunResult:
        return nightly.run(office.inbox, office.state, as_of, data_dir=data_dir)

    office.run_bg = run
    office.data = data
    return office


def post_samples(office) -> None:
    for path in sorted(SAMPLES.rglob("*.csv")):
        office.post("ukbgclub/" + path.relative_to(SAMPLES).as_posix(), path.read_bytes())


def results_file(date_: str, event: str, rows: list[str], *, level="Intermediate", method="players", rounds=4,
                 multiplier="1", bracket="main", club="ukbgclub", extra: str = "") -> str:
    head = (f"# club: {club}\n# date: {date_}\n# event: {event}\n# bracket: {bracket}\n# level: {level}\n"
            f"# method: {method}\n# multiplier: {multiplier}\n# rounds: {rounds}\n{extra}")
    return head + "player,place,matches_won\n" + "\n".join(rows) + "\n"


def awards_by_event(office, where: str = "") -> dict[str, dict[str, Decimal]]:
    rows = office.query(f"select event_id, player_id, points from awards where entry_type = 'award' {where}")
    out: dict[str, dict[str, Decimal]] = {}
    for r in rows.itertuples():
        out.setdefault(r.event_id, {})[r.player_id] = r.points
    return out


def standing(office, as_of: str) -> dict[str, tuple]:
    rows = office.query(
        "select player_id as player, rank, rank_label, events, matches_won, points from backgammon_standings where as_of = ?",
        [date.fromisoformat(as_of)],
    )
    return {r.player: (r.rank, r.rank_label, r.events, r.matches_won, r.points) for r in rows.itertuples()}


# --------------------------------------------------------------------------- the bundled samples


@pytest.fixture
def posted_samples(club):
    """The samples posted and run, for a test that goes on from there."""
    post_samples(club)
    result = club.run_bg()
    return club, result


@pytest.fixture(scope="module")
def samples_once(tmp_path_factory):
    """The samples posted and run once for the module: the tests that only read what it posted."""
    root = tmp_path_factory.mktemp("backgammon-samples")
    club = _backgammon_only(Office(root), root)
    post_samples(club)
    return club, club.run_bg()


def test_samples_post_awards_equal_to_the_hand_computation(samples_once):
    office, result = samples_once
    assert result.exit_code == nightly.EXIT_QUARANTINE  # the malformed sample, on purpose
    assert awards_by_event(office) == EXPECTED
    lines = office.query("select * from awards")
    assert set(lines["system"]) == {"backgammon"} and set(lines["denomination"]) == {"club_mp"}
    assert set(lines["season"]) == {"2025"} and set(lines["rule_version"]) == {"ucmp-1"}
    assert all(e.startswith("ukbgclub/") for e in lines["event_id"])
    alice = lines[lines["player_id"] == "Alice Archer"].iloc[0]
    assert alice["basis"] == (
        "Intermediate, max(16 players → column 12–23, 4 rounds → column 4 rounds) = column 12–23, "
        "2nd 0.75 vs 3 wins × .04 = 0.12 → 0.75 × 1.5 = 1.125, rounded half-up to 1.13"
    )
    events = office.query("select event_id, kind, source_file from events order by event_id")
    assert list(events["event_id"]) == sorted(EXPECTED) and set(events["kind"]) == {"backgammon_tournament"}
    balances = office.query("select player_id, season, points from balances where player_id in ('Pia Price', 'Ben Baxter')")
    assert {(r.player_id, r.season, r.points) for r in balances.itertuples()} == {
        ("Pia Price", "2025", D("1.88")),   # 0.00 (main) + 1.88 (consolation)
        ("Ben Baxter", "2025", D("0.47")),  # 0.00 + 0.47
    }


def test_results_table_keeps_what_each_award_was_computed_from(samples_once):
    office, _ = samples_once
    rows = office.query("select * from backgammon_results where player_id = 'Mia Moreau'")
    r = rows.iloc[0]
    assert (r["level"], r["method"], r["multiplier"], r["rounds"], r["players"], r["place_row"], r["matches_won"],
            r["points"], r["input_format"], r["bracket"]) == (
        "Intermediate", "max", D("1.5"), 4, 16, "1st", 3, D("2.25"), "match_log", "main")
    assert office.query("select count(*) as n from backgammon_results").iloc[0]["n"] == sum(map(len, EXPECTED.values()))


def test_the_malformed_sample_is_quarantined_line_by_line_and_the_rest_posts(samples_once):
    office, _ = samples_once
    rows = office.query("select location, reason, record from quarantine where source_file = ?", [MALFORMED])
    got = {int(r.location.split()[1]): (r.reason, r.record) for r in rows.itertuples()}
    assert set(got) == set(MALFORMED_LINES)
    text = (SAMPLES / "2025" / "2025-03-25-tuesday-results.csv").read_text(encoding="utf-8").splitlines()
    for line, phrase in MALFORMED_LINES.items():
        reason, record = got[line]
        assert phrase in reason
        assert record == text[line - 1]  # the offending line, as the club wrote it
    sources = office.query("select source_file, status, records_posted, records_quarantined from sources")
    status = {r.source_file: (r.status, r.records_posted, r.records_quarantined) for r in sources.itertuples()}
    assert status == {
        MARCH: ("posted", 12, 0),
        LOG: ("posted", 23, 0),
        NOVICE: ("posted", 9, 0),
        MALFORMED: ("posted_with_quarantine", 3, 8),
    }


def test_running_twice_posts_nothing_new(posted_samples):
    office, _ = posted_samples
    before = office.query("select count(*) as n, sum(points) as p from awards").iloc[0]
    again = office.run_bg()
    assert again.exit_code == nightly.EXIT_OK
    assert again.report["award_lines"] == {"posted": 0, "reversals": 0}
    assert again.report["files"]["already_posted"] == 4
    after = office.query("select count(*) as n, sum(points) as p from awards").iloc[0]
    assert (after["n"], after["p"]) == (before["n"], before["p"])


def test_the_same_content_under_another_name_posts_nothing(posted_samples):
    office, _ = posted_samples
    office.post("ukbgclub/resent/march.csv", (SAMPLES / "2025" / "2025-03-04-march-championship.csv").read_bytes())
    again = office.run_bg()
    assert again.report["files"]["duplicates"] == 1 and again.report["award_lines"]["posted"] == 0


def test_a_corrected_results_file_reverses_and_reposts(posted_samples):
    office, _ = posted_samples
    fixed = results_file(
        "2025-03-25", "Tuesday Night Tournament", method="rounds", rounds=4,
        rows=["Nora Olsen,1st,4", "Oscar Petit,2nd,3", "Paula Reyes,3/4 tie,2", "Quentin Roy,3/4 tie,2",
              "Rita Sousa,5-8 tie,1", "Sam Reed,5-8 tie,1", "Tara Singh,,1", "Uri Stern,5-8 tie,2",
              "Vera Tan,,1", "Walt Udall,5-8 tie,1"],
    )
    office.post(MALFORMED, fixed)
    result = office.run_bg()
    assert result.exit_code == nightly.EXIT_OK
    assert result.report["award_lines"] == {"posted": 10, "reversals": 3}
    # Intermediate, 4 rounds → column 2: 1st 1.50, 2nd 0.75, 3/4 tie 0.38, 5-8 tie 0.19, .04 a match
    in_force = office.query(
        "select player_id, sum(points) as points, sum(case entry_type when 'award' then 1 else -1 end) as n "
        "from awards where event_id = 'ukbgclub/2025-03-25/tuesday-night-tournament/main' group by player_id"
    )
    assert {r.player_id: (r.points, r.n) for r in in_force.itertuples()} == {
        "Nora Olsen": (D("1.50"), 1), "Oscar Petit": (D("0.75"), 1), "Paula Reyes": (D("0.38"), 1),
        "Quentin Roy": (D("0.38"), 1), "Rita Sousa": (D("0.19"), 1), "Sam Reed": (D("0.19"), 1),
        "Tara Singh": (D("0.04"), 1), "Uri Stern": (D("0.19"), 1), "Vera Tan": (D("0.04"), 1),
        "Walt Udall": (D("0.19"), 1),
    }
    reversals = office.query("select basis from awards where entry_type = 'reversal'")
    assert all("was corrected" in b for b in reversals["basis"])
    # the race follows the ledger: Oscar still has one event (award +1, reversal −1, award +1)
    race = standing(office, "2025-03-31")
    assert race["Oscar Petit"][2:] == (1, 3, D("0.75"))
    assert race["Nora Olsen"][2:] == (1, 4, D("1.50"))
    assert office.query("select count(*) as n from backgammon_results where event_id like '%03-25%'").iloc[0]["n"] == 10
    # the March publication was rewritten with the corrected figures
    md = (office.state / "publications" / "ukbgclub" / "2025" / "2025-03" / "standings.md").read_text(encoding="utf-8")
    assert "| Nora Olsen | 1 | 4 | 1.50 |" in md


def test_a_corrected_match_log_is_not_a_duplicate_of_its_own_earlier_version(posted_samples):
    office, _ = posted_samples
    log = (SAMPLES / "2025" / "2025-03-11-tuesday-match-log.csv").read_text(encoding="utf-8")
    office.post(LOG, log.replace("# multiplier: 1.5", "# multiplier: 2"))
    result = office.run_bg()
    assert result.exit_code == nightly.EXIT_OK
    assert result.report["award_lines"] == {"posted": 23, "reversals": 23}
    race = standing(office, "2025-03-31")
    assert race["Mia Moreau"][4] == D("3.00")  # 1st 1.50 × 2
    assert race["Pia Price"][4] == D("2.50")   # 1st 1.25 × 2 + 0.00


# --------------------------------------------------------------------------- one tournament, two files


def _main_bracket_results() -> str:
    """The 2025-03-11 main bracket again, as a results file (same club, date, event, bracket)."""
    return results_file(
        "2025-03-11", "Tuesday Night Tournament", method="max", multiplier="1.5", rounds=4,
        rows=["Mia Moreau,1st,3", "Alice Archer,2nd,3", "Eve Evans,3/4 tie,2", "Ivan Ilic,3/4 tie,2"]
        + [f"{p},5-8 tie,1" for p in ["Chloe Chen", "Gita Gupta", "Kai Kumar", "Omar Osei"]]
        + [f"{p},,0" for p in ["Ben Baxter", "Dan Doyle", "Finn Fraser", "Hugo Hart", "Jade Jones", "Liam Lowe",
                               "Noah Nash", "Pia Price"]],
    )


def test_a_results_file_for_a_tournament_the_match_log_posted_the_same_night_is_quarantined(club):
    log = (SAMPLES / "2025" / "2025-03-11-tuesday-match-log.csv").read_bytes()
    club.post(LOG, log)
    club.post("ukbgclub/2025/2025-03-11-tuesday-results.csv", _main_bracket_results())  # sorts after the log
    result = club.run_bg()
    assert result.exit_code == nightly.EXIT_QUARANTINE
    lines = club.query("select source_file, count(*) as n from awards group by source_file")
    assert dict(zip(lines["source_file"], lines["n"])) == {LOG: 23}
    rows = club.query("select location, reason from quarantine")
    assert len(rows) == 1
    reason = rows.iloc[0]["reason"]
    assert "ukbgclub/2025-03-11/tuesday-night-tournament/main" in reason
    assert "is also in " + LOG in reason and "posts once" in reason
    assert rows.iloc[0]["location"] == "lines 1–25"  # its settings, header and 16 player lines
    status = club.query("select source_file, status from sources")
    assert dict(zip(status["source_file"], status["status"]))["ukbgclub/2025/2025-03-11-tuesday-results.csv"] == "quarantined"


def test_a_results_file_for_a_tournament_posted_on_an_earlier_night_is_quarantined(club):
    club.post(LOG, (SAMPLES / "2025" / "2025-03-11-tuesday-match-log.csv").read_bytes())
    club.run_bg()
    club.post("ukbgclub/2025/a-results-main-bracket.csv", _main_bracket_results())  # sorts before the log
    result = club.run_bg()
    assert result.exit_code == nightly.EXIT_QUARANTINE
    assert result.report["award_lines"] == {"posted": 0, "reversals": 0}
    reason = club.query("select reason from quarantine").iloc[0]["reason"]
    assert f"was already posted from {LOG}" in reason
    assert f"send the corrected file under the name {LOG}" in reason


def test_the_other_bracket_of_a_log_still_posts_when_one_is_a_duplicate(club):
    club.post("ukbgclub/2025/2025-03-11-a-main-results.csv", _main_bracket_results())  # sorts first: posts main
    club.post(LOG, (SAMPLES / "2025" / "2025-03-11-tuesday-match-log.csv").read_bytes())
    result = club.run_bg()
    assert result.exit_code == nightly.EXIT_QUARANTINE
    by_event = awards_by_event(club)
    assert by_event["ukbgclub/2025-03-11/tuesday-night-tournament/main"] == EXPECTED["ukbgclub/2025-03-11/tuesday-night-tournament/main"]
    assert by_event["ukbgclub/2025-03-11/tuesday-night-tournament/consolation"] == EXPECTED[
        "ukbgclub/2025-03-11/tuesday-night-tournament/consolation"]
    sources = club.query("select source_file, count(*) as n from awards group by source_file")
    assert dict(zip(sources["source_file"], sources["n"])) == {"ukbgclub/2025/2025-03-11-a-main-results.csv": 16, LOG: 7}
    q = club.query("select source_file, location, reason from quarantine").iloc[0]
    assert q["source_file"] == LOG and "is also in ukbgclub/2025/2025-03-11-a-main-results.csv" in q["reason"]


def test_a_corrected_file_keeps_its_event_against_a_new_file_of_the_same_night(club):
    mine = "ukbgclub/2025/z-main-results.csv"  # sorts after the match log
    club.post(mine, _main_bracket_results())
    club.run_bg()
    club.post(mine, _main_bracket_results() + "# corrected: nothing changed but this line\n")
    club.post(LOG, (SAMPLES / "2025" / "2025-03-11-tuesday-match-log.csv").read_bytes())
    result = club.run_bg()
    assert result.report["award_lines"] == {"posted": 16 + 7, "reversals": 16}
    in_force = club.query(
        "select source_file, count(*) filter (where entry_type = 'award') - count(*) filter (where entry_type = 'reversal') as n "
        "from awards group by source_file")
    assert dict(zip(in_force["source_file"], in_force["n"])) == {mine: 16, LOG: 7}
    reason = club.query("select reason from quarantine where source_file = ?", [LOG]).iloc[0]["reason"]
    assert f"is also in {mine}" in reason


def test_a_tournament_dated_after_the_run_is_quarantined(club):
    club.post("ukbgclub/typo.csv", results_file("2062-03-04", "Typo Night", rows=["Ann Ash,1st,3", "Bob Best,,0"]))
    result = club.run_bg()
    assert result.exit_code == nightly.EXIT_QUARANTINE
    reason = club.query("select reason from quarantine").iloc[0]["reason"]
    assert "2062-03-04 is after the date of this run (2026-12-02)" in reason
    assert club.query("select count(*) as n from awards").iloc[0]["n"] == 0


def test_a_multiplier_the_lake_cannot_hold_exactly_is_quarantined(club):
    club.post("ukbgclub/fine.csv", results_file("2025-05-06", "Fine Night", multiplier="1.3333333",
                                                rows=["Ann Ash,1st,3", "Bob Best,,0"]))
    club.post("ukbgclub/ok.csv", results_file("2025-05-07", "Third Night", multiplier="1.333333",
                                              rows=["Ann Ash,1st,3", "Bob Best,,0"]))
    result = club.run_bg()
    assert result.exit_code == nightly.EXIT_QUARANTINE
    q = club.query("select source_file, location, reason from quarantine")
    assert list(q["source_file"]) == ["ukbgclub/fine.csv"] and list(q["location"]) == ["lines 1–11"]
    assert "MP bonus multiplier 1.3333333 is not a number below 1000000 with at most 6 decimals" in q.iloc[0]["reason"]
    # Intermediate, 2 players → column 1: 1st 1.25 × 1.333333 = 1.66666625 → 1.67
    assert awards_by_event(club) == {"ukbgclub/2025-05-07/third-night/main": {"Ann Ash": D("1.67"), "Bob Best": D("0.00")}}
    assert club.query("select multiplier from backgammon_results").iloc[0]["multiplier"] == D("1.333333")


# --------------------------------------------------------------------------- the points race


def _season_files(office) -> None:
    """Jan and Mar 2025 and Feb 2026, Novice, 4 rounds, players method, 9 players → column 1
    (1st 0.50, 2nd 0.25, 3rd 0.17, 4th 0.11); .02 a match; multiplier 1."""
    fill = [f"Filler {i},,0" for i in range(5)]
    office.post("ukbgclub/2025-01.csv", results_file("2025-01-14", "January Novice", level="Novice",
                                                     rows=["Ann Ash,1st,3", "Bob Best,2nd,2", "Cy Cole,3rd,2", "Di Dunn,4th,1"] + fill))
    office.post("ukbgclub/2025-03.csv", results_file("2025-03-11", "March Novice", level="Novice",
                                                     rows=["Bob Best,2nd,2", "Ann Ash,4th,1", "Cy Cole,3rd,2", "Di Dunn,1st,3"] + fill))
    office.post("ukbgclub/2026-02.csv", results_file("2026-02-10", "February Novice", level="Novice",
                                                     rows=["Cy Cole,1st,3", "Ann Ash,2nd,2"] + fill[:7]))


def test_the_race_has_a_snapshot_per_month_end_and_ties_share_a_rank(club):
    _season_files(club)
    assert club.run_bg().exit_code == nightly.EXIT_OK
    snapshots = club.query("select distinct season, as_of from backgammon_standings order by as_of")
    # 2025: January to December (the club's latest event is in 2026); nothing in Jan 2026 yet
    assert [(s, str(a)) for s, a in zip(snapshots["season"], snapshots["as_of"])] == (
        [("2025", f"2025-{m:02d}-{d}") for m, d in [(1, 31), (2, 28), (3, 31), (4, 30), (5, 31), (6, 30),
                                                    (7, 31), (8, 31), (9, 30), (10, 31), (11, 30), (12, 31)]]
        + [("2026", "2026-02-28")]
    )
    january = standing(club, "2025-01-31")
    assert january["Ann Ash"] == (1, "1", 1, 3, D("0.50"))
    assert january["Di Dunn"] == (4, "4", 1, 1, D("0.11"))
    assert january["Filler 0"] == (5, "5=", 1, 0, D("0.00"))
    assert standing(club, "2025-02-28") == january  # nothing played in February
    # March: Ann 0.50 + 0.11 = 0.61 = Di 0.11 + 0.50 (tie, rank 1=); Bob 0.25 + 0.25 = 0.50;
    # Cy 0.17 + 0.17 = 0.34
    march = standing(club, "2025-03-31")
    assert march["Ann Ash"] == (1, "1=", 2, 4, D("0.61"))
    assert march["Di Dunn"] == (1, "1=", 2, 4, D("0.61"))
    assert march["Bob Best"] == (3, "3", 2, 4, D("0.50"))
    assert march["Cy Cole"] == (4, "4", 2, 4, D("0.34"))
    assert standing(club, "2025-12-31") == march
    # a new season starts from zero: 7 players in Feb 2026, Cy 1st 0.50, Ann 2nd 0.25
    feb = standing(club, "2026-02-28")
    assert feb["Cy Cole"] == (1, "1", 1, 3, D("0.50")) and feb["Ann Ash"] == (2, "2", 1, 2, D("0.25"))
    assert "Bob Best" not in feb
    pubs = {p.relative_to(club.state / "publications" / "ukbgclub").as_posix()
            for p in (club.state / "publications" / "ukbgclub").glob("*/*") if p.parent.name not in ("players", "assets", "corrections")}
    # a month's snapshot per folder, and each season's page of the site listing them (a section)
    assert pubs == {f"2025/2025-{m:02d}" for m in range(1, 13)} | {"2026/2026-02", "2025/index.html", "2026/index.html"}


def test_a_correction_moves_the_race_and_rewrites_the_later_months(club):
    _season_files(club)
    club.run_bg()
    pubs = club.state / "publications" / "ukbgclub"
    feb_2026 = (pubs / "2026" / "2026-02" / "index.html").stat().st_mtime_ns
    # March corrected: Ann did not play (a mistaken line); her March award is reversed
    club.post("ukbgclub/2025-03.csv", results_file("2025-03-11", "March Novice", level="Novice",
                                                   rows=["Bob Best,2nd,2", "Cy Cole,3rd,2", "Di Dunn,1st,3"]
                                                   + [f"Filler {i},,0" for i in range(6)]))
    result = club.run_bg()
    assert result.report["award_lines"] == {"posted": 9, "reversals": 9}
    march = standing(club, "2025-03-31")
    assert march["Di Dunn"] == (1, "1", 2, 4, D("0.61"))
    assert march["Ann Ash"] == (2, "2=", 1, 3, D("0.50"))  # events 2 → 1, matches won 4 → 3
    assert march["Bob Best"] == (2, "2=", 2, 4, D("0.50"))  # 0.25 + 0.25: tied with Ann
    assert standing(club, "2025-01-31")["Ann Ash"] == (1, "1", 1, 3, D("0.50"))
    # the points race's snapshots (besides them: the site's index, its feed, its chart library, its corrections and the pages of the players touched)
    # (a month's folder, or its index.html when the site's pager rewrote the page's links)
    written = {(Path(p).parent if Path(p).name == "index.html" else Path(p)).relative_to(pubs).as_posix()
               for p in result.report["publications"]
               if Path(p).is_relative_to(pubs) and Path(p).parent.name not in ("players", "assets", "corrections")
               and Path(p) not in (pubs / "index.html", pubs / "feed.atom")}
    assert written == {f"2025/2025-{m:02d}" for m in range(3, 13)}  # March onwards; not Jan, Feb, 2026
    assert (pubs / "2026" / "2026-02" / "index.html").stat().st_mtime_ns == feb_2026
    assert "| 2= | Ann Ash | 1 | 3 | 0.50 |" in (pubs / "2025" / "2025-12" / "standings.md").read_text(encoding="utf-8")


def test_a_snapshot_that_no_longer_exists_loses_its_publication(club):
    club.post("ukbgclub/night.csv", results_file("2025-04-01", "Club Night", rows=["Ann Ash,1st,3", "Bob Best,,0"]))
    club.run_bg()
    pubs = club.state / "publications" / "ukbgclub" / "2025"
    assert sorted(p.name for p in pubs.iterdir()) == ["2025-04", "index.html"]  # the month, the season's section page
    # the date was wrong: the night was in March; April has no snapshot any more
    club.post("ukbgclub/night.csv", results_file("2025-03-31", "Club Night", rows=["Ann Ash,1st,3", "Bob Best,,0"]))
    result = club.run_bg()
    assert result.report["award_lines"] == {"posted": 2, "reversals": 2}
    assert sorted(p.name for p in pubs.iterdir()) == ["2025-03", "index.html"]
    assert '<a href="2025-03/index.html">' in (pubs / "index.html").read_text(encoding="utf-8")
    assert "2025-04" not in (pubs / "index.html").read_text(encoding="utf-8")
    assert [str(a) for a in club.query("select distinct as_of from backgammon_standings")["as_of"]] == ["2025-03-31"]


def test_a_season_can_start_in_another_month(office, tmp_path):
    data = backgammon_data(tmp_path, {"autumnclub": 'organisation = "autumnclub"\ndisplay_name = "Autumn Club"\n'
                                                    'system = "backgammon"\nseason_start_month = 9\n'})
    office.post("autumnclub/a.csv", results_file("2025-08-26", "August", club="autumnclub", rows=["Ann Ash,1st,3", "Bob Best,,0"]))
    office.post("autumnclub/b.csv", results_file("2025-09-02", "September", club="autumnclub", rows=["Ann Ash,1st,3", "Bob Best,,0"]))
    assert nightly.run(office.inbox, office.state, AS_OF, data_dir=data).exit_code == nightly.EXIT_OK
    seasons = office.query("select distinct season, as_of from backgammon_standings where organisation = 'autumnclub' order by as_of")
    assert [(s, str(a)) for s, a in zip(seasons["season"], seasons["as_of"])] == [
        ("2024-25", "2025-08-31"), ("2025-26", "2025-09-30")]
    balances = office.query("select season, sum(points) as p from balances where organisation = 'autumnclub' group by season")
    # Intermediate, 2 players → column 1: 1st 1.25 vs 3 × .04 → 1.25
    assert dict(zip(balances["season"], balances["p"])) == {"2024-25": D("1.25"), "2025-26": D("1.25")}
    assert (office.state / "publications" / "autumnclub" / "2025-26" / "2025-09" / "index.html").exists()


# --------------------------------------------------------------------------- publication and explain

HOSTILE_SCRIPT = "<script>alert(1)</script>"
HOSTILE_FORMULA = '=HYPERLINK("http://evil.example","x")'


def test_the_publication_escapes_hostile_names(club):
    club.post("ukbgclub/hostile.csv", results_file(
        "2025-05-06", "May Night", rows=[f'"{HOSTILE_FORMULA.replace(chr(34), chr(34) * 2)}",1st,3',
                                         f"{HOSTILE_SCRIPT},2nd,2", "Ann | Ash,,1"]))
    assert club.run_bg().exit_code == nightly.EXIT_OK
    folder = club.state / "publications" / "ukbgclub" / "2025" / "2025-05"
    assert {p.name for p in folder.iterdir()} == {"index.html", "standings.csv", "standings.xlsx", "standings.md"}
    html = (folder / "index.html").read_text(encoding="utf-8")
    # the one script is the shared table enhancement; the hostile one stays text
    assert "<script>alert(1)" not in html and html.count("<script>") == 1 and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert 'name="viewport"' in html
    rows = list(csv.reader(io.StringIO((folder / "standings.csv").read_text(encoding="utf-8-sig"))))
    assert rows[0] == ["club", "season", "as_of", "rank", "rank_label", "player", "events", "matches_won", "points"]
    # Intermediate, 3 players → column 1: 1st 1.25, 2nd 0.63, no place 1 × .04
    assert rows[1] == ["ukbgclub", "2025", "2025-05-31", "1", "1", "'" + HOSTILE_FORMULA, "1", "3", "1.25"]
    assert rows[2] == ["ukbgclub", "2025", "2025-05-31", "2", "2", HOSTILE_SCRIPT, "1", "2", "0.63"]
    md = (folder / "standings.md").read_text(encoding="utf-8")
    assert "\\<script\\>" in md and "<script>" not in md
    assert "Ann \\| Ash" in md


def test_the_standings_csv_marks_ties_as_the_page_does(samples_once):
    # March's race has players level on points: each row's rank is 1 + the players with more
    # points, and its label carries '=' exactly when another row has the same points
    office, _ = samples_once
    path = office.state / "publications" / "ukbgclub" / "2025" / "2025-03" / "standings.csv"
    header, *rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
    at = {name: header.index(name) for name in ("rank", "rank_label", "points")}
    points = [Decimal(r[at["points"]]) for r in rows]
    tied = [r for r, p in zip(rows, points) if points.count(p) > 1]
    assert len(tied) >= 3
    for r, p in zip(rows, points):
        rank = 1 + sum(q > p for q in points)
        assert (r[at["rank"]], r[at["rank_label"]]) == (str(rank), f"{rank}=" if points.count(p) > 1 else str(rank))


def test_explain_adds_the_season_totals(samples_once):
    office, _ = samples_once
    lines = explain_player(office.state / "warehouse.duckdb", "Pia Price")
    assert lines[0] == "Pia Price: 2 ledger line(s)"
    assert lines[-1] == ("UK Backgammon Club club master points race 2025 (as of 2025-03-31): rank 4 of 40, "
                         "2 event(s), 3 match(es) won, 1.88 club_mp in total")


# --------------------------------------------------------------------------- the shipped settings


def test_the_shipped_settings_post_the_samples_with_every_organisation(office):
    """`pointledger run` as shipped (every organisation's settings): the club's files post."""
    post_samples(office)
    result = office.run()
    assert result.exit_code == nightly.EXIT_QUARANTINE
    assert awards_by_event(office, "and organisation = 'ukbgclub'") == EXPECTED
    assert (office.state / "publications" / "ukbgclub" / "2025" / "2025-03" / "index.html").exists()
