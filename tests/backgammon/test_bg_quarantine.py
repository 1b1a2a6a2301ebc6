"""Bad input never raises: every rejected line is quarantined with a reason a secretary can act on.

Each reason is produced from a real malformed file: the sample inbox's malformed post
(data/samples/inbox/ukbgclub/2025/2025-03-25-tuesday-results.csv) and the files in files/.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from pipelines.backgammon import compute_awards, parse_file, parse_match_log, parse_results

MALFORMED_SAMPLE = "2025/2025-03-25-tuesday-results.csv"


_PARSED: dict[str, tuple] = {}


def _parse(bg, rules, name):
    if name not in _PARSED:
        _PARSED[name] = parse_file(name, (bg.FILES / name).read_bytes(), rules=rules)
    tables, quarantine = _PARSED[name]
    assert list(quarantine.columns) == ["source_file", "location", "reason"]
    assert (quarantine["source_file"] == name).all()
    return tables, quarantine


def _reasons(quarantine) -> list[tuple[str, str]]:
    return list(zip(quarantine["location"], quarantine["reason"]))


def _has(quarantine, location: str, *phrases: str) -> bool:
    return any(loc == location and all(p in reason for p in phrases) for loc, reason in _reasons(quarantine))


# --------------------------------------------------------------------------- the sample malformed post
@pytest.fixture(scope="module")
def malformed(bg, rules):
    data = (bg.SAMPLES / MALFORMED_SAMPLE).read_bytes()
    return parse_results(MALFORMED_SAMPLE, data, rules=rules)


@pytest.mark.parametrize(
    "location,phrases",
    [
        # a player listed twice: both lines, since we cannot tell which one is right
        ("line 9", ["Nora Olsen is listed 2 times (lines 9, 18)", "list each player once"]),
        ("line 18", ["Nora Olsen is listed 2 times (lines 9, 18)"]),
        # more players sharing a tie row than it allows
        ("line 11", ["3 players have place '3/4 tie' (lines 11–13)", "allows at most 2"]),
        ("line 12", ["3 players have place '3/4 tie'"]),
        ("line 13", ["3 players have place '3/4 tie'"]),
        # an unreadable number
        ("line 14", ["matches won 'five' is not a whole number", "Sam Reed"]),
        # a place label the table does not have
        ("line 15", ["place '9th' is not a place row of the table", "1st, 1/2 tie, 2nd", "leave their place blank"]),
        # matches won above the rounds played
        ("line 16", ["Uri Stern won 6 matches but the event had 4 round(s)"]),
    ],
)
def test_sample_malformed_post_reasons(malformed, location, phrases):
    assert _has(malformed[1], location, *phrases), _reasons(malformed[1])


def test_sample_malformed_post_rest_still_posts(malformed, rules):
    tables, quarantine = malformed
    assert len(quarantine) == 8
    # Intermediate, method rounds, 4 rounds → column 4 rounds: 2nd 0.75, 5-8 tie 0.19, .04 a match
    awards = compute_awards(tables["events"], tables["players"], rules)
    assert dict(zip(awards["player_id"], awards["points"])) == {
        "Oscar Petit": Decimal("0.75"),
        "Vera Tan": Decimal("0.04"),
        "Walt Udall": Decimal("0.19"),  # "5,6,7,8 tie", the printed label, is accepted
    }
    # the field counts every listed player, rejected lines included: 10 distinct names
    assert tables["events"]["players"].tolist() == [10]


# --------------------------------------------------------------------------- results files
def test_unknown_level(bg, rules):
    tables, quarantine = _parse(bg, rules, "unknown_level.csv")
    assert tables["events"].empty and tables["players"].empty
    assert _has(quarantine, "line 4", "level 'Expert' is not a level of the table", "Advanced/Open, Intermediate, Novice")
    assert _has(quarantine, "lines 8–10", "3 player lines not posted because the event settings are invalid")


def test_missing_settings(bg, rules):
    tables, quarantine = _parse(bg, rules, "missing_settings.csv")
    assert tables["events"].empty
    assert _has(quarantine, "settings", "missing setting 'date'", "# date: ...")
    assert _has(quarantine, "settings", "missing setting 'rounds'")
    assert _has(quarantine, "lines 6, 7", "2 player lines not posted")


def test_unreadable_settings(bg, rules):
    tables, quarantine = _parse(bg, rules, "bad_settings.csv")
    assert tables["events"].empty
    assert _has(quarantine, "line 2", "date '04/01/2025' is not a date like 2025-03-04")
    assert _has(quarantine, "line 5", "method 'best' is not one of: players, rounds, max")
    assert _has(quarantine, "line 6", "unknown setting 'multiplyer' (did you mean 'multiplier'?)")
    assert _has(quarantine, "line 7", "MP bonus multiplier 'one and a half' is not a number")
    assert _has(quarantine, "line 8", "rounds 'four' is not a whole number")
    assert _has(quarantine, "lines 4, 9", "setting 'level' is given 2 times with different values")
    assert _has(quarantine, "line 11", "1 player line not posted")


def test_a_misspelt_setting_holds_the_event_back(bg, rules):
    # the sample championship with '# multiplier: 2' written '# multiplyer: 2': posted with the
    # default multiplier 1, every award would be half of what the club meant
    data = (bg.SAMPLES / "2025/2025-03-04-march-championship.csv").read_bytes().replace(b"# multiplier: 2", b"# multiplyer: 2")
    tables, quarantine = parse_file("march.csv", data, rules=rules, organisation="ukbgclub")
    assert tables["events"].empty and tables["players"].empty
    assert _has(quarantine, "line 8", "unknown setting 'multiplyer' (did you mean 'multiplier'?)", "held back")
    assert _has(quarantine, "lines 12–23", "12 player lines not posted")


def test_overlapping_places_and_places_beyond_the_field(bg, rules):
    tables, quarantine = _parse(bg, rules, "overlapping_places.csv")
    assert tables["players"].empty
    assert _has(quarantine, "line 8", "place '1st' of Ann overlaps '1/2 tie'")
    assert _has(quarantine, "line 9", "place '1/2 tie' of Bob overlaps '1st'")
    assert _has(quarantine, "line 10", "place '1/2 tie' of Cat overlaps '1st'")
    assert _has(quarantine, "line 11", "place '5-8 tie' of Dov needs at least 5 players, but the event has 4")


def test_wrong_number_of_fields_and_blank_player(bg, rules):
    tables, quarantine = _parse(bg, rules, "wrong_fields.csv")
    assert _has(quarantine, "line 8", "expected 3 fields (player, place, matches_won), found 4", "double quotes")
    assert _has(quarantine, "line 9", "found 2: 'Ann,2nd'")
    assert _has(quarantine, "line 10", "the player is blank")
    assert sorted(tables["players"]["player_id"]) == ["Bob", "Jones, Mary"]
    # every line stands for a player, unreadable ones too: Bob, Mary, the blank one, lines 8 and 9
    assert tables["events"]["players"].tolist() == [5]


@pytest.mark.parametrize(
    "name,location,phrase",
    [
        ("bad_header.csv", "file", "found 'Player,Position,Wins'"),
        ("settings_only.csv", "file", "found no table"),
        ("latin1.csv", "file", "not UTF-8 text (byte 0xe9"),
        ("too_early.csv", "line 2", "no rule version is in force on 1999-12-31"),
    ],
)
def test_unusable_files(bg, rules, name, location, phrase):
    tables, quarantine = _parse(bg, rules, name)
    assert all(t.empty for t in tables.values())
    assert _has(quarantine, location, phrase), _reasons(quarantine)


def test_header_problem_seen_by_parse_results_directly(bg, rules):
    data = (bg.FILES / "bad_header.csv").read_bytes()
    tables, quarantine = parse_results("bad_header.csv", data, rules=rules)
    assert _has(quarantine, "line 7", "expected the header line 'player,place,matches_won'", "found 'Player,Position,Wins'")
    assert _has(quarantine, "lines 8, 9", "2 player lines not read because the header line is not recognised")


def test_club_must_match_the_inbox_folder(bg, rules):
    rows = [("Ann", "1st", 3), *bg.filler(3)]
    data = bg.results_bytes(bg.settings(club="otherclub"), rows)
    tables, quarantine = parse_results("x.csv", data, rules=rules, organisation="testclub")
    assert tables["events"].empty
    assert _has(quarantine, "line 1", "the file says club 'otherclub' but it was sent to the inbox of 'testclub'")
    # without a club line the inbox folder names the club
    data = bg.results_bytes(bg.settings(club=None), rows)
    tables, quarantine = parse_results("x.csv", data, rules=rules, organisation="testclub")
    assert quarantine.empty and tables["events"]["organisation"].tolist() == ["testclub"]


# --------------------------------------------------------------------------- match logs
def test_match_log_row_reasons(bg, rules):
    tables, quarantine = _parse(bg, rules, "bad_rows_log.csv")
    expected = {
        "line 7": "date '03/06/2025' is not a date like 2025-03-04",
        "line 8": "round 'first' is not a round number",
        "line 9": "result 'draw' is not one of: blank (played), bye, forfeit",
        "line 10": "the loser is blank but the result is not a bye",
        "line 11": "the result is a bye but a loser ('Kim') is named",
        "line 12": "'Lea' is both winner and loser",
        "line 13": "the winner is blank",
        "line 14": "match length 'seven' is not a number of points",
        "line 6": "bracket 'main' of 2025-06-03 not posted (1 match line)",
    }
    for location, phrase in expected.items():
        assert _has(quarantine, location, phrase), (location, _reasons(quarantine))
    # the side bracket is untouched and posts
    assert tables["events"]["bracket"].tolist() == ["side"]


@pytest.mark.parametrize(
    "location,phrase",
    [
        ("line 6", "Ann won in round 1 of bracket 'typo' but has no match in round 2; check the spelling"),
        ("line 8", "Anne plays in round 2 of bracket 'typo' but did not win (or have a bye) in round 1"),
        ("line 11", "Bob plays in round 2 of bracket 'again' after losing in round 1"),
        ("line 12", "the last round (1) of bracket 'nofinal' must be the final, one played or forfeited match; found 2 line(s)"),
        ("line 14", "Ann plays 2 times in round 1 of bracket 'twice'"),
        ("line 16", "bracket 'gap' has no match in round 2"),
        ("line 20", "found 1 line(s), one of them a bye"),
        ("lines 6–8", "bracket 'typo' of 2025-06-03 not posted (3 match lines)"),
        ("lines 9–11", "bracket 'again' of 2025-06-03 not posted"),
        ("lines 12, 13", "bracket 'nofinal' of 2025-06-03 not posted"),
        ("lines 14, 15", "bracket 'twice' of 2025-06-03 not posted"),
        ("lines 16–18", "bracket 'gap' of 2025-06-03 not posted"),
        ("lines 19, 20", "bracket 'byefinal' of 2025-06-03 not posted"),
    ],
)
def test_match_log_bracket_reasons(bg, rules, location, phrase):
    tables, quarantine = _parse(bg, rules, "broken_bracket_log.csv")
    assert _has(quarantine, location, phrase), _reasons(quarantine)
    assert tables["events"]["bracket"].tolist() == ["fine"]


def test_match_log_stated_place_reasons(bg, rules):
    tables, quarantine = _parse(bg, rules, "bad_places_log.csv")
    assert _has(quarantine, "line 5", "place 'champion' is not a place row of the table")
    assert _has(quarantine, "line 6", "Zed has no match in bracket 'rr' of 2025-06-03")
    for line in ("line 7", "line 8", "line 9"):
        assert _has(quarantine, line, "3 players have place '3/4 tie' (lines 7–9)", "allows at most 2")
    assert _has(quarantine, "lines 12, 13", "bracket 'rr' of 2025-06-03 not posted")
    assert _has(quarantine, "lines 14, 15", "bracket 'three' of 2025-06-03 not posted")
    # a bracket with correct stated places still posts
    assert tables["players"].set_index("player_id")["place_row"].to_dict()["Ann"] == "1st"


def test_malformed_place_line_blocks_every_bracket(bg, rules):
    tables, quarantine = _parse(bg, rules, "malformed_place_line_log.csv")
    assert tables["events"].empty
    assert _has(quarantine, "line 5", "expected '# place: bracket, player, place'", "found 'Ann first'")
    assert _has(quarantine, "line 7", "bracket 'main' of 2025-06-03 not posted (1 match line)")


def test_stated_place_needs_a_date_when_the_bracket_is_on_several_dates(rules):
    data = (
        "# club: testclub\n# event: Club Night\n# level: Novice\n# method: players\n"
        "# place: main, Ann, 1st\n"
        "date,bracket,round,winner,loser,match_length,result\n"
        "2025-06-03,main,1,Ann,Bob,5,\n2025-06-10,main,1,Bob,Ann,5,\n"
    ).encode()
    tables, quarantine = parse_match_log("l.csv", data, rules=rules)
    assert tables["events"].empty
    assert _has(quarantine, "line 5", "is played on 2 dates in this log; write the date first")


# --------------------------------------------------------------------------- robustness
def _data_lines(data: bytes) -> set[int]:
    text = data.decode("utf-8-sig")
    lines = [(i, ln.strip()) for i, ln in enumerate(text.splitlines(), start=1)]
    body = [(i, ln) for i, ln in lines if ln and not ln.startswith("#")]
    return {i for i, ln in body[1:] if ln.strip(",; \t")}


def _accounted(bg, tables, quarantine) -> set[int]:
    seen: set[int] = set()
    posted = tables["matches"] if "matches" in tables else tables["players"]
    for location in [*posted["location"], *quarantine["location"]]:
        seen |= bg.expand_lines(location)
    return seen


def _all_inputs(bg):
    files = sorted((bg.SAMPLES / "2025").glob("*.csv")) + sorted(bg.FILES.glob("*.csv"))
    return [(p.name, p.read_bytes()) for p in files]


def test_nothing_is_lost(bg, rules):
    """Every table line of every file is posted or quarantined."""
    for name, data in _all_inputs(bg):
        tables, quarantine = parse_file(name, data, rules=rules)
        if quarantine["location"].eq("file").any():
            continue  # the whole file is quarantined
        missing = _data_lines(data) - _accounted(bg, tables, quarantine)
        assert not missing, (name, sorted(missing))


def _mutations(data: bytes):
    """Damaged copies of a file: a line dropped, doubled or reversed; the file cut short."""
    lines = data.decode("utf-8").splitlines(keepends=True)
    for i in range(0, len(lines), 4):
        yield "drop", b"".join(x.encode() for j, x in enumerate(lines) if j != i)
    for i in range(1, len(lines), 6):
        yield "double", b"".join(x.encode() * (2 if j == i else 1) for j, x in enumerate(lines))
    for i in range(2, len(lines), 6):
        yield "swap", b"".join(
            (",".join(reversed(x.rstrip("\n").split(","))) + "\n").encode() if j == i else x.encode()
            for j, x in enumerate(lines)
        )
    for cut in range(0, len(data), max(1, len(data) // 4)):
        yield "cut", data[:cut]


@pytest.mark.parametrize(
    "sample", ["2025-03-04-march-championship.csv", "2025-03-11-tuesday-match-log.csv"]
)
def test_mutated_files_never_raise(bg, rules, sample):
    data = (bg.SAMPLES / "2025" / sample).read_bytes()
    for kind, mutated in _mutations(data):
        tables, quarantine = parse_file("m.csv", mutated, rules=rules)
        assert list(quarantine.columns) == ["source_file", "location", "reason"], kind
        if len(tables["players"]):
            compute_awards(tables["events"], tables["players"], rules)


@pytest.mark.parametrize("data", [b"", b"\n\n", bytes(range(256)), b"\xef\xbb\xbf", b"#", b"# club: x\n", b",,,\n,,,\n"])
@pytest.mark.parametrize("parser", [parse_results, parse_match_log, parse_file])
def test_junk_never_raises(rules, parser, data):
    tables, quarantine = parser("junk.csv", data, rules=rules)
    assert len(quarantine) >= 1
    assert all(t.empty for t in tables.values())


def test_a_rejected_line_is_not_echoed_by_the_bracket_checks(rules):
    data = (
        "# club: testclub\n# event: Club Night\n# level: Novice\n# method: players\n"
        "date,bracket,round,winner,loser,match_length,result\n"
        "2025-06-03,main,1,Ann,Bob,5,\n2025-06-03,main,1,Cat,Dov,5,\n2025-06-03,main,two,Ann,Cat,5,\n"
    ).encode()
    tables, quarantine = parse_match_log("l.csv", data, rules=rules)
    assert tables["events"].empty
    assert _reasons(quarantine) == [
        ("lines 6, 7", "bracket 'main' of 2025-06-03 not posted (2 match lines) because of the problems "
                       "reported for this log; correct them and send the log again"),
        ("line 8", "round 'two' is not a round number (1, 2, 3, ... up to 99)"),
    ]
