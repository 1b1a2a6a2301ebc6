"""The rally bonus (seed p. 5, "Rallytävlingar"), through the nightly run.

"Rallytävlingar på distriktsnivå får bonus i guld på följande villkor. Rallyt ska omfatta minst sex
silvertävlingar, det får inte vara april- eller oktobersilvertävlingar. Rallyt är individuellt när det
gäller bonus. Distriktet måste vid rapporttillfället meddela kansliet att bonusen inte är
rankinggrundande. Rallybonus vid totalt antal startande par 1 gp 96-100 par 2 och 1 gp 101-200 par
3, 2 och 1 gp över 200 par. Om lagtävling ingår räknas två gånger antal lag för att erhålla
motsvarande antal par. 8 lag likställs med 16 par. Om en individuell tävling ingår, delas antalet
spelare med två för att erhålla motsvarande antal par." Shared places (same page): "Par som delar en
placering, delar lika på de poäng som de berörda placeringarna ger tillsammans och alla decimaler
avrundas uppåt."
"""
from __future__ import annotations

from fractions import Fraction

import pytest
from se_helpers import ORG, post_event, register

from pipelines.sweden import rally as RB
from pipelines.sweden.rules import load_rules

SILVER = {"nivå": "silver", "form": "par", "brickor": "42", "sanktion": "SBF-S-2024"}
DATES = ["2024-09-14", "2024-10-05", "2024-11-09", "2024-12-07", "2025-01-11", "2025-02-08", "2025-03-08"]


def _silver_events(office, pairs: list[int], club="bk-lavec", prefix="rally", **extra) -> list[str]:
    names = []
    for i, n in enumerate(pairs):
        name = f"{prefix}-{i + 1}"
        post_event(office, club, name, n, datum=DATES[i], **dict(SILVER, **extra))
        names.append(f"{club}/{name}")
    return names


def _rally(office, name: str, events: list[str], district="Stockholm", **places) -> None:
    text = f"namn: {name}\ndistrikt: {district}\ntävlingar: {', '.join(events)}\n"
    text += "".join(f"{k}: {v}\n" for k, v in places.items())
    office.post(f"{ORG}/stockholm/{name}.rally.txt", text)


def _bonus(office, name: str) -> dict[str, int]:
    df = office.query("select player_id, denomination, points from awards where event_id = ?", [f"{ORG}/stockholm/{name}"])
    assert set(df["denomination"]) <= {"gp"}
    return {p: int(v) for p, v in zip(df["player_id"], df["points"])}


def _quarantine(office) -> list[str]:
    return list(office.query("select reason from quarantine")["reason"])


def test_the_bands_and_the_equivalents_by_hand():
    rules = load_rules()
    assert RB.bonus_places(rules, "se-2009", Fraction(95)) == []
    assert RB.bonus_places(rules, "se-2009", Fraction(96)) == [1]
    assert RB.bonus_places(rules, "se-2009", Fraction(100)) == [1]
    assert RB.bonus_places(rules, "se-2009", Fraction(101)) == [2, 1]
    assert RB.bonus_places(rules, "se-2009", Fraction(200)) == [2, 1]
    assert RB.bonus_places(rules, "se-2009", Fraction(401, 2)) == [3, 2, 1]  # 200.5: "över 200"
    assert RB.bonus_places(rules, "se-2009", Fraction(201)) == [3, 2, 1]
    # "8 lag likställs med 16 par"; 15 players are 7.5 pairs (a half pair does not reach the next band:
    # 100.5 pairs is in the 96-100 row, our decision, docs/sweden.md)
    assert RB.equivalent_pairs("lagbarometer", 8, rules, "se-2009") == 16
    assert RB.equivalent_pairs("individuell", 15, rules, "se-2009") == Fraction(15, 2)
    assert RB.bonus_places(rules, "se-2009", Fraction(201, 2)) == [1]
    # a shared first place of two shares 2 + 1 gp: 1.5, rounded up to 2 each
    assert RB.bonus_lines([(1, ["1", "2"])], [2, 1]) == [("1", 1, 2, "place 1= of 2: (2 + 1) / 2 = 1.5 → 2 gp"),
                                                         ("2", 1, 2, "place 1= of 2: (2 + 1) / 2 = 1.5 → 2 gp")]


def test_six_silver_events_of_16_pairs_are_96_pairs_one_gold_point(office):
    register(office)
    events = _silver_events(office, [16] * 6)
    office.run()
    _rally(office, "silverrallyt", events, plac_1="200000", plac_2="200001")
    office.run()
    assert _quarantine(office) == []
    assert _bonus(office, "silverrallyt") == {"200000": 1}  # 96-100 pairs: the winner only
    basis = office.query("select basis from awards where event_id = ?", [f"{ORG}/stockholm/silverrallyt"])["basis"][0]
    assert "6 silver events, 96 pairs (16 + 16 + 16 + 16 + 16 + 16) → 1 gp" in basis
    # a bonus is no result of the ranking (seed section 7)
    ranked = office.query("select count(*) as n from se_ranking_results where event_id like ?", [f"{ORG}/stockholm/%"])
    assert ranked["n"][0] == 0


def test_a_team_event_counts_twice_and_a_shared_first_place(office):
    register(office)
    # 5 × 17 pairs + a silver team barometer of 8 teams (= 16 pairs) = 101 pairs: 2 and 1 gp
    events = _silver_events(office, [17] * 5)
    post_event(office, "bk-lavec", "rally-lag", 8, per=4, start=100, datum=DATES[5],
               **dict(SILVER, form="lagbarometer", matcher="7"))
    office.run()
    assert _quarantine(office) == []
    _rally(office, "lagrallyt", events + ["bk-lavec/rally-lag"], plac_1="200000 200001", plac_3="200002")
    office.run()
    assert _quarantine(office) == []
    # the two winners share places 1 and 2: (2 + 1) / 2 = 1.5 → 2 gp each; the 3rd place gets nothing
    assert _bonus(office, "lagrallyt") == {"200000": 2, "200001": 2}


def test_above_200_pairs_three_places_in_the_same_night(office):
    register(office)
    events = _silver_events(office, [34] * 6)  # 204 pairs
    _rally(office, "storrallyt", events, plac_1="200010", plac_2="200020", plac_3="200030")
    office.run()
    assert _quarantine(office) == []
    assert _bonus(office, "storrallyt") == {"200010": 3, "200020": 2, "200030": 1}


RALLY_FAULTS = {
    "five": "a rally must comprise at least 6 silver events, found 5",
    "april": "rally-april is an April or October silver event, which a rally may not comprise",
    "missing": "bk-lavec/inte-spelad has no posted result list (yet): send this rally file again once it is posted",
    "district": "is of club 10004 in district 'Skåne', not 'Stockholm'",
    "bronze": "rally-brons is a brons event; a rally comprises silver events",
    "order": "plac_3: expected plac_2 next",
    "nothing": "distrikt: expected the district that runs the rally",
}


@pytest.fixture(scope="module")
def faulty_rallies(tmp_path_factory):
    """One office, two nights: the silver events (and an April, a Skåne and a bronze one), then a
    rally file per fault, each quarantined on its own. One office for all the faults: a rally file
    reads only the events it names, so the faults cannot meet."""
    from office import Office

    office = Office(tmp_path_factory.mktemp("rally-faults"))
    register(office)
    events = _silver_events(office, [16] * 6)
    post_event(office, "bk-lavec", "rally-april", 16, datum="2025-04-12", ranking="april-oktober-silver", **SILVER)
    skane = _silver_events(office, [16], club="malmo-bk", prefix="skane")
    post_event(office, "bk-lavec", "rally-brons", 16, datum="2025-04-12", nivå="brons")
    office.run()
    first_night = _quarantine(office)
    named = {
        "five": (events[:5], {}),
        "april": (events[:5] + ["bk-lavec/rally-april"], {}),
        "missing": (events + ["bk-lavec/inte-spelad"], {}),
        "district": (events[:5] + skane, {}),
        "bronze": (events[:5] + ["bk-lavec/rally-brons"], {}),
        "order": (events, {"plac_3": "200001"}),
        "nothing": (events, {"distrikt": ""}),
    }
    for case, (listed, changes) in named.items():
        places = {"plac_1": "200000", **{k: v for k, v in changes.items() if k != "distrikt"}}
        _rally(office, f"rallyt-{case}", listed, district=changes.get("distrikt", "Stockholm"), **places)
    office.run()
    return office, first_night


@pytest.mark.parametrize("case", list(RALLY_FAULTS))
def test_rally_files_that_cannot_be_used_are_quarantined(faulty_rallies, case):
    office, first_night = faulty_rallies
    assert first_night == []
    reasons = " | ".join(office.query("select reason from quarantine where source_file = ?",
                                      [f"{ORG}/stockholm/rallyt-{case}.rally.txt"])["reason"])
    assert RALLY_FAULTS[case] in reasons
    assert _bonus(office, f"rallyt-{case}") == {}


def test_an_unknown_member_is_quarantined_and_the_others_get_their_bonus(office):
    register(office)
    events = _silver_events(office, [34] * 6)
    _rally(office, "rallyt", events, plac_1="200010", plac_2="999999", plac_3="200030")
    office.run()
    assert "plac_2: member number 999999 is not in the member register" in " | ".join(_quarantine(office))
    assert _bonus(office, "rallyt") == {"200010": 3, "200030": 1}


def test_a_binary_file_is_one_whole_file_reason(office):
    register(office)
    office.post(f"{ORG}/stockholm/skrap.rally.txt", bytes(range(256)) * 12)
    office.run()
    q = office.query("select location, reason from quarantine where source_file = ?", [f"{ORG}/stockholm/skrap.rally.txt"])
    assert list(q["location"]) == ["whole file"]
    assert "found binary data (NUL bytes): is this the right file?" in q["reason"][0]


def test_what_a_rally_counts_of_finals_simultaneous_events_and_half_pairs(tmp_path):
    """"Rallybonus vid totalt antal startande par" (p. 5), counted as an audit found it wanting (one
    office, two nights; a rally reads only the events it names):
    - an A-final with carry-over counts the pairs that started its qualification (kval_par 60), not
      its 10 finalists: 5 × 16 + 60 = 140 pairs, 2 and 1 gp (was 90 pairs, no bonus);
    - a B-final is part of its event ("A B/C-final is part of its event", docs/sweden.md, Finals):
      listing it as a further event is refused (three qualifications with A- and B-finals were six
      events);
    - the common list of a simultaneous event holds the heats' pairs: listing it is refused (its
      pairs were counted twice);
    - "3, 2 och 1 gp över 200 par": 4 × 40 + 24 pairs + 33 players (16.5 pairs) = 200.5 pairs is
      över 200 (was the 101-200 row)."""
    from office import Office

    office = Office(tmp_path)
    register(office)
    dates = iter(f"2024-{m:02d}-{d:02d}" for m in range(9, 13) for d in (3, 10, 17, 24))
    sixteen = []
    for i in range(5):
        post_event(office, "bk-lavec", f"sexton-{i + 1}", 16, datum=next(dates), **SILVER)
        sixteen.append(f"bk-lavec/sexton-{i + 1}")
    final = {**SILVER, "brickor": "48", "kval_ronder": "12", "final_ronder": "12"}
    post_event(office, "bk-lavec", "a-final", 10, datum=next(dates), final="A", kval_par="60", **final)
    post_event(office, "bk-lavec", "b-final", 20, start=20, datum=next(dates), final="B", carry_over="ja", kval_par="60",
               första_plac="11", tk_tillstånd="TK 2024/17", **final)
    heat_day = next(dates)
    post_event(office, "bk-lavec", "heat", 10, datum=heat_day, simultan="ja", **SILVER)
    post_event(office, "bk-lavec", "gemensam", 20, datum=heat_day, gemensam_lista="ja", **SILVER)
    large = []
    for i, n in enumerate([40, 40, 40, 40, 24]):
        post_event(office, "bk-lavec", f"stor-{i + 1}", n, datum=next(dates), **SILVER)
        large.append(f"bk-lavec/stor-{i + 1}")
    post_event(office, "bk-lavec", "individuell", 33, per=1, datum=next(dates), **{**SILVER, "form": "individuell"})
    office.run()
    assert _quarantine(office) == []
    _rally(office, "rallyt-afinal", sixteen + ["bk-lavec/a-final"], plac_1="200000", plac_2="200001")
    _rally(office, "rallyt-bfinal", sixteen[:4] + ["bk-lavec/a-final", "bk-lavec/b-final"], plac_1="200000")
    _rally(office, "rallyt-gemensam", sixteen[:4] + ["bk-lavec/heat", "bk-lavec/gemensam"], plac_1="200000")
    _rally(office, "rallyt-halv", large + ["bk-lavec/individuell"], plac_1="200010", plac_2="200020", plac_3="200030")
    office.run()
    assert _bonus(office, "rallyt-afinal") == {"200000": 2, "200001": 1}
    basis = office.query("select basis from awards where event_id = ? and player_id = '200000'",
                         [f"{ORG}/stockholm/rallyt-afinal"])["basis"][0]
    assert "6 silver events, 140 pairs (16 + 16 + 16 + 16 + 16 + 60)" in basis
    assert _bonus(office, "rallyt-halv") == {"200010": 3, "200020": 2, "200030": 1}
    q = office.query("select source_file, reason from quarantine")
    by_file = {f.rsplit("/", 1)[-1]: r for f, r in zip(q["source_file"], q["reason"])}
    assert set(by_file) == {"rallyt-bfinal.rally.txt", "rallyt-gemensam.rally.txt"}
    assert "bk-lavec/b-final is the B-final of its event: list the event once, by its A-final" in by_file["rallyt-bfinal.rally.txt"]
    assert "bk-lavec/gemensam is the common list of a simultaneous event" in by_file["rallyt-gemensam.rally.txt"]
    assert _bonus(office, "rallyt-bfinal") == {} and _bonus(office, "rallyt-gemensam") == {}
