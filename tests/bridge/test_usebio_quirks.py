"""USEBIO quirks of real scorers' files, each on a fixture of our own with a hand-computed expectation."""

from decimal import Decimal
from pathlib import Path

from pipelines.bridge.matchpoints import matchpoint_boards, session_standings_mp
from pipelines.bridge.parse_usebio import parse_usebio
from tests.bridge.test_bridge_pipeline import office  # noqa: F401  (the bridge-only office fixture)

FIX = Path(__file__).parent / "fixtures"


def test_a_board_marked_np_is_not_quarantined_but_neuberg_factored():
    """usebio_board_not_played.xml: Mitchell, 3 NS and 3 EW pairs, 2 boards; board 2 at table 3 is NP.

    Board 1 (3 results, top 2*(3-1) = 4): NS 430 > 400 > -50 -> NS1 4, NS2 2, NS3 0; EW1 0, EW2 2, EW3 4.
    Board 2 (n = 2 results, N = 3): raw NS 620 beats 170 -> NS1 2, NS2 0 (EW3 0, EW1 2).
      Neuberg mp' = (mp + 1) * N / n - 1:  2 -> 3 * 3/2 - 1 = 3.5;  0 -> 1 * 3/2 - 1 = 0.5  (sum 4 = top).
      NS1 3.5, NS2 0.5; EW3 0.5, EW1 3.5. NS3 and EW2 did not play board 2.
    Percentages over the boards each pair played (top 4 a board):
      NS1 (4 + 3.5) / 8 = 93.75   NS2 (2 + 0.5) / 8 = 31.25   NS3 0 / 4 = 0.00
      EW1 (0 + 3.5) / 8 = 43.75   EW2 2 / 4 = 50.00           EW3 (4 + 0.5) / 8 = 56.25
    """
    frames, q = parse_usebio("club/np.xml", (FIX / "usebio_board_not_played.xml").read_bytes())
    assert q.empty, q.to_dict("records")
    lines = frames["traveller_lines"]
    assert len(lines) == 5 and not ((lines["board"] == 2) & (lines["ns_pair"] == "3")).any()
    boards = matchpoint_boards(lines)
    b2 = boards[boards["board"] == 2].set_index("ns_pair")
    assert b2["neuberg"].all()
    assert b2.loc["1", "mp_ns"] == 3.5 and b2.loc["2", "mp_ns"] == 0.5
    st = session_standings_mp(boards).set_index(["direction", "entrant"])
    expected = {("NS", "1"): "93.75", ("NS", "2"): "31.25", ("NS", "3"): "0.00",
                ("EW", "1"): "43.75", ("EW", "2"): "50.00", ("EW", "3"): "56.25"}
    got = {k: Decimal(str(st.loc[k, "percentage"])).quantize(Decimal("0.01")) for k in expected}
    assert got == {k: Decimal(v) for k, v in expected.items()}
    assert int(st.loc[("NS", "1"), "rank"]) == 1 and int(st.loc[("EW", "3"), "rank"]) == 1


def test_np_spellings_in_contract_or_score_alone():
    data = (FIX / "usebio_board_not_played.xml").read_bytes()
    for mark in (b"<CONTRACT>NP</CONTRACT>", b"<SCORE>Not Played</SCORE>", b"<CONTRACT>N/P</CONTRACT><SCORE></SCORE>"):
        variant = data.replace(b"<CONTRACT>NP</CONTRACT><SCORE>NP</SCORE>", mark)
        frames, q = parse_usebio("club/np.xml", variant)
        assert q.empty and len(frames["traveller_lines"]) == 5, mark


def test_np_mixed_with_a_real_contract_is_still_quarantined():
    """'NP' next to a real contract is not the scorer's mark: the line is bad and the secretary is told."""
    data = (FIX / "usebio_board_not_played.xml").read_bytes()
    variant = data.replace(b"<CONTRACT>NP</CONTRACT><SCORE>NP</SCORE>",
                           b"<CONTRACT>4S</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>10</TRICKS><SCORE>NP</SCORE>")
    frames, q = parse_usebio("club/np.xml", variant)
    assert len(q) == 1 and q.iloc[0]["location"] == "BOARD 2, TRAVELLER_LINE 3"


def test_lettered_pair_numbers_of_a_two_section_file_score_per_section():
    """usebio_two_sections_lettered_pairs.xml: pairs '(A) 1 NS' ... '(B) 2 EW', no SECTION wrapper; the
    TRICKS cells use '=', '+1', '-1', '+2', '-2' and counts '7' / '9'. Scored per section (top 2 a board).

    Law 77 of the stated scores (board 1 none vul, board 2 NS vul):
      4S= 420, 4S+1 450, 4S-1 -50, 2S+2 170; 1NT by E 7 tricks EW +90 (NS -90),
      2H by W -2, EW not vul: NS +100; 3NT by S 9 tricks vul 600.
    Section A: board 1 450 > 420: NS2 2, NS1 0, EW1 2, EW2 0.  board 2 (NS1 v EW2 -90, NS2 v EW1 +100):
      NS2 2, NS1 0, EW2 2, EW1 0.  -> NS1 0/4 = 0%, NS2 4/4 = 100%, EW1 2/4 = 50%, EW2 2/4 = 50%.
    Section B: board 1 170 > -50: NS2 2, NS1 0, EW1 2, EW2 0.  board 2 600 = 600: 1 each.
      -> NS1 1/4 = 25%, NS2 3/4 = 75%, EW1 3/4 = 75%, EW2 1/4 = 25%.
    """
    frames, q = parse_usebio("club/two.xml", (FIX / "usebio_two_sections_lettered_pairs.xml").read_bytes())
    assert q.empty, q.to_dict("records")
    lines = frames["traveller_lines"]
    assert sorted(set(lines["section"])) == ["A", "B"] and set(lines["ns_pair"]) == {"1", "2"}
    assert lines["score_ns"].tolist() == [420, 450, -50, 170, -90, 100, 600, 600]
    st = session_standings_mp(matchpoint_boards(lines)).set_index(["section", "direction", "entrant"])
    expected = {("A", "NS", "1"): 0, ("A", "NS", "2"): 100, ("A", "EW", "1"): 50, ("A", "EW", "2"): 50,
                ("B", "NS", "1"): 25, ("B", "NS", "2"): 75, ("B", "EW", "1"): 75, ("B", "EW", "2"): 25}
    assert {k: Decimal(str(st.loc[k, "percentage"])) for k in expected} == {k: Decimal(v) for k, v in expected.items()}
    ents = frames["entrants"].set_index(["section", "direction", "entrant"])
    assert ents.loc[("B", "EW", "2"), "player_names"] == "B2EW One; B2EW Two"


def test_np_with_a_stated_score_of_0_is_a_passed_in_board():
    """usebio_np_passed_in.xml: the New Zealand Scorer writes a board passed in as CONTRACT NP,
    TRICKS 0, SCORE 0 and matchpoints it as a score of 0 (its own NS_MATCH_POINTS in the fixture,
    as in the public file pairs-with-np-passed.xml, where NP 0 gets 20 of 24: it beats ten minus scores).

    Mitchell, 3 NS + 3 EW, top 4 a board.
      Board 1: 420 (NS1 v EW1) > 0 passed in (NS2 v EW2) > -50 (NS3 v EW3):
               NS1 4, NS2 2, NS3 0; EW1 0, EW2 2, EW3 4.
      Board 2: 110 (NS1 v EW3) = 110 (NS2 v EW1) < 140 (NS3 v EW2):
               NS1 1, NS2 1, NS3 4; EW3 3, EW1 3, EW2 0.
    Totals of 8: NS1 5 = 62.50 %, NS2 3 = 37.50 %, NS3 4 = 50.00 %;
                 EW1 3 = 37.50 %, EW2 2 = 25.00 %, EW3 7 = 87.50 %.
    """
    frames, q = parse_usebio("club/np0.xml", (FIX / "usebio_np_passed_in.xml").read_bytes())
    assert q.empty, q.to_dict("records")
    lines = frames["traveller_lines"]
    passed = lines[(lines["board"] == 1) & (lines["ns_pair"] == "2")].iloc[0]
    assert passed["contract"] == "PASS" and passed["score_ns"] == 0 and passed["stated_score_ns"] == 0
    st = session_standings_mp(matchpoint_boards(lines)).set_index(["direction", "entrant"])
    expected = {("NS", "1"): "62.50", ("NS", "2"): "37.50", ("NS", "3"): "50.00",
                ("EW", "1"): "37.50", ("EW", "2"): "25.00", ("EW", "3"): "87.50"}
    assert {k: str(st.loc[k, "percentage"]) for k in expected} == expected


def test_np_with_a_score_other_than_0_is_still_quarantined():
    data = (FIX / "usebio_np_passed_in.xml").read_bytes().replace(b"<TRICKS>0</TRICKS><SCORE>0</SCORE>",
                                                                  b"<TRICKS>0</TRICKS><SCORE>50</SCORE>")
    frames, q = parse_usebio("club/np50.xml", data)
    assert q["location"].tolist() == ["BOARD 1, TRAVELLER_LINE 2"] and "'NP' is not a contract" in q["reason"].iloc[0]


def test_a_stated_score_the_scorer_matchpointed_is_scored_as_stated():
    """A scorer's USEBIO file is the authority for what was played: a stated SCORE that disagrees
    with Law 77 is the score its program matchpointed (the public multi-section file has two such
    lines, e.g. 6NT by W with 7 tricks stated -250), so it is scored as stated, nothing quarantined,
    and the Law 77 score of the contract as written is kept in law77_score_ns for the notice board.

    usebio_np_passed_in.xml with board 2, NS3 v EW2 (3S by S, 9 tricks: Law 77 +140) stated -100.
      Board 1 as before: NS1 4, NS2 2, NS3 0; EW1 0, EW2 2, EW3 4.
      Board 2: 110 = 110 > -100: NS1 3, NS2 3, NS3 0; EW3 1, EW1 1, EW2 4.
    Totals of 8: NS1 7 = 87.50 %, NS2 5 = 62.50 %, NS3 0 = 0.00 %;
                 EW1 1 = 12.50 %, EW2 6 = 75.00 %, EW3 5 = 62.50 %.
    """
    data = (FIX / "usebio_np_passed_in.xml").read_bytes().replace(
        b"<TRICKS>9</TRICKS><SCORE>140</SCORE>", b"<TRICKS>9</TRICKS><SCORE>-100</SCORE>")
    frames, q = parse_usebio("club/stated.xml", data)
    assert q.empty, q.to_dict("records")
    lines = frames["traveller_lines"].set_index(["board", "ns_pair"])
    assert lines.loc[(2, "3"), "score_ns"] == -100 and lines.loc[(2, "3"), "law77_score_ns"] == 140
    assert lines["law77_score_ns"].isna().sum() == 5  # the agreeing lines carry no second score
    st = session_standings_mp(matchpoint_boards(frames["traveller_lines"])).set_index(["direction", "entrant"])
    expected = {("NS", "1"): "87.50", ("NS", "2"): "62.50", ("NS", "3"): "0.00",
                ("EW", "1"): "12.50", ("EW", "2"): "75.00", ("EW", "3"): "62.50"}
    assert {k: str(st.loc[k, "percentage"]) for k in expected} == expected


def test_a_hand_typed_csv_with_a_wrong_stated_score_is_still_quarantined():
    from pipelines.bridge.parse_csv import parse_csv
    csv = (b"event_date,board,ns_pair,ew_pair,contract,declarer,result,score_ns\n"
           b"2026-11-23,1,1,1,3S,S,9,-100\n2026-11-23,1,2,2,2S,S,8,110\n")
    frames, q = parse_csv("club/typed.csv", csv)
    assert len(frames["traveller_lines"]) == 1 and len(q) == 1
    assert "stated score -100 for NS disagrees with Law 77" in q["reason"].iloc[0] and "140" in q["reason"].iloc[0]


def test_a_stated_score_posts_through_the_nightly_run_and_is_marked_on_the_notice_board(office):
    """End to end: the line posts (nothing quarantined), board_results keeps both scores, and the
    traveller on the notice board marks the stated score with a dagger naming the Law 77 score."""
    from pipelines.core import run as nightly
    from tests.bridge.test_bridge_pipeline import CLUB
    data = (FIX / "usebio_np_passed_in.xml").read_bytes().replace(
        b"<TRICKS>9</TRICKS><SCORE>140</SCORE>", b"<TRICKS>9</TRICKS><SCORE>-100</SCORE>")
    office.post(f"{CLUB}/2026-11-23-passed-in.xml", data)
    result = office.run()
    assert result.exit_code == nightly.EXIT_OK, office.query("select reason from quarantine")["reason"].tolist()
    br = office.query("select board, ns_pair, score_ns, stated_score_ns, law77_score_ns from board_results "
                      "where law77_score_ns is not null")
    assert br.to_dict("records") == [{"board": 2, "ns_pair": "3", "score_ns": -100, "stated_score_ns": -100,
                                      "law77_score_ns": 140}]
    pct = office.query("select direction, entrant, percentage from session_standings order by direction, entrant")
    assert [str(p) for p in pct["percentage"]] == ["12.50", "75.00", "62.50", "87.50", "62.50", "0.00"]  # as above
    mp = office.query("select direction, entrant, scorer_master_points from session_standings where scorer_master_points <> ''")
    assert sorted(map(tuple, mp.values.tolist())) == [("EW", "3", "15.00 b; 2.50 c"), ("NS", "1", "40.00 c")]  # 1500/100, 250/100, 4000/100
    html = next((office.state / "publications" / CLUB).glob("*passed-in-pairs")).joinpath("index.html").read_text("utf-8")
    assert "Law 77 gives 140 for NS" in html


def test_a_howell_with_a_phantom_scores_the_sit_out_pairs_over_the_boards_they_played():
    """usebio_howell_with_phantom.xml: 5 pairs and a phantom (pair 6, not listed), one winner; the
    pair meeting the phantom sits out (its lines have no contract, tricks or score). Pair 5 sits out
    boards 1-2, pair 4 boards 3-4. Every board has 2 results: top 2.
      B1 (none vul): 1v2 4S= N 420 > 3v4 4S-1 N -50       -> 1: 2, 2: 0;  3: 0, 4: 2
      B2 (NS vul):   1v2 3NT= S 600 < 3v4 3NT+1 S 630     -> 1: 0, 2: 2;  3: 2, 4: 0
      B3 (EW vul):   1v3 2H= E -110 > 2v5 2H+1 E -140     -> 1: 2, 3: 0;  2: 0, 5: 2
      B4 (all vul):  1v3 1NT= N 90 = 2v5 1NT= N 90        -> 1 each
    Over the boards played: 1 5/8 = 62.50, 2 3/8 = 37.50, 3 3/8 = 37.50, 4 2/4 = 50.00, 5 3/4 = 75.00
    (16 matchpoints in all = 4 boards x 2 results x 2). Places: 5, 1, 4, then 2 and 3 sharing 4th.
    """
    frames, q = parse_usebio("club/phantom.xml", (FIX / "usebio_howell_with_phantom.xml").read_bytes())
    assert q.empty, q.to_dict("records")
    lines = frames["traveller_lines"]
    assert len(lines) == 8 and "6" not in set(lines["ns_pair"]) | set(lines["ew_pair"])
    from pipelines.bridge.standings import compute_standings
    st = compute_standings(lines, frames["events"], frames["entrants"])["session_standings"].set_index("entrant")
    assert {e: str(st.loc[e, "percentage"]) for e in st.index} == {"1": "62.50", "2": "37.50", "3": "37.50",
                                                                   "4": "50.00", "5": "75.00"}
    assert {e: st.loc[e, "rank_label"] for e in st.index} == {"5": "1", "1": "2", "4": "3", "2": "4=", "3": "4="}
    assert {e: int(st.loc[e, "boards"]) for e in st.index} == {"1": 4, "2": 4, "3": 4, "4": 2, "5": 2}


def test_a_blank_line_between_two_listed_pairs_is_still_reported():
    data = (FIX / "usebio_howell_with_phantom.xml").read_bytes().replace(
        b"<TRAVELLER_LINE><NS_PAIR_NUMBER>5</NS_PAIR_NUMBER><EW_PAIR_NUMBER>6</EW_PAIR_NUMBER></TRAVELLER_LINE>",
        b"<TRAVELLER_LINE><NS_PAIR_NUMBER>5</NS_PAIR_NUMBER><EW_PAIR_NUMBER>4</EW_PAIR_NUMBER></TRAVELLER_LINE>")
    frames, q = parse_usebio("club/phantom.xml", data)
    reasons = dict(zip(q["location"], q["reason"]))  # (pair 4 also has two lines on board 1 now)
    assert "BOARD 1, TRAVELLER_LINE 3" in reasons and len(frames["traveller_lines"]) == 7


def test_the_scorers_master_points_are_kept_for_the_record_at_the_files_scale():
    """usebio_np_passed_in.xml: NS1 MASTER_POINTS_AWARDED 4000 type c; EW3 1500 type b and 250 type c.
    USEBIO 1.2 writers count hundredths (ABF's reader divides by 100; NZ Scorer's converter writes
    its 40 c-points as 4000): 4000 / 100 = 40.00 c, 1500 / 100 = 15.00 b, 250 / 100 = 2.50 c.
    A writer counting tenths (master_points_scale 10): 400.0 c, 150.0 b, 25.0 c. Types are kept
    apart (different denominations)."""
    from pipelines.bridge.standings import compute_standings
    frames, q = parse_usebio("club/mp.xml", (FIX / "usebio_np_passed_in.xml").read_bytes())
    assert q.empty
    for scale, ns1, ew3 in ((100, "40.00 c", "15.00 b; 2.50 c"), (10, "400.0 c", "150.0 b; 25.0 c")):
        st = compute_standings(frames["traveller_lines"], frames["events"].assign(master_points_scale=scale),
                               frames["entrants"])["session_standings"].set_index(["direction", "entrant"])
        assert st.loc[("NS", "1"), "scorer_master_points"] == ns1 and st.loc[("EW", "3"), "scorer_master_points"] == ew3
        assert (st.drop(index=[("NS", "1"), ("EW", "3")])["scorer_master_points"] == "").all()
    # a type in words (some writers spell the colour out): 4000 / 100 = 40.00
    named = (FIX / "usebio_np_passed_in.xml").read_bytes().replace(b"<MASTER_POINT_TYPE>c<", b"<MASTER_POINT_TYPE>Blue Points<", 1)
    frames, q = parse_usebio("club/mp.xml", named)
    st = compute_standings(frames["traveller_lines"], frames["events"], frames["entrants"])["session_standings"]
    assert q.empty and st.set_index(["direction", "entrant"]).loc[("NS", "1"), "scorer_master_points"] == "40.00 Blue Points"
    bad = (FIX / "usebio_np_passed_in.xml").read_bytes().replace(b"<MASTER_POINTS_AWARDED>4000<", b"<MASTER_POINTS_AWARDED>4o00<")
    frames, q = parse_usebio("club/mp.xml", bad)
    assert q["location"].tolist() == ["PARTICIPANTS, pair 1 NS"] and "MASTER_POINTS '4o00 c'" in q["reason"].iloc[0]
    assert len(frames["traveller_lines"]) == 6  # the results still post


def test_a_usebio_1_3_file():
    """usebio_v1_3.xml, written as USEBIO 1.3 writers do (a reader that handles both versions shows
    the differences: DATE in ISO form, EVENT_ID for 1.2's EVENT_IDENTIFIER, EVENT_RATING for
    MASTER_POINT_SCALE, EVENT_TYPE MP_PAIRS, a STRATIFICATION block, STRAT_PLACE), its DTD
    usebio_v1_3.dtd. Mitchell, 2 NS + 2 EW, top 2 a board:
      Board 1 (none vul): NS1 v EW1 3NT by S 10 tricks = +430 > NS2 v EW2 3NT by S 9 = +400:
                          NS1 2, NS2 0; EW1 0, EW2 2.
      Board 2 (NS vul; EW not): NS1 v EW2 4H by W 10 = -420 < NS2 v EW1 4H by W 9 = +50:
                          NS1 0, NS2 2; EW2 2, EW1 0.
    Of 4: NS1 2 = 50.00, NS2 2 = 50.00 (1= both), EW1 0 = 0.00, EW2 4 = 100.00 (the file's own
    PERCENTAGE and PLACE). MASTER_POINTS_AWARDED 45 black, in hundredths: 0.45 black."""
    from pipelines.bridge.standings import compute_standings
    frames, q = parse_usebio("club/v13.xml", (FIX / "usebio_v1_3.xml").read_bytes())
    assert q.empty, q.to_dict("records")
    ev = frames["events"].iloc[0]
    assert str(ev["event_date"]) == "2026-11-29" and ev["movement"] == "mitchell" and int(ev["winner_type"]) == 2
    lines = frames["traveller_lines"].set_index(["board", "ns_pair"])
    assert lines["score_ns"].to_dict() == {(1, "1"): 430, (1, "2"): 400, (2, "1"): -420, (2, "2"): 50}
    st = compute_standings(frames["traveller_lines"], frames["events"], frames["entrants"])["session_standings"]
    got = {(r.direction, r.entrant): (str(r.percentage), r.rank_label, r.scorer_master_points) for r in st.itertuples()}
    assert got == {("NS", "1"): ("50.00", "1=", "0.45 black"), ("NS", "2"): ("50.00", "1=", ""),
                   ("EW", "1"): ("0.00", "2", ""), ("EW", "2"): ("100.00", "1", "")}
