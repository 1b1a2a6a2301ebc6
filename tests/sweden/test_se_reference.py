"""Generated Swedish events through the nightly run agree, player by player, with the independent
reference (tests/sweden/reference.py) written from the seed alone."""
from __future__ import annotations

import random
from datetime import date, timedelta

import reference as R
from se_helpers import MEMBERS, ORG, register


def _places(rnd: random.Random, n: int) -> list[int]:
    out, i = [], 1
    while i <= n:
        k = min(n - i + 1, rnd.choice([1, 1, 1, 1, 2, 3]))
        out += [i] * k
        i += k
    return out


def test_generated_events_agree_with_the_reference(office):
    rnd = random.Random(20090401)
    register(office)
    expected: dict[tuple[str, str, str], int] = {}
    events = 0
    kinds = set()
    while events < 42:
        kind = rnd.choice(["bronze", "bronze", "individual", "silver", "barometer", "silver_all", "gold"])
        n = rnd.choice(list(range(4, 33)) + list(range(34, 101, 2))) if kind == "bronze" else \
            rnd.randint(16, 32) if kind == "individual" else rnd.randint(4, 32) if kind == "barometer" else \
            rnd.randint(16, 52) if kind == "silver_all" else rnd.randint(28, 52) if kind == "gold" else rnd.randint(16, 120)
        met = rnd.randint(1, n - 1) if kind == "silver" else None
        per = 1 if kind == "individual" else 4 if kind == "barometer" else 2
        try:
            if kind == "bronze":
                values, minimum = [("bp", v) for v in R.bronze_pairs(n)], 4
            elif kind == "individual":
                values, minimum = [("bp", v) for v in R.bronze_individual(n)], 4
            elif kind == "barometer":
                values, minimum = [("bp", v) for v in R.bronze_barometer(n)], 4
            elif kind == "silver_all":
                values, minimum = R.silver_pairs_all_met(n), 8
            elif kind == "gold":
                values, minimum = R.gold_pairs_all_met(n), 12
            else:
                values, minimum = R.silver_pairs_not_all_met(n, met), 8
        except ValueError:
            continue
        places = list(range(1, n + 1)) if kind == "barometer" else _places(rnd, n)
        got = R.award(values, places, minimum)
        name = f"gen{events:02d}"
        level = {"silver": "silver", "silver_all": "silver", "gold": "guld"}.get(kind, "brons")
        form = {"individual": "individuell", "barometer": "lagbarometer"}.get(kind, "par")
        settings = {"datum": str(date(2024, 10, 1) + timedelta(days=events)), "nivå": level, "form": form, "brickor": "60" if kind == "gold" else "48"}
        if kind == "gold":
            settings["sanktion"] = f"FSB-{events}"
        if met is not None:
            settings["mött"] = str(met)
        club = ["bk-lavec", "malmo-bk", "uppsala-bk"][events % 3]
        office.post(f"{ORG}/{club}/{name}.event.txt", "".join(f"{k}: {v}\n" for k, v in settings.items()))
        rows = ["plac;par;medlemmar"]
        for i in range(n):
            ms = MEMBERS[i * per:(i + 1) * per]
            label = f"{places[i]}=" if places.count(places[i]) > 1 else str(places[i])
            rows.append(f"{label};{i + 1};{' '.join(ms)}")
            for m in ms:
                for den, v in got[i].items():
                    expected[(f"{ORG}/{club}/{name}", m, den)] = v
        office.post(f"{ORG}/{club}/{name}.standings.csv", "\n".join(rows) + f"\n# {name}\n")
        events += 1
        kinds.add(kind)
    office.run()
    lines = office.query("select event_id, player_id, denomination, points from awards")
    actual = {(r.event_id, r.player_id, r.denomination): int(r.points) for r in lines.itertuples()}
    assert actual == expected
    assert kinds == {"bronze", "individual", "silver", "barometer", "silver_all", "gold"}
    assert {d for _, _, d in expected} == {"bp", "sp", "gp"} and len(expected) > 300


def test_reference_reproduces_the_seed_finals_example():
    # p. 4, as printed: the reference is written from the seed, so it must give the seed's numbers
    assert R.final_list(60, 12, 12, 1) == [("sp", v) for v in (43, 29, 21, 18, 14, 12, 10, 9, 7, 5, 4)]
    assert R.final_list(60, 12, 12, 11) == [("sp", 4)] + [("bp", v) for v in (10, 8, 7, 6, 5, 4, 4, 4, 4)]
    assert R.final_without_carry_over(20) == [("bp", v) for v in (40, 27, 18, 12, 8, 6, 4)]


def test_generated_finals_agree_with_the_reference(office):
    """Qualifications split into an A-final, a B-final and sometimes a C-final, with carry-over
    (whole-field list from each final's first overall place) or a B-final without (bronze from zero)."""
    rnd = random.Random(20240929)
    register(office)
    expected: dict[tuple[str, str, str], int] = {}
    events, kinds = 0, set()
    while events < 24:
        pairs = rnd.choice(list(range(16, 33)) + list(range(34, 101, 2)))
        qual, fin = rnd.randint(4, 15), rnd.randint(3, 12)
        if qual + fin + 1 > pairs:
            continue
        try:
            R.carry_over_list(pairs, qual, fin)
        except ValueError:
            continue
        sizes = [rnd.randint(4, 12)]
        while pairs - sum(sizes) >= 4 and len(sizes) < 3:
            sizes.append(min(pairs - sum(sizes), rnd.randint(4, 20)))
        carry_b = rnd.random() < 0.75
        club = ["bk-lavec", "malmo-bk", "uppsala-bk"][events % 3]
        first = 1
        for letter, size in zip("ABC", sizes):
            carry = letter == "A" or carry_b
            if carry:
                values, minimum = R.final_list(pairs, qual, fin, first), 4
            else:
                values, minimum = R.final_without_carry_over(size), 4
            places = _places(rnd, size)
            got = R.award(values, places, minimum)
            name = f"fin{events:02d}{letter.lower()}"
            settings = {"datum": str(date(2024, 10, 1) + timedelta(days=events)), "nivå": "silver", "form": "par",
                        "brickor": "48" if carry else "24", "final": letter, "sanktion": f"FSB-S-{events}"}
            if carry:
                settings.update(kval_ronder=str(qual), final_ronder=str(fin), kval_par=str(pairs))
            if letter != "A":
                settings["carry_over"] = "ja" if carry else "nej"
                if carry:
                    settings.update({"första_plac": str(first), "tk_tillstånd": f"TK-{events}"})
            office.post(f"{ORG}/{club}/{name}.event.txt", "".join(f"{k}: {v}\n" for k, v in settings.items()))
            rows = ["plac;par;medlemmar"]
            for i in range(size):
                ms = MEMBERS[2 * (first - 1 + i):2 * (first + i)]  # a pair plays in one final (finals.py)
                label = f"{places[i]}=" if places.count(places[i]) > 1 else str(places[i])
                rows.append(f"{label};{i + 1};{' '.join(ms)}")
                for m in ms:
                    for den, v in got[i].items():
                        expected[(f"{ORG}/{club}/{name}", m, den)] = v
            office.post(f"{ORG}/{club}/{name}.standings.csv", "\n".join(rows) + f"\n# {name}\n")
            kinds.add(letter + ("" if carry else "-fresh"))
            first += size
        events += 1
    result = office.run()
    assert result.exit_code == 0, list(office.query("select source_file, reason from quarantine").itertuples())
    lines = office.query("select event_id, player_id, denomination, points from awards")
    actual = {(r.event_id, r.player_id, r.denomination): int(r.points) for r in lines.itertuples()}
    assert actual == expected
    assert {"A", "B", "C", "B-fresh"} <= kinds
    assert {d for _, _, d in expected} == {"sp", "bp"}
    # silver reaches past an A-final into a B-final, and bronze reaches a C-final
    assert any(e.endswith("b") and d == "sp" for e, _, d in expected)
    assert any(e.endswith("c") and d == "bp" for e, _, d in expected)
