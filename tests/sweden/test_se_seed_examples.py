"""Every worked example of the seed (002_b38bcd2d61619209.txt) through the nightly run.

The examples' events are one club night of the federation (one office, one nightly run), as a
federation office receives them: each test reads its own event's lines. Their members are the
same players, so an example whose points leaked into another's event would show."""
from __future__ import annotations

import pytest

from office import Office
from se_helpers import column, post_event, register


@pytest.fixture(scope="module")
def night(tmp_path_factory) -> Office:
    office = Office(tmp_path_factory.mktemp("seed-examples"))
    register(office)
    # the qualification + A-final with carry-over (p. 4)
    post_event(office, "bk-lavec", "final", 60, nivå="silver", brickor="48", final="A", kval_ronder="12", final_ronder="12")
    # silver when not all met (p. 12) and the SM pairs final's first round (p. 16)
    post_event(office, "bk-lavec", "s60", 60, nivå="silver", brickor="52", mött="30")
    post_event(office, "bk-lavec", "s200", 200, nivå="silver", brickor="52", mött="30")
    post_event(office, "bk-lavec", "s142", 142, nivå="silver", brickor="52", mött="29")
    post_event(office, "bk-lavec", "h1", 170, nivå="silver", brickor="52", mött="33")
    # the individual (p. 15)
    post_event(office, "bk-lavec", "ind", 24, per=1, nivå="silver", form="individuell", brickor="38", mött="19")
    # gold and raised gold (p. 16)
    post_event(office, "malmo-bk", "guld", 52, nivå="guld", brickor="60", sanktion="FSB-G-1")
    post_event(office, "malmo-bk", "fguld", 40, nivå="förhöjt guld", brickor="60", sanktion="FSB-G-2")
    # bronze: a B-final, 200 pairs, nybörjarträff, handicap (pp. 4-5)
    post_event(office, "bk-lavec", "bfinal", 20, nivå="brons", brickor="24")
    post_event(office, "bk-lavec", "simultan", 200, nivå="brons", brickor="24")
    post_event(office, "bk-lavec", "nyb", 12, nivå="brons", brickor="18", nybörjarträff="ja")
    hcp = ["12", "11", "10", "9", "8", "7", "6", "5", "4", "3", "2", "1"]  # reversed order
    post_event(office, "bk-lavec", "hcp", 12, extra=(["hcp_plac"], lambda i: [hcp[i]]), nivå="brons", brickor="24", handikapp="ja")
    # shared places and a shared last place (pp. 5-6)
    post_event(office, "bk-lavec", "tie", 10, places=["1", "2=", "2=", "4", "5=", "5=", "5=", "8", "9", "10"],
               nivå="brons", brickor="24")
    post_event(office, "bk-lavec", "tie2", 10, places=["1", "2", "3", "4=", "4=", "4=", "7", "8", "9", "10"],
               nivå="brons", brickor="24")
    # simultaneous silver heats and their common list (p. 4)
    post_event(office, "bk-lavec", "heat-a", 10, nivå="silver", brickor="42", simultan="ja")
    post_event(office, "malmo-bk", "heat-b", 10, start=20, nivå="silver", brickor="42", simultan="ja")
    post_event(office, "bk-lavec", "gemensam", 20, nivå="silver", brickor="42", gemensam_lista="ja")
    # barometers: a team of five with a reserve, two divisions (p. 8)
    post_event(office, "malmo-bk", "baro", 8, per=5, extra=(["spelat"], lambda i: ["15 15 15 15 10"]), nivå="brons",
               form="lagbarometer", brickor="30", matcher="15")
    post_event(office, "malmo-bk", "div", 20, per=4, places=[str(i % 10 + 1) for i in range(20)],
               extra=(["sektion"], lambda i: ["1" if i < 10 else "2"]), nivå="brons", form="lagbarometer",
               brickor="28", divisioner="ja")
    # a pair reserve (p. 5)
    post_event(office, "bk-lavec", "res", 8, extra=(["spelat"], lambda i: ["10 4"] if i == 0 else ["10 5"] if i == 1 else ["10 10"]),
               nivå="brons", brickor="30", ronder="10")
    result = office.run()
    assert result.exit_code == 0, office.query("select source_file, location, reason from quarantine").to_dict("records")
    return office


def test_qualification_and_a_final_with_carry_over_43_sp(night):
    # p. 4: 60 pairs, 12 rounds qualification + 12 rounds A-final with carry-over:
    # 12 + 12 + 1 + (60 − 25)/2 = 25 + 18 = 43 sp; the first 11 (43/4) get sp, no bp in the A-final:
    # 43, 29, 21, 18, 14, 12, 10, 9, 7, 5, 4 sp
    assert column(night, "/final", "sp")[:12] == [43, 29, 21, 18, 14, 12, 10, 9, 7, 5, 4, 0]
    assert sum(column(night, "/final", "bp")) == 0


def test_60_pairs_meeting_30_gives_46(night):
    # p. 12: 1 + 30 + 29/2 = 45.5 → 46; the 46-pair row: 12 (not 15) get sp and 8 more get bp
    sp, bp = column(night, "/s60", "sp"), column(night, "/s60", "bp")
    assert sp[0] == 46
    assert sum(1 for v in sp if v) == 12
    assert sum(1 for v in bp if v) == 8 and all(bp[12:20]) and not any(bp[20:])


def test_200_pairs_meeting_30_capped_at_100(night):
    # p. 12, Exempel 1: 1 + 30 + 169/2 = 115.5 → the cap 100; 16 pairs sp by the 100-pair row of
    # table D; 51 more (places 17-67) bp by the 200 scale
    sp, bp = column(night, "/s200", "sp"), column(night, "/s200", "bp")
    assert sp[:16] == [100, 67, 50, 42, 34, 29, 25, 23, 21, 19, 17, 15, 12, 10, 8, 7]  # Tabell D row 100
    assert not any(sp[16:]) and all(bp[16:67]) and not any(bp[67:]) and not any(bp[:16])


def test_142_pairs_meeting_29_gives_86(night):
    # p. 12, Exempel 2: 1 + 29 + 112/2 = 86; 16 pairs sp by the 86-pair row; 32 more bp (17-48)
    sp, bp = column(night, "/s142", "sp"), column(night, "/s142", "bp")
    assert sp[:16] == [86, 58, 43, 36, 29, 25, 21, 19, 18, 16, 14, 12, 10, 9, 7, 5]  # Tabell D row 86 as printed
    assert sum(1 for v in bp if v) == 32 and all(bp[16:48])


def test_individual_24_players_19_rounds_gives_17(night):
    # p. 15: (19+1) × 0.75 + 4 × 0.75/2 = 16.5 = 17 sp; 17, 12, 8, 6, 4, 3 sp, then 8 bp and 8 bp
    assert column(night, "/ind", "sp")[:7] == [17, 12, 8, 6, 4, 3, 0]
    assert column(night, "/ind", "bp")[:9] == [0, 0, 0, 0, 0, 0, 8, 8, 0]


def test_gold_52_sp_gives_6_gp(night):
    # p. 16: winners who would have had 52 sp get 6 gp; three pairs get gp from 32 pairs
    gp = column(night, "/guld", "gp")
    assert gp[0] == 6 and sum(1 for v in gp if v) == 3
    assert column(night, "/guld", "sp")[3] == 22  # then silver from the 4th place (D row 52)


def test_raised_gold_10_7_5_4(night):
    assert column(night, "/fguld", "gp")[:5] == [10, 7, 5, 4, 0]


def test_b_final_without_carry_over_20_pairs(night):
    # p. 4: "20 par i B-final utan carry-over ger det 40, 27, 18, 12, 8, 6, 4 bp"
    assert column(night, "/bfinal", "bp")[:8] == [40, 27, 18, 12, 8, 6, 4, 0]


def test_bronze_simultaneous_200_pairs_400_bp(night):
    # p. 4: "Vid 200 par får ettan 400 bp osv." (the heats' common list, as one bronze event)
    bp = column(night, "/simultan", "bp")
    assert bp[0] == 400 and sum(1 for v in bp if v) == 67


def test_barometer_reserve_10_of_15_matches_two_thirds(night):
    # p. 8: a player of a team of more than 4 who played 10 of 15 matches gets 2/3 of the points
    fifth = night.query("select points from awards where player_id = ? and event_id like '%/baro'", ["200004"])
    assert int(fifth["points"][0]) == 16  # ⌈24 × 10/15⌉ = 16; the winner of B1 row 8 gets 24
    first = night.query("select points from awards where player_id = ? and event_id like '%/baro'", ["200000"])
    assert int(first["points"][0]) == 24


def test_nybörjarträff_uses_the_50_pair_row(night):
    # p. 5: up to 99 pairs 100 bp to the winners by the 50-pair scale (Tabell A2)
    assert column(night, "/nyb", "bp")[:5] == [100, 67, 50, 42, 0]  # a third of 12 = 4 places


def test_handicap_list_gets_half(night):
    # p. 5: the winner after handicap gets half the winner's points without handicap; a pair on
    # both lists gets the better; minimum 2
    # A1 row 12: 24 16 11 8; handicap half: 12 8 6 4
    assert column(night, "/hcp", "bp") == [24, 16, 11, 8, 0, 0, 0, 0, 4, 6, 8, 12]


def test_shared_places_and_shared_last_place(night):
    # p. 5 "Delad placering": the pairs share the sum of their places, rounded up; p. 6 "Delad sista
    # bp-plats ger 4 bp till alla som delar platsen". A1 row 10: 20 14 10 7.
    # places 2-3 shared: (14 + 10)/2 = 12; place 4: 7; places 5-7 share nothing → no points
    assert column(night, "/tie", "bp") == [20, 12, 12, 7, 0, 0, 0, 0, 0, 0]
    # the last bp place (4th: 7 bp) shared by three: ⌈7/3⌉ = 3 → at least 4 each
    assert column(night, "/tie2", "bp")[:7] == [20, 14, 10, 4, 4, 4, 0]


def test_sm_pairs_final_round_1_capped(night):
    # p. 16 (H1): 33 + 1 + (170 − 34)/2 = 102 → silver to the first 16 by the 100-pair scale
    assert column(night, "/h1", "sp")[:2] == [100, 67]


def test_simultaneous_silver_heat_and_common_list_bonus(night):
    # p. 4: silver in each heat (at least 8 pairs per heat); at most 16 pairs get a bonus of 1/5 of
    # the points on the common list; no bronze from the common list
    # heat of 10 pairs: winner 10 (Tabell D has no 10-row: 2/3 chain from 10, ⌈10/4⌉ = 3 places: 10 7 5)
    assert column(night, "/heat-a", "sp")[:4] == [10, 7, 5, 0]
    # common list of 20: Tabell D row 20: 20 14 10 7 5 → ⌈/5⌉: 4 3 2 2 1
    assert column(night, "/gemensam", "sp")[:6] == [4, 3, 2, 2, 1, 0]
    assert sum(column(night, "/gemensam", "bp")) == 0


def test_barometer_in_two_divisions(night):
    # p. 8: division 1 by 1.2 × its teams, division 2 by 0.8 ×; the best third of each division
    bp = column(night, "/div", "bp")
    # division 1: 10 × 1.2 = 12 → B1 row 12: 36 24 16 11; division 2: 10 × 0.8 = 8 → B1 row 8: 24 16 11,
    # a third of 10 teams = 4 places: the 4th by the 2/3 chain ⌈2/3 × 11⌉ = 8
    assert bp[:5] == [36, 24, 16, 11, 0]
    assert bp[10:15] == [24, 16, 11, 8, 0]


def test_pair_reserve_must_play_half(night):
    # p. 5 "Reserver": at least half of the rounds
    got = night.query("select player_id, points from awards where event_id like '%/res' order by player_id")
    pts = dict(zip(got["player_id"], got["points"].map(int)))
    assert "200001" not in pts and pts["200000"] == 16  # 4 of 10 rounds: no points; the partner gets A1 row 8's 16
    assert pts["200003"] == 11  # 5 of 10 rounds is half: the points of 2nd place
