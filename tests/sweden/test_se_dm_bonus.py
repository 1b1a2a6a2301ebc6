"""The DM-final bonus (seed p. 15, "Bonus för DM-finaler"), through the nightly run.

The seed's table: DM-final/SM-kval lag, öppen klass 42 / 30 / 21 poäng per spelare; DM-par/SM-kval,
öppen klass 60 / 40 / 30; övriga DM-finaler 10 / 5 / 3. "I ett slutet DM-par får bara äkta
distriktspar (där båda spelarna representerar klubbar inom distriktet) bonus. I ett öppet DM-par
utdelas bonus. Om inget sägs om att DM (par) är slutet eller öppet, är det slutet. Delad placering
ger här den högre bonusen. [...] Angivna poäng avser silver, dock måste kravet på antalet brickor
för silvertävling uppfyllas. [...] I partävling måste man ha deltagit i minst 50 % av tävlingen för
att få bonus." And p. 4: "Mästerskapkval. 12 [par] 42 [brickor] ... Till Mästerskapskvalificeringar
räknas SM-kvalificeringar och DM-finaler." Every expected value below is read from those lines.
"""
from __future__ import annotations

from se_helpers import ORG

STOCKHOLM, MEDELPAD = "10001", "10002"  # BK Lavec (Stockholm), Sundsvalls BK (Medelpad): clubs.csv
DM_PAIRS = {"datum": "2024-11-09", "nivå": "silver", "form": "par", "brickor": "44", "ronder": "11", "dm": "par"}


def _register(office, members: dict[str, str]) -> None:
    office.post(f"{ORG}/medlemsregister.csv", "medlemsnummer;namn;klubb\n"
                + "".join(f"{m};Spelare {m};{club}\n" for m, club in members.items()))


def _pairs(n: int, outsider: str | None = None) -> dict[str, str]:
    """Members 300001.. in pairs (300001 300002 is pair 1 ...): pairs 1-4 of BK Lavec (Stockholm), except
    `outsider`, a member of Sundsvalls BK (Medelpad); pairs 5.. in turn of BK Skara and Gävle BK, so
    that the field has players from five clubs (BK Lavec, 240 members, counts as three), which a DM
    final needs as any silver pairs event (p. 4; only the percentages are waived in championships)."""
    members = {str(300001 + i): STOCKHOLM if i < 8 else ("10003", "10005")[(i // 2) % 2] for i in range(2 * n)}
    if outsider:
        members[outsider] = MEDELPAD
    return members


def _post(office, name: str, places: list[str], per: int = 2, extra=None, **settings) -> None:
    office.post(f"{ORG}/bk-lavec/{name}.event.txt", "".join(f"{k}: {v}\n" for k, v in settings.items()))
    head = "plac;lag;medlemmar" if per > 2 else "plac;par;medlemmar"
    rows = [f"{p};{i + 1};{' '.join(str(300001 + per * i + j) for j in range(per))}" + (f";{extra(i)}" if extra else "")
            for i, p in enumerate(places)]
    office.post(f"{ORG}/bk-lavec/{name}.standings.csv", head + (";spelat" if extra else "") + "\n" + "\n".join(rows) + f"\n# {name}\n")  # not a copy of another list


def _bonus(office, name: str) -> dict[str, int]:
    df = office.query("select player_id, denomination, points from awards where event_id = ?",
                      [f"{ORG}/bk-lavec/{name}#dm-bonus"])
    assert set(df["denomination"]) <= {"sp"}
    return {p: int(v) for p, v in zip(df["player_id"], df["points"])}


def _quarantine(office) -> list[str]:
    return list(office.query("select reason from quarantine")["reason"])


def test_closed_dm_pairs_gives_the_bonus_to_true_district_pairs_only(office):
    # pair 2 is 300003 (Stockholm) + 300004 (Medelpad): not a district pair of Stockholm's DM
    _register(office, _pairs(12, outsider="300004"))
    _post(office, "dm-par", [str(i) for i in range(1, 13)], **DM_PAIRS)
    office.run()
    assert _quarantine(office) == []
    assert _bonus(office, "dm-par") == {"300001": 60, "300002": 60, "300005": 30, "300006": 30}
    note = office.query("select location from events where event_id = ?", [f"{ORG}/bk-lavec/dm-par#dm-bonus"])["location"][0]
    assert "300003: a closed DM pairs final" in note and "300004: a closed DM pairs final" in note
    # the final's own silver award is there beside the bonus (12 pairs are enough for a DM final)
    own = office.query("select count(*) as n from awards where event_id = ? and denomination = 'sp'", [f"{ORG}/bk-lavec/dm-par"])
    assert own["n"][0] > 0


def test_open_dm_pairs_and_a_shared_place_gets_the_higher_bonus(office):
    _register(office, _pairs(12, outsider="300004"))
    _post(office, "dm-par", ["1", "2", "2", "4"] + [str(i) for i in range(5, 13)], dm_öppen="ja", **DM_PAIRS)
    office.run()
    assert _quarantine(office) == []
    # places 2= share second: both get 40 (the higher), and nobody is third
    assert _bonus(office, "dm-par") == {"300001": 60, "300002": 60, "300003": 40, "300004": 40, "300005": 40, "300006": 40}


def test_a_player_who_played_less_than_half_gets_no_bonus(office):
    _register(office, _pairs(12))
    # 11 rounds: the winners' second player played 5 (less than half), the runners-up 6 and 11 (6 × 2 ≥ 11)
    played = {0: "11 5", 1: "6 11"}
    _post(office, "dm-par", [str(i) for i in range(1, 13)], extra=lambda i: played.get(i, "11 11"), **DM_PAIRS)
    office.run()
    assert _quarantine(office) == []
    assert _bonus(office, "dm-par") == {"300001": 60, "300003": 40, "300004": 40, "300005": 30, "300006": 30}


def test_team_dm_final_gives_every_member_of_the_first_three_teams(office):
    _register(office, {str(300001 + i): STOCKHOLM for i in range(32)})
    _post(office, "dm-lag", [str(i) for i in range(1, 9)], per=4, datum="2024-11-10", nivå="silver", form="lagbarometer",
          brickor="42", matcher="7", dm="lag")
    office.run()
    assert _quarantine(office) == []
    expected = {str(300001 + i): 42 for i in range(4)} | {str(300005 + i): 30 for i in range(4)} \
        | {str(300009 + i): 21 for i in range(4)}
    assert _bonus(office, "dm-lag") == expected


def test_other_dm_final_10_5_3_and_no_ranking_points_for_the_bonus(office):
    _register(office, _pairs(16))
    _post(office, "dm-mixed", [str(i) for i in range(1, 17)], **dict(DM_PAIRS, dm="övrig", dm_öppen="ja"))
    office.run()
    assert _quarantine(office) == []
    assert _bonus(office, "dm-mixed") == {"300001": 10, "300002": 10, "300003": 5, "300004": 5, "300005": 3, "300006": 3}
    kinds = office.query("select kind from events where event_id like '%#dm-bonus'")["kind"]
    assert list(kinds) == ["se_dm_bonus_övrig"]
    # ranking points come from se_results rows only: the bonus event has none
    assert office.query("select count(*) as n from se_results where event_id like '%#dm-bonus'")["n"][0] == 0


def test_requirements_and_settings_of_a_dm_final(office):
    _register(office, _pairs(12))
    _post(office, "elva-par", [str(i) for i in range(1, 12)], **DM_PAIRS)          # 11 pairs: a DM final needs 12
    _post(office, "kort", [str(i) for i in range(1, 13)], **dict(DM_PAIRS, brickor="40"))  # 40 boards: needs 42
    _post(office, "fel-form", [str(i) for i in range(1, 13)], **dict(DM_PAIRS, dm="lag"))  # a team DM played as pairs
    _post(office, "brons", [str(i) for i in range(1, 13)], **dict(DM_PAIRS, nivå="brons"))
    _post(office, "okand", [str(i) for i in range(1, 13)], **dict(DM_PAIRS, dm="kanske"))
    office.run()
    reasons = " | ".join(_quarantine(office))
    assert "at least 12 pairs are needed, found 11" in reasons
    assert "at least 42 boards are needed, found 40" in reasons
    assert "dm: lag is a lagbarometer final, but form is par" in reasons
    assert "dm: a DM final is a silver event" in reasons
    assert "dm: expected lag, par or övrig" in reasons
    assert office.query("select count(*) as n from awards where event_id like '%#dm-bonus'")["n"][0] == 0
