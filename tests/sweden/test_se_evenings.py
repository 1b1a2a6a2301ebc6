"""Two consecutive short competitions with the same pairs counted as one (seed p. 6: "Om färre än 18
brickor spelas, må två på varandra följande tävlingar med samma par räknas som en tävling och
bronspoäng utdelas enligt tabell A1 eller A2"), through the nightly run.

Expected values by hand from Tabell A1's principle (winner 2 × pairs, each next place ⌈⅔ × the place
above⌉, at least 4, ⌈pairs / 3⌉ places):
14 pairs: 28; ⌈56/3⌉ = 19; ⌈38/3⌉ = 13; ⌈26/3⌉ = 9; ⌈18/3⌉ = 6; ⌈14/3⌉ = 5 places (printed row 14: 28 19 13 9 6).
"""
from __future__ import annotations

import pytest

from office import Office
from se_helpers import MEMBERS, ORG, register


def _list(n: int, places=None, evening2=None) -> str:
    places = places or [str(i + 1) for i in range(n)]
    rows = ["plac;par;medlemmar;kväll1;kväll2"]
    for i in range(n):
        e2 = (evening2 or {}).get(i + 1, f"{50 - i}")
        rows.append(f"{places[i]};{i + 1};{MEMBERS[2 * i]} {MEMBERS[2 * i + 1]};{60 - i};{e2}")
    return "\n".join(rows) + "\n"


def _scores(rows) -> str:
    """A list of (place, evening 1, evening 2) as given, the pair numbered by its line."""
    return "plac;par;medlemmar;kväll1;kväll2\n" + "".join(
        f"{place};{i + 1};{MEMBERS[2 * i]} {MEMBERS[2 * i + 1]};{e1};{e2}\n" for i, (place, e1, e2) in enumerate(rows))


def _post(office, name, event: str, standings: str):
    office.post(f"{ORG}/bk-lavec/{name}.event.txt", event)
    office.post(f"{ORG}/bk-lavec/{name}.standings.csv", standings + f"# {name}\n")  # not a duplicate of another list


def _bp(office, name, n):
    df = office.query("select r.entrant, coalesce(max(a.points), 0) as p, count(a.points) as lines from se_results r "
                      "left join awards a on a.event_id = r.event_id and list_contains(r.members, a.player_id) "
                      "and a.denomination = 'bp' where r.event_id = ? group by r.entrant order by cast(r.entrant as int)",
                      [f"{ORG}/bk-lavec/{name}"])
    assert all(lines in (0, 2) for lines in df["lines"])  # both players of a pair, or neither
    return [int(v) for v in df["p"]][:n]


def _quarantine(office, *names):
    """The quarantine rows of these events' files."""
    files = [f"{ORG}/bk-lavec/{name}.{kind}" for name in names for kind in ("event.txt", "standings.csv")]
    return office.query("select source_file, location, reason from quarantine where source_file in (select unnest(?)) "
                        "order by source_file, location", [files])


def _awards(office, *names) -> int:
    return office.query("select count(*) as n from awards where event_id in (select unnest(?))",
                        [[f"{ORG}/bk-lavec/{name}" for name in names]])["n"][0]


EVENT = "nivå: brons\nform: par\nkvällar: 2024-10-01 12, 2024-10-08 12\nnamn: Två tisdagar\n"
LINE_BY_LINE = {
    "lang": ("kvällar: 2024-10-01 18, 2024-10-08 12\n", "each evening must have fewer than 18 boards, found 18 on 2024-10-01"),
    "kort": ("kvällar: 2024-10-01 8, 2024-10-08 8\n", "together must have at least 18 boards, found 8 + 8 = 16"),
    "ordning": ("kvällar: 2024-10-08 12, 2024-10-01 12\n", "the first evening before the second, found 2024-10-08 then 2024-10-01"),
    "tre": ("kvällar: 2024-10-01 8, 2024-10-03 8, 2024-10-08 8\n", "expected two evenings as 'YYYY-MM-DD boards, YYYY-MM-DD boards'"),
    "brickor": ("kvällar: 2024-10-01 12, 2024-10-08 12\nbrickor: 12\n", "12 + 12 = 24 (or leave brickor out), found 12"),
    "datum": ("kvällar: 2024-10-01 12, 2024-10-08 12\ndatum: 2024-10-01\n", "expected 2024-10-08 (or leave datum out), found 2024-10-01"),
}


@pytest.fixture(scope="module")
def night(tmp_path_factory) -> Office:
    """Every test's events in one office and one nightly run (one club's lists of a season, good and
    bad): each test reads its own events' lines and quarantine rows."""
    office = Office(tmp_path_factory.mktemp("evenings"))
    register(office)
    _post(office, "dubbel", EVENT, _list(14))
    _post(office, "delad", EVENT + "datum: 2024-10-08\nbrickor: 24\n",
          _list(14, places=["1", "2=", "2="] + [str(i) for i in range(4, 15)]))
    _post(office, "saknas", EVENT, _list(14, evening2={5: "-"}))
    _post(office, "utan-kvallar", EVENT, "plac;par;medlemmar\n" + "".join(f"{i + 1};{i + 1};{MEMBERS[2 * i]} {MEMBERS[2 * i + 1]}\n"
                                                                          for i in range(14)))
    _post(office, "glest", EVENT.replace("2024-10-08", "2024-10-29"), _list(14))
    for name, (lines, _) in LINE_BY_LINE.items():
        _post(office, name, "nivå: brons\nform: par\n" + lines, _list(14))
    _post(office, "silver", "nivå: silver\nform: par\nkvällar: 2024-10-01 12, 2024-10-08 12\n", _list(14))
    _post(office, "en-kort", "datum: 2024-10-01\nnivå: brons\nform: par\nbrickor: 12\n", _list(14))
    # pair 4 (place 4) scored 57 + 60 = 117, more than each pair placed above it (110, 108, 106)
    _post(office, "fel-ordning", EVENT, _list(14, evening2={4: "60"}))
    # scores with a decimal comma and a percent sign, in order; one that is not a number
    _post(office, "komma", EVENT, _scores([(1, "61,5 %", "55,25 %"), (2, "60,0 %", "54,5 %"), (3, "59,75", "53")]
                                          + [(k, str(60 - k), str(50 - k)) for k in range(4, 15)]))
    _post(office, "text", EVENT, _scores([(1, "61", "55"), (2, "sextio", "54")] + [(k, str(60 - k), str(50 - k)) for k in range(3, 15)]))
    # 10 and 14 boards: the winner 50 + 59 = 109 (weighted 50 × 10 + 59 × 14 = 1326) above a pair
    # with 60 + 50 = 110 (600 + 700 = 1300): ranked by the combined percentage, which a club may do
    _post(office, "vagd", "nivå: brons\nform: par\nkvällar: 2024-10-01 10, 2024-10-08 14\n",
          _scores([(1, "50", "59"), (2, "60", "50")] + [(k, str(50 - k), str(45 - k)) for k in range(3, 15)]))
    office.run()
    return office


def test_two_evenings_of_12_boards_are_one_competition_by_table_a1(night):
    assert _quarantine(night, "dubbel").empty
    assert _bp(night, "dubbel", 14) == [28, 19, 13, 9, 6] + [0] * 9
    ev = night.query("select event_date, boards from se_results where event_id like '%/dubbel' limit 1")
    assert str(ev["event_date"][0]) == "2024-10-08" and int(ev["boards"][0]) == 24  # dated by the second evening, 12 + 12 boards


def test_shared_place_in_a_double_evening(night):
    # places 2= and 2= share A1 row 14's 19 and 13: (19 + 13) / 2 = 16 each
    assert _quarantine(night, "delad").empty
    assert _bp(night, "delad", 6) == [28, 16, 16, 9, 6, 0]


def test_a_pair_missing_on_one_evening_is_not_the_same_pairs(night):
    q = _quarantine(night, "saknas")
    line = q[(q["source_file"].str.endswith("saknas.standings.csv")) & (q["location"] == "line 6")]
    assert len(line) == 1
    assert "pair 5 has no score on evening 2 (2024-10-08)" in line["reason"].iloc[0] and "same pairs" in line["reason"].iloc[0]
    assert _awards(night, "saknas") == 0


def test_evening_columns_are_required(night):
    reasons = " | ".join(_quarantine(night, "utan-kvallar")["reason"])
    assert "needs the columns kväll1 and kväll2" in reasons


def test_evenings_not_consecutive(night):
    # 2024-10-01 and 2024-10-29 are 28 days apart: more than double_evening_max_days (14)
    q = _quarantine(night, "glest")
    reasons = " | ".join(q["reason"])
    assert "at most 14 days apart, found 2024-10-01 and 2024-10-29 (28 days)" in reasons
    assert "bk-lavec/glest.event.txt line 3" in reasons  # the event file and the kvällar line


def test_event_file_of_two_evenings_is_checked_line_by_line(night):
    q = _quarantine(night, *LINE_BY_LINE, "silver")
    for name, (_, reason) in LINE_BY_LINE.items():
        rows = q[q["source_file"].str.endswith(f"/{name}.event.txt")]
        assert any(reason in r for r in rows["reason"]), (name, list(rows["reason"]))
        assert all(loc.startswith("line ") for loc in rows["location"])
    silver = q[q["source_file"].str.endswith("/silver.event.txt")]
    assert any("one bronze pairs competition" in r for r in silver["reason"])
    assert _awards(night, *LINE_BY_LINE, "silver") == 0


def test_one_short_evening_alone_points_to_the_double_evening_form(night):
    reasons = " | ".join(_quarantine(night, "en-kort")["reason"])
    assert "at least 18 boards are needed" in reasons and "kvällar:" in reasons


def test_the_places_follow_the_two_evenings_scores_together(night):
    q = _quarantine(night, "fel-ordning")
    rows = q[q["source_file"].str.endswith("fel-ordning.standings.csv")]
    assert list(rows["location"]) == ["line 5"]  # pair 4 only: the pairs below it scored less
    assert ("pair 4 is placed 4 with 57 + 60 = 117, below pair 3 (place 3) with 58 + 48 = 106"
            in rows["reason"].iloc[0])
    assert _awards(night, "fel-ordning") == 0


def test_scores_with_a_decimal_comma_or_percent_sign_are_read(night):
    assert _quarantine(night, "komma").empty
    assert _bp(night, "komma", 6) == [28, 19, 13, 9, 6, 0]


def test_a_score_that_is_not_a_number_is_named(night):
    q = _quarantine(night, "text")
    line = q[q["source_file"].str.endswith("text.standings.csv") & (q["location"] == "line 3")]
    assert "expected pair 2's score on evening 1 (2024-10-01) as a number" in line["reason"].iloc[0]
    assert "found 'sextio'" in line["reason"].iloc[0]


def test_evenings_of_different_boards_may_rank_by_the_combined_percentage(night):
    assert _quarantine(night, "vagd").empty
    assert _bp(night, "vagd", 6) == [28, 19, 13, 9, 6, 0]
