"""Every worked example of the seed (002_b38bcd2d61619209.txt) through the nightly run."""
from __future__ import annotations

from se_helpers import column, post_event, register


def _run(office):
    result = office.run()
    return result


def test_qualification_and_a_final_with_carry_over_43_sp(office):
    # p. 4: 60 pairs, 12 rounds qualification + 12 rounds A-final with carry-over:
    # 12 + 12 + 1 + (60 − 25)/2 = 25 + 18 = 43 sp; the first 11 (43/4) get sp, no bp in the A-final:
    # 43, 29, 21, 18, 14, 12, 10, 9, 7, 5, 4 sp
    register(office)
    post_event(office, "bk-lavec", "final", 60, nivå="silver", brickor="48", final="A", kval_ronder="12", final_ronder="12")
    _run(office)
    assert column(office, "final", "sp")[:12] == [43, 29, 21, 18, 14, 12, 10, 9, 7, 5, 4, 0]
    assert sum(column(office, "final", "bp")) == 0


def test_60_pairs_meeting_30_gives_46(office):
    # p. 12: 1 + 30 + 29/2 = 45.5 → 46; the 46-pair row: 12 (not 15) get sp and 8 more get bp
    register(office)
    post_event(office, "bk-lavec", "s60", 60, nivå="silver", brickor="52", mött="30")
    _run(office)
    sp, bp = column(office, "s60", "sp"), column(office, "s60", "bp")
    assert sp[0] == 46
    assert sum(1 for v in sp if v) == 12
    assert sum(1 for v in bp if v) == 8 and all(bp[12:20]) and not any(bp[20:])


def test_200_pairs_meeting_30_capped_at_100(office):
    # p. 12, Exempel 1: 1 + 30 + 169/2 = 115.5 → the cap 100; 16 pairs sp by the 100-pair row of
    # table D; 51 more (places 17-67) bp by the 200 scale
    register(office)
    post_event(office, "bk-lavec", "s200", 200, nivå="silver", brickor="52", mött="30")
    _run(office)
    sp, bp = column(office, "s200", "sp"), column(office, "s200", "bp")
    assert sp[:16] == [100, 67, 50, 42, 34, 29, 25, 23, 21, 19, 17, 15, 12, 10, 8, 7]  # Tabell D row 100
    assert not any(sp[16:]) and all(bp[16:67]) and not any(bp[67:]) and not any(bp[:16])


def test_142_pairs_meeting_29_gives_86(office):
    # p. 12, Exempel 2: 1 + 29 + 112/2 = 86; 16 pairs sp by the 86-pair row; 32 more bp (17-48)
    register(office)
    post_event(office, "bk-lavec", "s142", 142, nivå="silver", brickor="52", mött="29")
    _run(office)
    sp, bp = column(office, "s142", "sp"), column(office, "s142", "bp")
    assert sp[:16] == [86, 58, 43, 36, 29, 25, 21, 19, 18, 16, 14, 12, 10, 9, 7, 5]  # Tabell D row 86 as printed
    assert sum(1 for v in bp if v) == 32 and all(bp[16:48])


def test_individual_24_players_19_rounds_gives_17(office):
    # p. 15: (19+1) × 0.75 + 4 × 0.75/2 = 16.5 = 17 sp; 17, 12, 8, 6, 4, 3 sp, then 8 bp and 8 bp
    register(office)
    post_event(office, "bk-lavec", "ind", 24, per=1, nivå="silver", form="individuell", brickor="38", mött="19")
    _run(office)
    assert column(office, "ind", "sp")[:7] == [17, 12, 8, 6, 4, 3, 0]
    assert column(office, "ind", "bp")[:9] == [0, 0, 0, 0, 0, 0, 8, 8, 0]


def test_gold_52_sp_gives_6_gp(office):
    # p. 16: winners who would have had 52 sp get 6 gp; three pairs get gp from 32 pairs
    register(office)
    post_event(office, "malmo-bk", "guld", 52, nivå="guld", brickor="60", sanktion="FSB-G-1")
    _run(office)
    gp = column(office, "guld", "gp")
    assert gp[0] == 6 and sum(1 for v in gp if v) == 3
    assert column(office, "guld", "sp")[3] == 22  # then silver from the 4th place (D row 52)


def test_raised_gold_10_7_5_4(office):
    register(office)
    post_event(office, "malmo-bk", "fguld", 40, nivå="förhöjt guld", brickor="60", sanktion="FSB-G-2")
    _run(office)
    assert column(office, "fguld", "gp")[:5] == [10, 7, 5, 4, 0]


def test_b_final_without_carry_over_20_pairs(office):
    # p. 4: "20 par i B-final utan carry-over ger det 40, 27, 18, 12, 8, 6, 4 bp"
    register(office)
    post_event(office, "bk-lavec", "bfinal", 20, nivå="brons", brickor="24")
    _run(office)
    assert column(office, "bfinal", "bp")[:8] == [40, 27, 18, 12, 8, 6, 4, 0]


def test_bronze_simultaneous_200_pairs_400_bp(office):
    # p. 4: "Vid 200 par får ettan 400 bp osv." (the heats' common list, as one bronze event)
    register(office)
    post_event(office, "bk-lavec", "simultan", 200, nivå="brons", brickor="24")
    _run(office)
    bp = column(office, "simultan", "bp")
    assert bp[0] == 400 and sum(1 for v in bp if v) == 67


def test_barometer_reserve_10_of_15_matches_two_thirds(office):
    # p. 8: a player of a team of more than 4 who played 10 of 15 matches gets 2/3 of the points
    register(office)
    extra = (["spelat"], lambda i: ["15 15 15 15 10"])
    post_event(office, "malmo-bk", "baro", 8, per=5, extra=extra, nivå="brons", form="lagbarometer", brickor="30", matcher="15")
    _run(office)
    fifth = office.query("select points from awards where player_id = ? and event_id like '%baro'", ["200004"])
    assert int(fifth["points"][0]) == 16  # ⌈24 × 10/15⌉ = 16; the winner of B1 row 8 gets 24
    first = office.query("select points from awards where player_id = ? and event_id like '%baro'", ["200000"])
    assert int(first["points"][0]) == 24


def test_nybörjarträff_uses_the_50_pair_row(office):
    # p. 5: up to 99 pairs 100 bp to the winners by the 50-pair scale (Tabell A2)
    register(office)
    post_event(office, "bk-lavec", "nyb", 12, nivå="brons", brickor="18", nybörjarträff="ja")
    _run(office)
    assert column(office, "nyb", "bp")[:5] == [100, 67, 50, 42, 0]  # a third of 12 = 4 places


def test_handicap_list_gets_half(office):
    # p. 5: the winner after handicap gets half the winner's points without handicap; a pair on
    # both lists gets the better; minimum 2
    register(office)
    hcp = ["12", "11", "10", "9", "8", "7", "6", "5", "4", "3", "2", "1"]  # reversed order
    post_event(office, "bk-lavec", "hcp", 12, extra=(["hcp_plac"], lambda i: [hcp[i]]), nivå="brons", brickor="24", handikapp="ja")
    _run(office)
    # A1 row 12: 24 16 11 8; handicap half: 12 8 6 4
    assert column(office, "hcp", "bp") == [24, 16, 11, 8, 0, 0, 0, 0, 4, 6, 8, 12]


def test_shared_places_and_shared_last_place(office):
    # p. 5 "Delad placering": the pairs share the sum of their places, rounded up; p. 6 "Delad sista
    # bp-plats ger 4 bp till alla som delar platsen". A1 row 10: 20 14 10 7.
    register(office)
    places = ["1", "2=", "2=", "4", "5=", "5=", "5=", "8", "9", "10"]
    post_event(office, "bk-lavec", "tie", 10, places=places, nivå="brons", brickor="24")
    _run(office)
    # places 2-3 shared: (14 + 10)/2 = 12; place 4: 7; places 5-7 share nothing → no points
    assert column(office, "tie", "bp") == [20, 12, 12, 7, 0, 0, 0, 0, 0, 0]
    places = ["1", "2", "3", "4=", "4=", "4=", "7", "8", "9", "10"]
    post_event(office, "bk-lavec", "tie2", 10, places=places, nivå="brons", brickor="24")
    _run(office)
    # the last bp place (4th: 7 bp) shared by three: ⌈7/3⌉ = 3 → at least 4 each
    assert column(office, "tie2", "bp")[:7] == [20, 14, 10, 4, 4, 4, 0]


def test_sm_pairs_final_round_1_capped(office):
    # p. 16 (H1): 33 + 1 + (170 − 34)/2 = 102 → silver to the first 16 by the 100-pair scale
    register(office)
    post_event(office, "bk-lavec", "h1", 170, nivå="silver", brickor="52", mött="33")
    _run(office)
    assert column(office, "h1", "sp")[:2] == [100, 67]


def test_simultaneous_silver_heat_and_common_list_bonus(office):
    # p. 4: silver in each heat (at least 8 pairs per heat); at most 16 pairs get a bonus of 1/5 of
    # the points on the common list; no bronze from the common list
    register(office)
    post_event(office, "bk-lavec", "heat-a", 10, nivå="silver", brickor="42", simultan="ja")
    post_event(office, "malmo-bk", "heat-b", 10, start=20, nivå="silver", brickor="42", simultan="ja")
    post_event(office, "bk-lavec", "gemensam", 20, nivå="silver", brickor="42", gemensam_lista="ja")
    office.run()
    # heat of 10 pairs: winner 10 (Tabell D has no 10-row: 2/3 chain from 10, ⌈10/4⌉ = 3 places: 10 7 5)
    assert column(office, "heat-a", "sp")[:4] == [10, 7, 5, 0]
    # common list of 20: Tabell D row 20: 20 14 10 7 5 → ⌈/5⌉: 4 3 2 2 1
    assert column(office, "gemensam", "sp")[:6] == [4, 3, 2, 2, 1, 0]
    assert sum(column(office, "gemensam", "bp")) == 0


def test_barometer_in_two_divisions(office):
    # p. 8: division 1 by 1.2 × its teams, division 2 by 0.8 ×; the best third of each division
    register(office)
    extra = (["sektion"], lambda i: ["1" if i < 10 else "2"])
    places = [str(i % 10 + 1) for i in range(20)]
    post_event(office, "malmo-bk", "div", 20, per=4, places=places, extra=extra, nivå="brons", form="lagbarometer",
               brickor="28", divisioner="ja")
    office.run()
    bp = column(office, "div", "bp")
    # division 1: 10 × 1.2 = 12 → B1 row 12: 36 24 16 11; division 2: 10 × 0.8 = 8 → B1 row 8: 24 16 11,
    # a third of 10 teams = 4 places: the 4th by the 2/3 chain ⌈2/3 × 11⌉ = 8
    assert bp[:5] == [36, 24, 16, 11, 0]
    assert bp[10:15] == [24, 16, 11, 8, 0]


def test_pair_reserve_must_play_half(office):
    # p. 5 "Reserver": at least half of the rounds
    register(office)
    extra = (["spelat"], lambda i: ["10 4"] if i == 0 else ["10 5"] if i == 1 else ["10 10"])
    post_event(office, "bk-lavec", "res", 8, extra=extra, nivå="brons", brickor="30", ronder="10")
    office.run()
    got = office.query("select player_id, points from awards order by player_id")
    pts = dict(zip(got["player_id"], got["points"].map(int)))
    assert "200001" not in pts and pts["200000"] == 16  # 4 of 10 rounds: no points; the partner gets A1 row 8's 16
    assert pts["200003"] == 11  # 5 of 10 rounds is half: the points of 2nd place
