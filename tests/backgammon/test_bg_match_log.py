"""Match logs: matches won, rounds, players and places derived from the logged matches.

The sample log (data/samples/inbox/ukbgclub/2025/2025-03-11-tuesday-match-log.csv) is a
16-player single-elimination main bracket and a 7-player consolation for first-round losers
(Hugo went home; Finn had a bye). Omar forfeited his quarter-final to Mia.
"""

from __future__ import annotations

from decimal import Decimal

import pandas as pd
import pytest

from pipelines.backgammon import compute_awards, detect_format, parse_file, parse_match_log

MAIN = "ukbgclub/2025-03-11/tuesday-night-tournament/main"
CONSOLATION = "ukbgclub/2025-03-11/tuesday-night-tournament/consolation"


@pytest.fixture(scope="module")
def sample(bg, rules):
    data = (bg.SAMPLES / "2025" / "2025-03-11-tuesday-match-log.csv").read_bytes()
    tables, quarantine = parse_match_log("2025/2025-03-11-tuesday-match-log.csv", data, rules=rules)
    return tables, quarantine


def test_sample_log_parses_cleanly(sample):
    tables, quarantine = sample
    assert quarantine.empty, quarantine.to_dict("records")
    assert sorted(tables["events"]["event_id"]) == [CONSOLATION, MAIN]
    assert len(tables["matches"]) == 22  # every logged line, byes and forfeits included


def test_sample_events_players_and_rounds(sample):
    events = sample[0]["events"].set_index("event_id")
    # main: 16 entrants, 4 rounds (R1, QF, SF, final); consolation: 7 entrants, 3 rounds
    assert events.loc[MAIN, ["players", "rounds"]].tolist() == [16, 4]
    assert events.loc[CONSOLATION, ["players", "rounds"]].tolist() == [7, 3]
    assert set(events["event_date"]) == {pd.Timestamp("2025-03-11")}
    assert set(events["level"]) == {"Intermediate"}
    assert set(events["method"]) == {"max"}
    assert set(events["multiplier"]) == {Decimal("1.5")}
    assert set(events["organisation"]) == {"ukbgclub"}


MAIN_EXPECTED = {
    # player: (place row, matches won). Mia: R1 win, QF by forfeit (not a match won), SF, final.
    "Mia Moreau": ("1st", 3),
    "Alice Archer": ("2nd", 3),
    "Eve Evans": ("3/4 tie", 2),
    "Ivan Ilic": ("3/4 tie", 2),
    "Chloe Chen": ("5-8 tie", 1),
    "Gita Gupta": ("5-8 tie", 1),
    "Kai Kumar": ("5-8 tie", 1),
    "Omar Osei": ("5-8 tie", 1),  # lost the quarter-final by forfeit: still a quarter-final loser
    "Ben Baxter": (None, 0),
    "Dan Doyle": (None, 0),
    "Finn Fraser": (None, 0),
    "Hugo Hart": (None, 0),
    "Jade Jones": (None, 0),
    "Liam Lowe": (None, 0),
    "Noah Nash": (None, 0),
    "Pia Price": (None, 0),
}
CONSOLATION_EXPECTED = {
    "Pia Price": ("1st", 3),
    "Finn Fraser": ("2nd", 1),  # round-1 bye is not a match won
    "Ben Baxter": ("3/4 tie", 1),
    "Jade Jones": ("3/4 tie", 1),
    "Dan Doyle": ("5-8 tie", 0),  # 3 rounds: round 1 is the quarter-final
    "Liam Lowe": ("5-8 tie", 0),
    "Noah Nash": ("5-8 tie", 0),
}


@pytest.mark.parametrize("event_id,expected", [(MAIN, MAIN_EXPECTED), (CONSOLATION, CONSOLATION_EXPECTED)])
def test_sample_places_and_matches_won(sample, event_id, expected):
    players = sample[0]["players"]
    players = players[players["event_id"] == event_id].set_index("player_id")
    got = {p: (None if pd.isna(r["place_row"]) else r["place_row"], r["matches_won"]) for p, r in players.iterrows()}
    assert got == expected


def test_sample_awards_hand_computed(sample, rules):
    tables = sample[0]
    awards = compute_awards(tables["events"], tables["players"], rules).set_index(["event_id", "player_id"])["points"]
    # main: Intermediate, max(16 players → column 12–23, 4 rounds → column 4 rounds) = column 2:
    # 1st 1.50, 2nd 0.75, 3/4 tie 0.38, 5-8 tie 0.19, .04 a match; × 1.5, half-up.
    main = {
        "Mia Moreau": "2.25",    # 1.50 vs 0.12 → 1.50 × 1.5
        "Alice Archer": "1.13",  # 0.75 × 1.5 = 1.125 → 1.13
        "Eve Evans": "0.57",     # 0.38 × 1.5
        "Ivan Ilic": "0.57",
        "Chloe Chen": "0.29",    # 0.19 × 1.5 = 0.285 → 0.29
        "Gita Gupta": "0.29",
        "Kai Kumar": "0.29",
        "Omar Osei": "0.29",
    }
    # consolation: max(7 players → column 1–11, 3 rounds → column 3 rounds) = column 1:
    # 1st 1.25, 2nd 0.63, 3/4 tie 0.31, 5-8 tie 0.16; × 1.5
    consolation = {
        "Pia Price": "1.88",     # 1.25 × 1.5 = 1.875 → 1.88
        "Finn Fraser": "0.95",   # 0.63 × 1.5 = 0.945 → 0.95
        "Ben Baxter": "0.47",    # 0.31 × 1.5 = 0.465 → 0.47
        "Jade Jones": "0.47",
        "Dan Doyle": "0.24",     # 0.16 × 1.5
        "Liam Lowe": "0.24",
        "Noah Nash": "0.24",
    }
    for player in MAIN_EXPECTED:
        assert awards[(MAIN, player)] == Decimal(main.get(player, "0.00")), player
    for player, value in consolation.items():
        assert awards[(CONSOLATION, player)] == Decimal(value), player
    assert len(awards) == 16 + 7


def test_byes_and_forfeits_are_logged_but_not_matches_won(sample):
    matches = sample[0]["matches"]
    assert matches.loc[matches["result"] == "bye", ["winner", "round"]].values.tolist() == [["Finn Fraser", 1]]
    assert matches.loc[matches["result"] == "bye", "loser"].isna().all()
    forfeit = matches[matches["result"] == "forfeit"]
    assert forfeit[["winner", "loser", "round"]].values.tolist() == [["Mia Moreau", "Omar Osei", 2]]


def test_detect_format_and_parse_file(bg, rules):
    log = (bg.SAMPLES / "2025" / "2025-03-11-tuesday-match-log.csv").read_bytes()
    results = (bg.SAMPLES / "2025" / "2025-03-04-march-championship.csv").read_bytes()
    assert detect_format(log) == "match_log"
    assert detect_format(results) == "results"
    assert detect_format(b"a,b,c\n1,2,3\n") is None
    tables, quarantine = parse_file("x.csv", log, rules=rules)
    assert quarantine.empty and len(tables["events"]) == 2
    tables, quarantine = parse_file("x.csv", b"hello,world\n1,2\n", rules=rules)
    assert tables["events"].empty
    assert quarantine["reason"].str.contains("not a backgammon results file or match log").all()


# ------------------------------------------------------------------------------- small logs
HEAD = "# club: testclub\n# event: Club Night\n# level: Novice\n# method: players\n"
COLS = "date,bracket,round,winner,loser,match_length,result\n"


def _log(body: str, head: str = HEAD) -> bytes:
    return (head + COLS + body).encode()


def test_four_player_bracket_with_case_insensitive_names(rules):
    body = (
        "2025-06-03,main,1,Ann,Bob,5,\n"
        "2025-06-03,main,1,Cat,Dov,5,\n"
        "2025-06-03,main,2,ann,CAT,7,\n"
    )
    tables, quarantine = parse_match_log("l.csv", _log(body), rules=rules)
    assert quarantine.empty, quarantine.to_dict("records")
    players = tables["players"].set_index("player_id")
    # the first spelling names the player
    assert players["place_row"].to_dict() == {"Ann": "1st", "Bob": "3/4 tie", "Cat": "2nd", "Dov": "3/4 tie"}
    assert players["matches_won"].to_dict() == {"Ann": 2, "Bob": 0, "Cat": 1, "Dov": 0}
    assert tables["events"][["players", "rounds"]].values.tolist() == [[4, 2]]


def test_several_dates_make_several_events(rules):
    body = "2025-06-03,main,1,Ann,Bob,5,\n2025-06-10,main,1,Bob,Ann,5,\n"
    tables, quarantine = parse_match_log("l.csv", _log(body), rules=rules)
    assert quarantine.empty
    assert sorted(tables["events"]["event_id"]) == [
        "testclub/2025-06-03/club-night/main",
        "testclub/2025-06-10/club-night/main",
    ]
    places = tables["players"].set_index(["event_id", "player_id"])["place_row"]
    assert places[("testclub/2025-06-10/club-night/main", "Bob")] == "1st"


def test_stated_places_replace_the_derived_ones(rules):
    """A round robin: every player meets every other; the director states the places."""
    head = HEAD + "# place: main, Cat, 1st\n# place: main, Ann, 2nd\n# place: main, Bob, 3rd\n"
    body = (
        "2025-06-03,main,1,Ann,Bob,5,\n"
        "2025-06-03,main,2,Cat,Ann,5,\n"
        "2025-06-03,main,3,Cat,Bob,5,\n"
    )
    tables, quarantine = parse_match_log("l.csv", _log(body, head), rules=rules)
    assert quarantine.empty, quarantine.to_dict("records")
    players = tables["players"].set_index("player_id")
    assert players["place_row"].to_dict() == {"Ann": "2nd", "Bob": "3rd", "Cat": "1st"}
    assert players["matches_won"].to_dict() == {"Ann": 1, "Bob": 0, "Cat": 2}
    assert players.loc["Cat", "location"] == "line 5"  # the line that states the place
    # Novice, 3 players → column 1: 1st 0.50, 2nd 0.25, 3rd 0.17
    awards = compute_awards(tables["events"], tables["players"], rules).set_index("player_id")["points"]
    assert awards.to_dict() == {"Ann": Decimal("0.25"), "Bob": Decimal("0.17"), "Cat": Decimal("0.50")}


def test_a_bye_can_be_marked_by_the_result_or_by_bye_as_loser(rules):
    body = (
        "2025-06-03,main,1,Ann,Bob,5,\n"
        "2025-06-03,main,1,Cat,,,bye\n"
        "2025-06-03,main,2,Cat,Ann,5,\n"
        "2025-06-03,side,1,Dov,bye,,\n"
        "2025-06-03,side,2,Dov,Eve,3,\n"
        "2025-06-03,side,1,Eve,Fay,3,\n"
    )
    tables, quarantine = parse_match_log("l.csv", _log(body), rules=rules)
    assert quarantine.empty, quarantine.to_dict("records")
    players = tables["players"].set_index(["event_id", "player_id"])["matches_won"]
    assert players[("testclub/2025-06-03/club-night/main", "Cat")] == 1
    assert players[("testclub/2025-06-03/club-night/side", "Dov")] == 1
    assert (tables["matches"]["result"] == "bye").sum() == 2
