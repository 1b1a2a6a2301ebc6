"""Qualification with A-, B- and C-finals (seed p. 4, "Guld- och silvertävlingar med kval och A-, B-
och eventuellt fler finaler"), through the nightly run: event file + result list -> ledger lines.

The seed's example: 60 pairs, 12 rounds of qualification + 12 rounds of final with carry-over:
12 + 12 + 1 + (60 − 25)/2 = 25 + 18 = 43 sp; the first 11 (43/4) get sp (Tabell D row 43:
43, 29, 21, 18, 14, 12, 10, 9, 7, 5, 4 sp). "Man skulle kunna fördela sp på detta sättet: 43, 29, 21,
18, 14, 12, 10, 9, 7, 5 sp i A-final och 4 sp, 10, 8, 7, 6, 5, 4, 4, 4, 4 bp i B-final under
förutsättning att man har carry-over där också. (Skulle man vara 20 par i B-final utan carry-over
ger det 40, 27, 18, 12, 8, 6, 4 bp.)" Every expected value below is the seed's.
"""
from __future__ import annotations

import pandas as pd
from se_helpers import ORG, register, standings_text

SILVER_FINAL = {"datum": "2024-10-05", "nivå": "silver", "form": "par", "brickor": "48", "kval_ronder": "12",
                "final_ronder": "12"}


def _event(**settings) -> str:
    return "".join(f"{k}: {v}\n" for k, v in settings.items())


def _post(office, name, n, start, **settings):
    office.post(f"{ORG}/uppsala-bk/{name}.event.txt", _event(**settings))
    office.post(f"{ORG}/uppsala-bk/{name}.standings.csv", standings_text(n, start=start) + f"# {name}\n")  # not a duplicate of another list


def _ledger(office, name):
    """{entrant number: {denomination: points}} of the ledger lines of both members of each pair
    (both members must have the same lines)."""
    df = office.query(
        "select r.entrant, a.player_id, a.denomination, a.points from se_results r join awards a "
        "on a.event_id = r.event_id and list_contains(r.members, a.player_id) "
        "where r.event_id = ? order by r.place", [f"{ORG}/uppsala-bk/{name}"])
    out: dict = {}
    for r in df.itertuples():
        out.setdefault(int(r.entrant), {}).setdefault(r.player_id, {})[r.denomination] = int(r.points)
    per_pair = {}
    for e, players in out.items():
        values = list(players.values())
        assert len(values) == 2 and values[0] == values[1], (e, players)
        per_pair[e] = values[0]
    return per_pair


def _column(lines: dict, n: int, den: str) -> list[int]:
    return [lines.get(e, {}).get(den, 0) for e in range(1, n + 1)]


def _quarantine(office):
    return office.query("select source_file, location, reason from quarantine order by source_file, location")


def test_seed_example_a_final_b_final_with_and_without_carry_over(office):
    register(office)
    # A-final: the 10 best pairs of the 60 (kval_par), with carry-over
    _post(office, "a-final", 10, 0, final="A", kval_par="60", **SILVER_FINAL)
    # B-final with carry-over, by TK's permission: its winner is 11th overall
    _post(office, "b-final", 20, 20, final="B", carry_over="ja", kval_par="60", första_plac="11",
          tk_tillstånd="TK 2024/17", **SILVER_FINAL)
    # the same B-final of 20 pairs without carry-over: a new bronze competition from zero
    _post(office, "b-final-utan", 20, 60, **{**SILVER_FINAL, "brickor": "24"}, final="B", carry_over="nej")
    result = office.run()
    assert result.exit_code == 0, _quarantine(office)
    a = _ledger(office, "a-final")
    assert _column(a, 10, "sp") == [43, 29, 21, 18, 14, 12, 10, 9, 7, 5]
    assert _column(a, 10, "bp") == [0] * 10  # "inga bp delas ut i A-finalen"
    b = _ledger(office, "b-final")
    assert _column(b, 20, "sp") == [4] + [0] * 19
    assert _column(b, 20, "bp") == [0, 10, 8, 7, 6, 5, 4, 4, 4, 4] + [0] * 10
    fresh = _ledger(office, "b-final-utan")
    assert _column(fresh, 20, "bp") == [40, 27, 18, 12, 8, 6, 4] + [0] * 13
    assert _column(fresh, 20, "sp") == [0] * 20
    # the basis says how the B-final's places map onto the whole field's list
    basis = office.query("select basis from awards where event_id like '%/b-final' and player_id = '200020'")["basis"][0]
    assert "43" in basis and "11th of the 60 pairs" in basis and "TK 2024/17" in basis
    # no gold anywhere: a silver event
    assert office.query("select count(*) as n from awards where denomination = 'gp'")["n"][0] == 0
    # each final's page says which places of the whole field its list covers: the A-final's 10
    # pairs are places 1-10, the B-final's 20 (winner 11th) places 11-30; without carry-over the
    # B-final is a new competition
    pages = office.state / "publications" / ORG / "uppsala-bk"
    assert "A-final med carry-over: plac 1–10 i hela fältet" in (pages / "a-final" / "index.html").read_text(encoding="utf-8")
    assert "B-final med carry-over: plac 11–30 i hela fältet" in (pages / "b-final" / "index.html").read_text(encoding="utf-8")
    assert "B-final utan carry-over: en ny tävling där alla börjar om på noll" in \
        (pages / "b-final-utan" / "index.html").read_text(encoding="utf-8")
    finals = office.query("select distinct event_id, final, overall_first_place from se_results order by event_id")
    assert [(e.rsplit("/", 1)[1], f, None if pd.isna(p) else int(p))
            for e, f, p in zip(finals["event_id"], finals["final"], finals["overall_first_place"])] == [
        ("a-final", "A", 1), ("b-final", "B", 11), ("b-final-utan", "B", None)]


def test_a_final_list_of_finalists_needs_the_starting_field(office):
    # a 10-pair A-final without kval_par: 12 + 12 + 1 exceeds its 10 pairs; the reason says what to add
    register(office)
    _post(office, "a-final", 10, 0, final="A", **SILVER_FINAL)
    office.run()
    q = _quarantine(office)
    assert any("exceeds the 10 pairs" in r and "add kval_par" in r for r in q["reason"])


def test_b_final_with_carry_over_needs_tk_permission(office):
    register(office)
    _post(office, "b-final", 20, 20, final="B", carry_over="ja", kval_par="60", första_plac="11", **SILVER_FINAL)
    office.run()
    q = _quarantine(office)
    row = q[q["source_file"].str.endswith("b-final.event.txt")]
    assert list(row["location"]) == ["line 1"]  # the final: line of the event file (its first line)
    assert "tk_tillstånd" in row["reason"].iloc[0] and "på förhand" in row["reason"].iloc[0]
    assert office.query("select count(*) as n from awards")["n"][0] == 0


def test_final_settings_are_checked(office):
    register(office)
    # B-final without saying whether the score is carried over
    _post(office, "b1", 20, 0, final="B", **SILVER_FINAL)
    # carry-over final of a bronze event
    _post(office, "b2", 20, 0, **{**SILVER_FINAL, "nivå": "brons"}, final="B", carry_over="ja", kval_par="60",
          första_plac="11", tk_tillstånd="TK 1")
    # 20 pairs from place 45 reach place 64 of a 60-pair field
    _post(office, "b3", 20, 0, final="C", carry_over="ja", kval_par="60", första_plac="45", tk_tillstånd="TK 2", **SILVER_FINAL)
    # gold only in the A-final: a B-final starting inside the 3 gold places
    _post(office, "b4", 20, 0, **{**SILVER_FINAL, "nivå": "guld", "brickor": "60", "sanktion": "FSB-G-9"},
          final="B", carry_over="ja", kval_par="60", första_plac="3", tk_tillstånd="TK 3")
    office.run()
    q = _quarantine(office)
    reasons = " | ".join(q["reason"])
    assert "final: B needs 'carry_over: ja'" in reasons
    assert "a bronze event's final is its own competition" in reasons
    assert "20 pairs from overall place 45 reach place 64, but kval_par says 60 pairs" in reasons
    assert "gold is given only in the A-final" in reasons
    assert office.query("select count(*) as n from awards")["n"][0] == 0


def test_c_final_with_carry_over_continues_after_the_b_final(office):
    # 60 pairs: A-final 6, B-final 6 (places 7-12), C-final from place 13. The whole list (43 sp row,
    # 11 sp places; bronze to place 20 by Tabell A2 row 60: 10 8 7 6 5 4 4 4 4 for places 12-20)
    register(office)
    _post(office, "c-final", 10, 0, final="C", carry_over="ja", kval_par="60", första_plac="13", tk_tillstånd="TK 4",
          **SILVER_FINAL)
    assert office.run().exit_code == 0
    c = _ledger(office, "c-final")
    assert _column(c, 10, "bp") == [8, 7, 6, 5, 4, 4, 4, 4, 0, 0]
    assert _column(c, 10, "sp") == [0] * 10


def test_shared_place_in_a_b_final_with_carry_over(office):
    # B-final places 2= and 2= share overall places 12 and 13: (10 + 8) / 2 = 9 bp each
    register(office)
    office.post(f"{ORG}/uppsala-bk/b.event.txt", _event(final="B", carry_over="ja", kval_par="60", första_plac="11",
                                                        tk_tillstånd="TK 5", **SILVER_FINAL))
    office.post(f"{ORG}/uppsala-bk/b.standings.csv",
                standings_text(12, places=["1", "2=", "2=", "4", "5", "6", "7", "8", "9", "10", "11", "12"]))
    assert office.run().exit_code == 0
    b = _ledger(office, "b")
    assert _column(b, 12, "sp")[:2] == [4, 0]
    assert _column(b, 12, "bp") == [0, 9, 9, 7, 6, 5, 4, 4, 4, 4, 0, 0]


def test_b_final_with_the_distribution_tk_sanctioned(office):
    # the seed's own proposal written out as the sanctioned distribution; and another qualification's list that
    # TK sanctioned differently (its numbers are the event file's, taken as they are)
    register(office)
    common = dict(final="B", carry_over="ja", kval_par="60", första_plac="11", **SILVER_FINAL)
    _post(office, "b-seed", 12, 0, tk_tillstånd="TK 2024/17", fördelning="4 sp, 10 8 7 6 5 4 4 4 4 bp", **common)
    _post(office, "b-other", 12, 100, tk_tillstånd="TK 2024/18", fördelning="5 sp, 12 9 bp",
          **{**common, "datum": "2024-10-12"})  # another day's qualification: its places 11-22 are its own
    assert office.run().exit_code == 0, _quarantine(office)
    seed = _ledger(office, "b-seed")
    assert _column(seed, 12, "sp") == [4] + [0] * 11
    assert _column(seed, 12, "bp") == [0, 10, 8, 7, 6, 5, 4, 4, 4, 4, 0, 0]
    other = _ledger(office, "b-other")
    assert _column(other, 12, "sp") == [5] + [0] * 11
    assert _column(other, 12, "bp") == [0, 12, 9] + [0] * 9
    basis = office.query("select basis from awards where event_id like '%b-other' and player_id = '200102'")["basis"][0]
    assert "sanctioned by TK (TK 2024/18): 5 sp, 12 9 bp" in basis and "2nd place: 12 bp" in basis


def test_sanctioned_distribution_is_checked(office):
    register(office)
    common = dict(carry_over="ja", kval_par="60", första_plac="11", tk_tillstånd="TK 1", **SILVER_FINAL)
    _post(office, "guld", 12, 0, final="B", fördelning="1 gp, 10 8 bp", **common)
    _post(office, "lang", 4, 0, final="B", fördelning="4 sp, 10 8 7 6 bp", **common)
    _post(office, "trasig", 12, 0, final="B", fördelning="fyra sp", **common)
    _post(office, "a", 10, 0, final="A", kval_par="60", fördelning="43 29 sp", **SILVER_FINAL)
    office.run()
    reasons = " | ".join(_quarantine(office)["reason"])
    assert "gold is given only in the A-final" in reasons and "found '1 gp'" in reasons
    assert "fördelning lists 5 places, but the final has 4 pairs" in reasons
    assert "expected the points of each place from the final's winner" in reasons
    assert "a sanctioned distribution is for a B-, C- ... final with carry-over" in reasons
    assert office.query("select count(*) as n from awards")["n"][0] == 0


def _held(office, name):
    """(location, reason) of the quarantine rows of a final's result list."""
    q = _quarantine(office)
    rows = q[q["source_file"] == f"{ORG}/uppsala-bk/{name}.standings.csv"]
    return list(zip(rows["location"], rows["reason"]))


def _posted(office):
    return sorted(e.rsplit("/", 1)[1] for e in office.query("select distinct event_id from se_results")["event_id"])


def test_a_pair_in_two_finals_and_overlapping_places_are_held(office):
    """The finals of one qualification against each other (pipelines/sweden/finals.py), over three nights.
    The seed's 60 pairs: a 10-pair A-final covers places 1-10, a 20-pair B-final from första_plac 11
    places 11-30, so a C-final starts at 31."""
    register(office)
    common = dict(carry_over="ja", kval_par="60", **SILVER_FINAL)
    # night 1: the B-final's first pair (members 200018, 200019) is also the A-final's 10th pair
    _post(office, "a-final", 10, 0, final="A", kval_par="60", **SILVER_FINAL)
    _post(office, "b-final", 20, 18, final="B", första_plac="11", tk_tillstånd="TK 1", **common)
    office.run()
    assert _posted(office) == ["a-final"]
    held = _held(office, "b-final")
    both = [(loc, r) for loc, r in held if "members 200018 200019 also play in the A-final (a-final)" in r]
    assert [loc for loc, _ in both] == ["line 2"]  # the list's first pair, line 2 after the header
    assert office.query("select count(*) as n from awards where event_id like '%b-final'")["n"][0] == 0
    # night 2: the corrected B-final posts against the A-final of the lake; a C-final whose första_plac
    # 25 falls inside the B-final's places 11-30 is held, and told where it starts
    _post(office, "b-final", 20, 20, final="B", första_plac="11", tk_tillstånd="TK 1", **common)
    _post(office, "c-final", 10, 60, final="C", första_plac="25", tk_tillstånd="TK 2", **common)
    office.run()
    assert _posted(office) == ["a-final", "b-final"]
    reasons = [r for _, r in _held(office, "c-final")]
    assert any("this C-final's 10 pairs would be places 25–34 of the whole field, but the B-final (b-final) of the same "
               "qualification (kval_par 60) already has places 11–30; after the 20 pairs of the B-final (b-final) this "
               "final starts at place 31" in r for r in reasons), reasons
    # night 3: the C-final from place 31, but with a pair of the A-final (members 200000, 200001) in
    # its last line: held against the lake's A-final; then corrected, it posts
    lines = standings_text(10, start=120).splitlines()
    lines[-1] = "10;10;200000 200001"
    office.post(f"{ORG}/uppsala-bk/c-final.event.txt", _event(final="C", första_plac="31", tk_tillstånd="TK 2", **common))
    office.post(f"{ORG}/uppsala-bk/c-final.standings.csv", "\n".join(lines) + "\n# c-final\n")
    office.run()
    assert _posted(office) == ["a-final", "b-final"]
    assert [(loc, "members 200000 200001 also play in the A-final (a-final)" in r) for loc, r in _held(office, "c-final")][:1] == \
        [("line 11", True)]
    _post(office, "c-final", 10, 120, final="C", första_plac="31", tk_tillstånd="TK 2", **common)
    assert office.run().exit_code == 0, _quarantine(office)
    assert _posted(office) == ["a-final", "b-final", "c-final"]
    # Tabell A2 row 60 gives bronze to place 20 (a third of 60): the C-final from 31 gets none
    assert office.query("select count(*) as n from awards where event_id like '%c-final'")["n"][0] == 0


def test_two_qualifications_of_one_day_keep_their_own_places(office):
    # two A-finals of the same club and day: 60 and 40 starting pairs are two qualifications (their
    # places 1-10 are each their own); different pairs, so both post
    register(office)
    _post(office, "a-60", 10, 0, final="A", kval_par="60", **SILVER_FINAL)
    _post(office, "a-40", 10, 100, final="A", kval_par="40", **SILVER_FINAL)
    assert office.run().exit_code == 0, _quarantine(office)
    assert _posted(office) == ["a-40", "a-60"]


def test_a_final_held_for_another_finals_list_posts_when_that_list_is_corrected(office):
    # night 1: the A-final's list gives its 10th pair the member numbers of the B-final's winners
    # (200020 200021), so the B-final is held; night 2 the club corrects the A-final only, and the
    # B-final posts without being sent again, with the seed's 4 sp, 10 8 7 6 5 4 4 4 4 bp
    register(office)
    wrong = standings_text(10).splitlines()
    wrong[-1] = "10;10;200020 200021"
    office.post(f"{ORG}/uppsala-bk/a-final.event.txt", _event(final="A", kval_par="60", **SILVER_FINAL))
    office.post(f"{ORG}/uppsala-bk/a-final.standings.csv", "\n".join(wrong) + "\n# a-final\n")
    _post(office, "b-final", 20, 20, final="B", carry_over="ja", kval_par="60", första_plac="11", tk_tillstånd="TK 1",
          **SILVER_FINAL)
    office.run()
    assert _posted(office) == ["a-final"]
    assert any("members 200020 200021 also play in the A-final (a-final)" in r for _, r in _held(office, "b-final"))
    _post(office, "a-final", 10, 0, final="A", kval_par="60", **SILVER_FINAL)
    assert office.run().exit_code == 0, _quarantine(office)
    assert _posted(office) == ["a-final", "b-final"]
    b = _ledger(office, "b-final")
    assert _column(b, 20, "sp") == [4] + [0] * 19
    assert _column(b, 20, "bp") == [0, 10, 8, 7, 6, 5, 4, 4, 4, 4] + [0] * 10
    # the secretary's quarantine list no longer shows the B-final's problems as open
    still = office.query("select count(*) as n from quarantine where source_file like '%b-final%' and is_open")
    assert still["n"][0] == 0


def test_a_lake_written_before_finals_were_recorded_does_not_stop_the_night(office):
    # an office upgrading: its lake's result rows have no final or overall_first_place column (removed
    # from the file here). The B-final of a later night reads that lake: the old rows are not
    # finals to compare with (docs/sweden.md), and the B-final posts with the seed's 4 sp
    import pyarrow.parquet as pq

    register(office)
    _post(office, "a-final", 10, 0, final="A", kval_par="60", **SILVER_FINAL)
    assert office.run().exit_code == 0, _quarantine(office)
    for f in (office.state / "lake" / "se_results").rglob("*.parquet"):
        pq.write_table(pq.read_table(f).drop_columns(["final", "overall_first_place"]), f)
    _post(office, "b-final", 20, 20, final="B", carry_over="ja", kval_par="60", första_plac="11", tk_tillstånd="TK 1",
          **SILVER_FINAL)
    assert office.run().exit_code == 0, _quarantine(office)
    assert _posted(office) == ["a-final", "b-final"]
    assert _column(_ledger(office, "b-final"), 20, "sp") == [4] + [0] * 19
