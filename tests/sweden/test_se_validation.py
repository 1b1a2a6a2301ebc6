"""Bad input is quarantined with a reason a club secretary can act on; it never crashes the run.
Fixtures are real files (tests/sweden/fixtures)."""
from __future__ import annotations

from datetime import date
from pathlib import Path

from pipelines.sweden.parse import parse_event, parse_members, parse_standings
from se_helpers import CLUBS, MEMBERS, ORG, column, post_event, register

FIX = Path(__file__).parent / "fixtures"


def _quarantine(office):
    return office.query("select source_file, location, reason from quarantine order by source_file, location")


def test_bad_event_file_lists_each_problem():
    ev, problems = parse_event("x/bad.event.txt", (FIX / "bad.event.txt").read_bytes())
    assert ev is None
    reasons = {loc: r for _, loc, r in problems}
    assert "expected a date YYYY-MM-DD, found '3/9 2024'" in reasons["line 1"]
    assert "found 'platina'" in reasons["line 2"]
    assert "found 'tjugo'" in reasons["line 4"]
    assert "found 'hälften'" in reasons["line 5"]
    assert "unknown setting 'okänd nyckel'" in reasons["line 6"]
    assert "expected 'key: value'" in reasons["line 7"]


def test_bad_result_list_lists_each_line():
    st, problems = parse_standings("x/bad.standings.csv", (FIX / "bad.standings.csv").read_bytes(), "par")
    assert st is None
    reasons = [(loc, r) for _, loc, r in problems]
    assert ("line 3", "medlemmar: expected 2 member number(s) for a par, found 1 ('200002')") in reasons
    assert any(loc == "line 4" and "plac: expected a place such as 3 or 3=, found 'x'" in r for loc, r in reasons)
    assert any(loc == "line 5" and "listed twice" in r for loc, r in reasons)
    assert any(loc == "line 6" and "expected 3 fields" in r for loc, r in reasons)


def test_binary_file_is_refused_not_crashed():
    st, problems = parse_standings("x/binary.standings.csv", (FIX / "binary.standings.csv").read_bytes(), "par")
    assert st is None and problems


def test_a_list_saved_as_excels_unicode_text_reads_as_the_list_itself():
    """Excel's "Unicode Text" save: UTF-16 little-endian with its byte order mark, tab-separated,
    CRLF line ends. It gives the rows the same list gives as semicolon-separated UTF-8 (written by
    hand: four pairs, the last two tied for 3rd)."""
    import codecs

    text = "plac;par;medlemmar\n1;1;100000 100001\n2;2;100002 100003\n3=;3;100004 100005\n3=;4;100006 100007\n"
    unicode_text = codecs.BOM_UTF16_LE + text.replace(";", "\t").replace("\n", "\r\n").encode("utf-16-le")
    rows, problems = parse_standings("x/unicode.standings.csv", unicode_text, "par")
    plain, _ = parse_standings("x/plain.standings.csv", text.encode("utf-8"), "par")
    assert problems == []
    assert rows[["place", "tied", "members"]].to_dict("records") == plain[["place", "tied", "members"]].to_dict("records")
    assert [list(m) for m in rows["members"]] == [["100000", "100001"], ["100002", "100003"], ["100004", "100005"],
                                                  ["100006", "100007"]]
    assert list(rows["tied"]) == [False, False, True, True]
    # a header it cannot read names the separators it accepts
    _, problems = parse_standings("x/h.standings.csv", "plats\tpar\tmedlemmar\n1\t1\t100000 100001\n".encode("utf-8"), "par")
    assert problems[0][1] == "line 1" and problems[0][2].endswith("separated by semicolons, commas or tabs")


def test_register_problems():
    members, problems = parse_members("r", (FIX / "bad_register.csv").read_bytes())
    assert list(members["member"]) == ["200000"]
    assert [p[1] for p in problems] == ["line 3", "line 4"]


def test_cp1252_files_with_swedish_letters(office):
    register(office)
    office.post(f"{ORG}/bk-lavec/v.event.txt", (FIX / "cp1252.event.txt").read_bytes())
    office.post(f"{ORG}/bk-lavec/v.standings.csv", (FIX / "cp1252.standings.csv").read_bytes())
    office.run()
    names = office.query("select distinct event_name from se_results")
    assert list(names["event_name"]) == ["Tisdagsbridge i Växjö"]
    assert column(office, "/v", "bp")[:2] == [8, 6]  # A1 row 4


def test_unknown_member_is_quarantined_with_the_line(office):
    register(office)
    office.post(f"{ORG}/bk-lavec/u.event.txt", "datum: 2024-10-01\nnivå: brons\nform: par\nbrickor: 24\n")
    office.post(f"{ORG}/bk-lavec/u.standings.csv", "plac;par;medlemmar\n1;1;200000 999999\n2;2;200002 200003\n"
                                                   "3;3;200004 200005\n4;4;200006 200007\n")
    result = office.run()
    q = _quarantine(office)
    line = q[q["location"] == "line 2"]
    assert "member number 999999 is not in the member register" in line["reason"].iloc[0]
    assert office.query("select count(*) as n from awards")["n"][0] == 0


def test_guests_get_no_points_and_the_report_says_so(office):
    register(office)
    office.post(f"{ORG}/bk-lavec/g.event.txt", "datum: 2024-10-01\nnivå: brons\nform: par\nbrickor: 24\ngäster: ja\n")
    office.post(f"{ORG}/bk-lavec/g.standings.csv", "plac;par;medlemmar\n1;1;200000 999999\n2;2;200002 200003\n"
                                                   "3;3;200004 200005\n4;4;200006 200007\n")
    office.run()
    lines = office.query("select player_id, points from awards order by player_id")
    assert "999999" not in set(lines["player_id"]) and "200000" in set(lines["player_id"])
    ev = office.query("select location from events")
    assert "guests without points: 999999" in ev["location"][0]


def test_minimum_pairs_and_boards(office):
    register(office)
    post_event(office, "bk-lavec", "tre", 3, nivå="brons", brickor="24")
    post_event(office, "bk-lavec", "kort", 6, nivå="brons", brickor="16")
    post_event(office, "bk-lavec", "nov", 6, nivå="brons", brickor="12", orutinerade="ja")
    office.run()
    q = _quarantine(office)
    assert any("at least 4 pairs are needed, found 3" in r for r in q["reason"])
    assert any("at least 18 boards are needed (novices' events 10-17), found 16" in r for r in q["reason"])
    # novices 12 boards: A1 row 6 (12, 8) at half scale: 6, 4
    assert column(office, "nov", "bp")[:2] == [6, 4]


def test_silver_requirements(office):
    register(office)
    post_event(office, "bk-lavec", "s12", 12, nivå="silver", brickor="42")
    post_event(office, "bk-lavec", "s30b", 20, nivå="silver", brickor="30")
    post_event(office, "bk-lavec", "half", 20, nivå="silver", brickor="38")
    post_event(office, "malmo-bk", "g", 30, nivå="guld", brickor="60")
    office.run()
    reasons = list(_quarantine(office)["reason"])
    assert any("silver par: at least 16 pairs are needed, found 12" in r for r in reasons)
    assert any("silver par: at least 36 boards are needed, found 30" in r for r in reasons)
    assert any("a gold event needs the sanction reference" in r for r in reasons)
    # 36-41 boards: table D row 20 at half: 20 14 10 7 5 → 10 7 5 4 3 sp; red 12 8 → 6 4 bp
    assert column(office, "half", "sp")[:6] == [10, 7, 5, 4, 3, 0]
    assert column(office, "half", "bp")[5:8] == [6, 4, 0]


def test_silver_openness(office):
    # all members of one club: not open (at least five clubs, no club above 50 %)
    members = [str(300000 + i) for i in range(40)]
    text = "medlemsnummer;namn;klubb\n" + "".join(f"{m};Klubbspelare {m};10003\n" for m in members)
    text += "".join(f"{m};Spelare {m};{CLUBS[i % 8]}\n" for i, m in enumerate(MEMBERS))
    office.post(f"{ORG}/medlemsregister.csv", text)
    office.post(f"{ORG}/bk-skara/open.event.txt", "datum: 2024-10-05\nnivå: silver\nform: par\nbrickor: 48\n")
    office.post(f"{ORG}/bk-skara/open.standings.csv", "plac;par;medlemmar\n" + "".join(
        f"{i + 1};{i + 1};{members[2 * i]} {members[2 * i + 1]}\n" for i in range(20)))
    office.run()
    reasons = list(_quarantine(office)["reason"])
    assert any("players from at least 5 clubs" in r and "found 1" in r for r in reasons)
    assert any("1 club(s) may have at most 50% of the players, found 100.0%" in r for r in reasons)


def test_sanction_limit_per_season(office):
    # BK Skara has 60 members: five silver events a season, at most three on weekdays
    register(office)
    days = ["2024-09-02", "2024-09-03", "2024-09-04", "2024-09-05", "2024-09-07", "2024-09-08", "2024-09-14"]
    for i, d in enumerate(days):
        post_event(office, "bk-skara", f"s{i}", 16, nivå="silver", brickor="42", datum=d)
    office.run()
    reasons = list(_quarantine(office)["reason"])
    assert any("at most 3 silver events on weekdays" in r and "number 4" in r for r in reasons)
    assert any("may hold 5 silver events in season 2024/25 and this is number 6" in r for r in reasons)
    posted = office.query("select count(*) as n from events")["n"][0]
    assert posted == 5  # 3 weekdays + the two weekend days before the limit; the 7th also over


def test_a_club_that_counts_as_two_has_twice_the_weekday_limit(office):
    # Malmö BK has 150 members: it "räknas som två klubbar (10 silvertävlingar)" (seed p. 3), two
    # clubs of five silver events "varav högst tre på vardagar" each: ten, at most six on weekdays.
    # Eight weekday events (Monday 2 to Wednesday 11 September): the seventh and eighth are held,
    # each as number 7 (a held event does not count).
    register(office)
    days = ["2024-09-02", "2024-09-03", "2024-09-04", "2024-09-05", "2024-09-06", "2024-09-09", "2024-09-10",
            "2024-09-11"]
    for i, d in enumerate(days):
        post_event(office, "malmo-bk", f"s{i}", 16, nivå="silver", brickor="42", datum=d)
    office.run()
    reasons = list(_quarantine(office)["reason"])
    for held in ("s6", "s7"):
        assert any(f"malmo-bk/{held} cannot be scored" in r and "at most 6 silver events on weekdays" in r
                   and "number 7" in r for r in reasons), reasons
    assert office.query("select count(*) as n from events")["n"][0] == 6


def test_sanction_reference_lifts_the_limit(office):
    register(office)
    for i, d in enumerate(["2024-09-02", "2024-09-03", "2024-09-04", "2024-09-05"]):
        post_event(office, "bk-skara", f"s{i}", 16, nivå="silver", brickor="42", datum=d,
                   **({"sanktion": "DFB-17"} if i == 3 else {}))
    office.run()
    assert office.query("select count(*) as n from events")["n"][0] == 4


def test_barometer_ties_must_be_broken(office):
    register(office)
    post_event(office, "malmo-bk", "bt", 6, per=4, places=["1", "2=", "2=", "4", "5", "6"], nivå="brons",
               form="lagbarometer", brickor="24")
    office.run()
    assert any("ties are always broken" in r for r in _quarantine(office)["reason"])


def test_aborted_event_gives_no_points(office):
    register(office)
    post_event(office, "bk-lavec", "ab", 20, nivå="silver", brickor="42", avbruten="ja")
    office.run()
    assert office.query("select count(*) as n from awards")["n"][0] == 0
    assert "no points" in office.query("select location from events")["location"][0]


def test_waiting_for_the_event_file_then_posted(office):
    register(office)
    office.post(f"{ORG}/bk-lavec/w.standings.csv", "plac;par;medlemmar\n1;1;200000 200001\n2;2;200002 200003\n"
                                                   "3;3;200004 200005\n4;4;200006 200007\n")
    office.run()
    assert any("waiting for the event file" in r for r in _quarantine(office)["reason"])
    office.post(f"{ORG}/bk-lavec/w.event.txt", "datum: 2024-10-01\nnivå: brons\nform: par\nbrickor: 24\n")
    office.run()
    assert column(office, "/w", "bp")[:2] == [8, 6]


def test_a_result_list_that_is_a_link_is_not_read_and_its_event_waits(office, tmp_path):
    # the result list in the inbox is a link to a file outside it: the scan quarantines the link,
    # and the event file waits for a list of its own; before, the Swedish system read the list
    # through the link as the event's partner, and the event file counted as posted while its
    # results were dropped without a word
    register(office)
    outside = tmp_path / "elsewhere.standings.csv"
    outside.write_text("plac;par;medlemmar\n1;1;200000 200001\n2;2;200002 200003\n"
                       "3;3;200004 200005\n4;4;200006 200007\n", encoding="utf-8")
    office.post(f"{ORG}/bk-lavec/l.event.txt", "datum: 2024-10-01\nnivå: brons\nform: par\nbrickor: 24\n")
    (office.inbox / ORG / "bk-lavec" / "l.standings.csv").symlink_to(outside)
    office.run()
    reasons = _quarantine(office).set_index("source_file")["reason"]
    assert reasons[f"{ORG}/bk-lavec/l.standings.csv"].startswith("a link, not a file")
    assert reasons[f"{ORG}/bk-lavec/l.event.txt"].startswith(f"waiting for the result list {ORG}/bk-lavec/l.standings.csv")
    assert office.query("select count(*) as n from se_results")["n"].iloc[0] == 0


def test_an_event_dated_after_the_run_is_a_typo_and_its_list_waits(office):
    # 2027 for 2024: results are sent after the event, so a date after the run's is a typo
    register(office)
    post_event(office, "bk-lavec", "framtid", 4, datum="2027-09-12")
    office.run(date(2026, 12, 2))
    reasons = _quarantine(office).set_index("source_file")["reason"]
    assert reasons[f"{ORG}/bk-lavec/framtid.event.txt"] == ("datum: 2027-09-12 is after the date of this run (2026-12-02); "
                                                            "results are sent after the event: check the year, month and day")
    assert reasons[f"{ORG}/bk-lavec/framtid.standings.csv"].startswith(
        f"held back until the event file {ORG}/bk-lavec/framtid.event.txt is corrected (line 1: datum: 2027-09-12 is after")
    assert office.query("select count(*) as n from se_results")["n"].iloc[0] == 0


def test_unknown_file_name_and_unknown_club(office):
    register(office)
    office.post(f"{ORG}/bk-lavec/notes.csv", "hej\n")
    post_event(office, "okand-klubb", "x", 6, nivå="brons", brickor="24")
    office.run()
    reasons = list(_quarantine(office)["reason"])
    assert any("not a Swedish masterpoint file name" in r for r in reasons)
    assert any("unknown club: folder 'okand-klubb'" in r for r in reasons)


def test_mitchell_is_two_competitions(office):
    register(office)
    extra = (["sektion"], lambda i: ["NS" if i < 10 else "ÖV"])
    places = [str(i % 10 + 1) for i in range(20)]
    post_event(office, "bk-lavec", "mit", 20, places=places, extra=extra, nivå="brons", brickor="26", mitchell="ja")
    office.run()
    bp = column(office, "mit", "bp")
    assert bp[:5] == [20, 14, 10, 7, 0] and bp[10:15] == [20, 14, 10, 7, 0]  # A1 row 10 in each direction


def test_groups_by_strength(office):
    register(office)
    post_event(office, "bk-lavec", "ga", 20, nivå="brons", brickor="24", grupper="2 A")
    office.run()
    # 20 × 1.1 = 22 → A1 row 22: 44 30 20 14 10 7 5 4 (8 places)
    assert column(office, "ga", "bp")[:9] == [44, 30, 20, 14, 10, 7, 5, 4, 0]


def test_register_replaced_is_a_correction(office):
    register(office)
    post_event(office, "bk-lavec", "r1", 4, nivå="brons", brickor="24")
    office.run()
    text = "medlemsnummer;namn;klubb\n" + "".join(f"{m};Nytt Namn {m[-3:]};10002\n" for m in MEMBERS)
    office.post(f"{ORG}/medlemsregister.csv", text)
    office.run()
    h = office.query("select name, club from se_holdings where member = '200000'")
    assert h["name"][0] == "Nytt Namn 000" and h["club"][0] == "10002"


def test_silver_team_event_of_a_small_club_needs_other_clubs(office):
    # p. 4 "Lagtävling": a club of fewer than 100 members needs at least 20 % from other clubs
    members = [str(400000 + i) for i in range(32)]
    text = "medlemsnummer;namn;klubb\n" + "".join(f"{m};Skaraspelare {m};10003\n" for m in members)
    text += "".join(f"{m};Spelare {m};{CLUBS[i % 8]}\n" for i, m in enumerate(MEMBERS))
    office.post(f"{ORG}/medlemsregister.csv", text)
    office.post(f"{ORG}/bk-skara/lag.event.txt", "datum: 2024-10-05\nnivå: silver\nform: lagbarometer\nbrickor: 42\n")
    office.post(f"{ORG}/bk-skara/lag.standings.csv", "plac;lag;medlemmar\n" + "".join(
        f"{i + 1};{i + 1};{' '.join(members[4 * i:4 * i + 4])}\n" for i in range(8)))
    # BK Lavec (240 members) may play alone
    office.post(f"{ORG}/bk-lavec/lag.event.txt", "datum: 2024-10-05\nnivå: silver\nform: lagbarometer\nbrickor: 42\n")
    lavec = [m for i, m in enumerate(MEMBERS) if i % 8 == 0][:32]
    office.post(f"{ORG}/bk-lavec/lag.standings.csv", "plac;lag;medlemmar\n" + "".join(
        f"{i + 1};{i + 1};{' '.join(lavec[4 * i:4 * i + 4])}\n" for i in range(8)))
    office.run()
    reasons = list(_quarantine(office)["reason"])
    assert any("at least 20% of the players must come from other clubs, found 0 of 32" in r for r in reasons)
    # E1 row 8 (all met all): 12 8 sp, then red 22 bp
    assert column(office, "bk-lavec/lag", "sp")[:3] == [12, 8, 0]
    assert column(office, "bk-lavec/lag", "bp")[:3] == [0, 0, 22]


def test_a_new_register_retries_lists_held_for_unknown_members(office):
    register(office, MEMBERS[:6])
    post_event(office, "bk-lavec", "later", 4, nivå="brons", brickor="24")
    office.run()
    assert office.query("select count(*) as n from awards")["n"][0] == 0
    register(office)  # the office's new register knows 200006 and 200007
    office.run()
    assert column(office, "later", "bp") == [8, 6, 0, 0]


# -- inputs the mutation campaign found (issue 14): each a problem with its line, never a crash ----

def test_a_line_without_its_line_break_is_one_problem():
    ev, problems = parse_event("x/long-line.event.txt", (FIX / "long-line.event.txt").read_bytes())
    assert ev is None
    reasons = {loc: r for _, loc, r in problems}
    # line 4 holds 10,013 characters: reported by its length, quoted only in part
    assert reasons["line 4"].startswith("expected a line of at most 4,000 characters (is a line break missing?)")
    assert "(10,011 characters)" in reasons["line 4"] and len(reasons["line 4"]) < 200
    assert "missing setting 'brickor'" in reasons["brickor"]


def test_a_number_too_long_for_any_field_is_out_of_range_not_a_crash():
    ev, problems = parse_event("x/huge-number.event.txt", (FIX / "huge-number.event.txt").read_bytes())
    assert ev is None
    reasons = {loc: r for _, loc, r in problems}
    assert reasons["line 4"] == "brickor: expected a whole number 1-2000, found '" + "9" * 60 + "… (3,000 characters)'"
    assert reasons["line 5"].startswith("mött: expected 'alla' or the number of opponents each met, found '333")
    assert "(300 characters)" in reasons["line 5"]


def test_a_register_line_too_long_is_reported_and_the_others_read():
    members, problems = parse_members("r", (FIX / "long-field-register.csv").read_bytes())
    assert list(members["member"]) == ["200000", "200002"]
    assert [(p[1], p[2][:48]) for p in problems] == [("line 3", "expected a line of at most 4,000 characters (is ")]


def test_a_register_with_only_its_header_is_not_posted_empty():
    members, problems = parse_members("r", (FIX / "header-only-register.csv").read_bytes())
    assert members.empty
    assert [(p[1], p[2][:40]) for p in problems] == [("whole file", "expected one line per member (medlemsnum")]


def test_a_result_line_too_long_holds_the_list_with_its_line():
    st, problems = parse_standings("x/long-field.standings.csv", (FIX / "long-field.standings.csv").read_bytes(), "par")
    assert st is None
    assert [(p[1], p[2][:35]) for p in problems] == [("line 3", "expected a line of at most 4,000 ch")]


def test_a_long_run_of_digits_in_the_distribution_is_one_problem_at_once():
    # 'fördelning: 4 sp, 111…1 bp x' (3,000 ones): the old pattern '(?:\d+\s*)+' split the run of
    # digits in exponentially many ways before failing (24 digits took 2 s; 3,000 never ended)
    ev, problems = parse_event("x/long-digit-run.event.txt", (FIX / "long-digit-run.event.txt").read_bytes())
    assert ev is None
    reasons = {loc: r for _, loc, r in problems}
    assert reasons["line 13"].startswith("fördelning: expected the points of each place from the final's winner, grouped "
                                        "by denomination, e.g. '4 sp, 10 8 7 6 5 4 4 4 4 bp', found '4 sp, 1111")
