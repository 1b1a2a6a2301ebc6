"""Defects an audit of the Swedish scoring found (each test reproduces one with a small event; the
expected values come from the seed, 002_b38bcd2d61619209.txt, and the arithmetic in the comments)."""
from __future__ import annotations

from se_helpers import column, post_event, register


def _reasons(office):
    return list(office.query("select reason from quarantine")["reason"])


def test_met_every_other_pair_is_all_met_all(office):
    # 40 pairs, each met 39 = every other pair: all met all, so Tabell D row 40 as printed, red
    # bronze included (p. 11: "Röda siffror ... Dessa poäng gäller om alla mött alla"):
    # 40 27 20 17 14 12 10 9 7 5 sp (⌈40/4⌉ = 10 places), then 12 8 8 8 bp to ⌈40/3⌉ = 14
    register(office)
    silver = [40, 27, 20, 17, 14, 12, 10, 9, 7, 5]
    for name, met in (("m39", "39"), ("alla", "alla")):
        post_event(office, "bk-lavec", name, 40, nivå="silver", brickor="44", ronder="22", mött=met)
    office.run()
    for name in ("m39", "alla"):
        assert column(office, name, "sp")[:11] == silver + [0]
        assert column(office, name, "bp")[10:15] == [12, 8, 8, 8, 0]


def test_a_gold_event_does_not_count_against_the_silver_sanction_limit(office):
    # Gävle BK has 45 members: "högst fem silvertävlingar per spelår" (p. 3); the limit counts silver
    # events, a gold event is sanctioned by the federation. A gold event on 2024-09-07 and five silver
    # events on the Saturdays 09-14 ... 10-12, posted the same night: all five silver events post
    # (5 ≤ 5), as they do on separate nights; six events in all
    register(office)
    post_event(office, "gavle-bk", "guld", 32, nivå="guld", brickor="57", datum="2024-09-07", sanktion="SBF-1")
    for i, d in enumerate(["2024-09-14", "2024-09-21", "2024-09-28", "2024-10-05", "2024-10-12"]):
        post_event(office, "gavle-bk", f"s{i}", 16, nivå="silver", brickor="42", datum=d)
    office.run()
    assert not any("silver events in season" in r for r in _reasons(office))
    assert office.query("select count(*) as n from events")["n"][0] == 6
    # a sixth silver event is still over the limit
    post_event(office, "gavle-bk", "s5", 16, nivå="silver", brickor="42", datum="2024-10-19")
    office.run()
    assert any("may hold 5 silver events in season 2024/25 and this is number 6" in r for r in _reasons(office))


def test_a_barometer_needs_two_boards_a_match(office):
    # Tabell B1 (p. 8): "Minsta antal brickor per match: 2" (requirements.csv, min_boards_per_match).
    # 19 teams, 18 boards in 18 matches = 1 board a match: held; the same by rounds (ronder); 36
    # boards in 18 matches = 2 a match: scored, B1 row 19: winner 3 × 19 = 57
    register(office)
    post_event(office, "malmo-bk", "ett", 19, per=4, nivå="brons", form="lagbarometer", brickor="18", matcher="18")
    post_event(office, "malmo-bk", "ronder", 19, per=4, nivå="brons", form="lagbarometer", brickor="18", ronder="18")
    post_event(office, "malmo-bk", "tva", 19, per=4, nivå="brons", form="lagbarometer", brickor="36", matcher="18")
    office.run()
    q = office.query("select source_file, reason from quarantine")
    for name, played in (("ett", "18 matches"), ("ronder", "18 rounds")):
        held = [r for f, r in zip(q["source_file"], q["reason"]) if f.endswith(f"/{name}.standings.csv")]
        assert any("at least 2 boards a match" in r and f"found 18 boards in {played}" in r for r in held), held
        assert column(office, name, "bp") == []
    assert column(office, "tva", "bp")[0] == 57


def _register_with(office, extra: dict[str, str]):
    from se_helpers import CLUBS, MEMBERS, ORG

    text = "medlemsnummer;namn;klubb\n" + "".join(f"{m};Spelare {m};{c}\n" for m, c in extra.items())
    text += "".join(f"{m};Spelare {m};{CLUBS[i % 8]}\n" for i, m in enumerate(MEMBERS))
    office.post(f"{ORG}/medlemsregister.csv", text)


def _pairs_list(members: list[str]) -> str:
    return "plac;par;medlemmar\n" + "".join(f"{i + 1};{i + 1};{members[2 * i]} {members[2 * i + 1]}\n"
                                            for i in range(len(members) // 2))


def test_a_championship_needs_five_clubs_only_the_percentages_are_waived(office):
    # p. 4: "För att kunna få silverstatus måste en par/individuell-tävling ha deltagare från minst fem
    # klubbar. Ingen klubb får representeras av mer än 50 % ... Dessa procenttal gäller ej vid
    # mästerskapstävlingar. Klubb med 100-199 medlemmar räknas som två klubbar och 200 och fler som tre"
    from se_helpers import ORG

    two = {str(300000 + i): ("10002", "10003")[i % 2] for i in range(24)}       # 85 and 60 members: 2 clubs
    three = {str(310000 + i): ("10002", "10003", "10005")[i % 3] for i in range(32)}  # 3 small clubs: 3
    # BK Lavec (240 members, counts as three) with 20 of 32 players, and two small clubs: 3 + 1 + 1 = 5
    lavec = {str(320000 + i): "10001" if i < 20 else ("10002", "10003")[i % 2] for i in range(32)}
    _register_with(office, {**two, **three, **lavec})
    office.post(f"{ORG}/sundsvalls-bk/dm.event.txt", "datum: 2024-10-05\nnivå: silver\nform: par\nbrickor: 42\ndm: par\n")
    office.post(f"{ORG}/sundsvalls-bk/dm.standings.csv", _pairs_list(list(two)))
    office.post(f"{ORG}/bk-skara/msk.event.txt", "datum: 2024-10-05\nnivå: silver\nform: par\nbrickor: 42\nmästerskap: ja\n")
    office.post(f"{ORG}/bk-skara/msk.standings.csv", _pairs_list(list(three)))
    office.post(f"{ORG}/bk-lavec/msk.event.txt", "datum: 2024-10-05\nnivå: silver\nform: par\nbrickor: 42\nmästerskap: ja\n")
    office.post(f"{ORG}/bk-lavec/msk.standings.csv", _pairs_list(list(lavec)))
    office.run()
    q = office.query("select source_file, reason from quarantine")
    held = {f.split("/")[-2] for f, r in zip(q["source_file"], q["reason"]) if "players from at least 5 clubs" in r}
    assert any("found 2" in r for r in q["reason"]) and any("found 3" in r for r in q["reason"])
    assert held == {"sundsvalls-bk", "bk-skara"}
    assert office.query("select count(*) as n from awards where event_id like '%sundsvalls-bk/dm%'")["n"][0] == 0
    # 5 clubs by size, 62.5 % from one club (no percentage limit in a championship): Tabell D row 16
    assert column(office, "bk-lavec/msk", "sp")[:5] == [16, 11, 8, 6, 0]


def test_the_board_coefficient_raises_the_points_not_the_silver_places(office):
    # p. 12: "Om antalet brickor är minst 100 utdelas poäng efter 1,2 x poängantalet ... Bästa
    # fjärdedelen erhåller silverpoäng dock högst 16 par. Därefter erhåller paren ner till 1/3
    # bronspoäng enligt skalan för antalet startande par i tävlingen."
    register(office)
    post_event(office, "bk-lavec", "b260", 20, nivå="silver", brickor="260")
    post_event(office, "bk-lavec", "b100", 24, nivå="silver", brickor="100")
    post_event(office, "bk-lavec", "m30", 60, nivå="silver", brickor="100", mött="30")
    office.run()
    # 20 pairs, 260 boards: × 1.8 (250-299), 1.8 × 20 = 36 → Tabell D row 36; silver to the best
    # quarter, ⌈20/4⌉ = 5: 36 24 18 15 11 sp; bronze to ⌈20/3⌉ = 7 by 2 × A1 row 20 (40 27 18 12 8 6 4):
    # places 6-7 get 2 × 6 = 12 and 2 × 4 = 8 bp
    assert column(office, "b260", "sp")[:6] == [36, 24, 18, 15, 11, 0]
    assert column(office, "b260", "bp")[4:8] == [0, 12, 8, 0]
    # 24 pairs, 100 boards: ⌈1.2 × 24⌉ = 29 → row 29 (29 20 14 10 7 5 4 3); ⌈24/4⌉ = 6 silver places;
    # bronze to ⌈24/3⌉ = 8 by 2 × A1 row 24 (48 32 22 15 10 7 5 4): places 7-8 get 10 and 8 bp
    assert column(office, "b100", "sp")[:7] == [29, 20, 14, 10, 7, 5, 0]
    assert column(office, "b100", "bp")[5:9] == [0, 10, 8, 0]
    # 60 pairs, each met 30, 100 boards: W = 1 + 30 + 29/2 = 45.5 → 46; × 1.2 = 55.2 → 56: the values
    # of row 56, on ⌈46/4⌉ = 12 silver places (the seed's "12 (och inte 15)", not ⌈56/4⌉ = 14);
    # bronze to ⌈60/3⌉ = 20 by 2 × A2 row 60 (places 13-20: 8 7 6 5 4 4 4 4)
    assert column(office, "m30", "sp")[:13] == [56, 38, 28, 24, 19, 16, 13, 11, 9, 7, 6, 5, 0]
    assert column(office, "m30", "bp")[11:21] == [0, 16, 14, 12, 10, 8, 8, 8, 8, 0]


def test_silver_groups_by_strength_count_the_corrected_field_for_bronze_too(office):
    # p. 12: "Vid gruppindelning gäller samma bestämmelser som för bronspoäng"; p. 6 (A1): "Vid
    # gruppindelning för par efter spelstyrka korrigeras parantalet med ovanstående koefficient. Det
    # kan bli fler eller färre än en tredjedel av paren som erhåller poäng ... Det är parantalet som
    # multipliceras, inte poängen i tabellen." 20 pairs, all met all (19 rounds):
    register(office)
    post_event(office, "bk-lavec", "ga", 20, nivå="silver", brickor="44", ronder="19", grupper="2 A")
    post_event(office, "bk-lavec", "gb", 20, nivå="silver", brickor="44", ronder="19", grupper="2 B")
    office.run()
    # group A: ⌈20 × 1.1⌉ = 22: Tabell D row 22, ⌈22/4⌉ = 6 silver places (22 15 10 7 5 4), bronze to
    # ⌈22/3⌉ = 8 by 2 × A1 row 22 (44 30 20 14 10 7 5 4): places 7-8 get 10 and 8 bp
    assert column(office, "ga", "sp")[:7] == [22, 15, 10, 7, 5, 4, 0]
    assert column(office, "ga", "bp")[5:9] == [0, 10, 8, 0]
    # group B: ⌈20 × 0.9⌉ = 18: row 18, ⌈18/4⌉ = 5 silver places (18 12 8 6 4), bronze to ⌈18/3⌉ = 6
    # by 2 × A1 row 18 (36 24 16 11 8 6): place 6 gets 12 bp, place 7 nothing
    assert column(office, "gb", "sp")[:6] == [18, 12, 8, 6, 4, 0]
    assert column(office, "gb", "bp")[4:8] == [0, 12, 0, 0]


def test_a_gold_team_barometer_is_scored_by_tabell_e1_in_gold(office):
    # p. 4: "Vid lagtävlingar ska minst 16 lag deltaga"; p. 16: "Poäng vid guldtävlingar räknas som för
    # silverpoäng men i guldvaluta. Skulle vinnarna fått 52 silverpoäng blir det 6 guldpoäng och poäng
    # delas ut till tre par/lag ... Därefter utdelas silverpoäng till högst 16:e plats och därefter
    # eventuellt bronspoäng till resten, dock högst för första tredjedelen ... multiplicerar
    # bronspoäng med tre för guldtävlingar."
    register(office)
    gold = dict(nivå="guld", form="lagbarometer", brickor="60", matcher="15", sanktion="SBF-2024-7")
    post_event(office, "malmo-bk", "guldlag", 16, per=4, **gold)
    post_event(office, "malmo-bk", "femton", 15, per=4, **dict(gold, matcher="14"))
    office.run()
    # 16 teams, 15 matches (all met all): Tabell E1 row 16, 24 16 11 8 sp (⌈16/4⌉ = 4 places); gold to
    # three teams, ⌈24/10⌉ = 3, ⌈16/10⌉ = 2, ⌈11/10⌉ = 2 gp; 4th 8 sp; then to ⌈16/3⌉ = 6 bronze
    # 3 × Tabell B1 row 16 (48 32 22 15 10 7): places 5-6 get 30 and 21 bp; each player of the team
    assert column(office, "guldlag", "gp")[:4] == [3, 2, 2, 0]
    assert column(office, "guldlag", "sp")[:5] == [0, 0, 0, 8, 0]
    assert column(office, "guldlag", "bp")[:7] == [0, 0, 0, 0, 30, 21, 0]
    fourth = office.query("select count(*) as n from awards where event_id like '%guldlag' and points = 3 and denomination = 'gp'")
    assert fourth["n"][0] == 4  # the four players of the winning team
    reasons = _reasons(office)
    assert any("at least 16 teams are needed, found 15" in r for r in reasons)
    assert not any("no gold table" in r for r in reasons)
