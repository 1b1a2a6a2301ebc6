"""Converted foreign points (seed section 8): Danish 1:1, others by the Swedish tables, the fee.

Expected values: the seed's tables and examples (page and row in each comment) and its fee text
("7 kr för bronstävling, 14 kr för silver- och 50 kr för guldtävling, dock högst 100 kr per
registreringstillfälle. Minsta avgift är 15 kronor").
"""
from __future__ import annotations

from decimal import Decimal

import pandas as pd
import pytest

from pipelines.sweden.foreign import convert, convert_rows, conversion_fee
from pipelines.sweden.rules import load_rules


@pytest.fixture(scope="module")
def rules():
    return load_rules()


def row(**kw):
    base = {"medlemsnummer": "100001", "tävling": "Oslo Open", "datum": "2026-05-01", "ort": "Oslo", "land": "Norge",
            "nivå": "silver", "form": "par", "antal": "20", "mött": "alla", "brickor": "52", "plac": "1", "poäng": "7.5"}
    base.update(kw)
    return base


def test_danish_points_convert_one_to_one(rules):
    c = convert(row(land="Danmark", valör="sp", poäng="12"), rules)
    assert (c.denomination, c.points) == ("sp", 12) and "1:1" in c.basis
    with pytest.raises(ValueError, match="valör"):
        convert(row(land="Danmark", poäng="12"), rules)


def test_others_by_the_swedish_tables(rules):
    # Tabell D row 20 (p. 11): 20 14 10 ... sp; all met all, the winner gets one sp per pair
    assert (convert(row(), rules).denomination, convert(row(), rules).points) == ("sp", 20)
    assert convert(row(plac="2"), rules).points == 14
    # Tabell A1 row 8 (p. 6): 16 11 8 bp
    c = convert(row(nivå="brons", antal="8", brickor="24"), rules)
    assert (c.denomination, c.points) == ("bp", 16)
    # gold, 52 pairs (p. 16): the winners' 52 sp become 6 gp
    c = convert(row(nivå="guld", antal="52", brickor="60"), rules)
    assert (c.denomination, c.points) == ("gp", 6)
    # A-final with carry-over (p. 4): 60 pairs, 12 + 12 rounds: 43 sp to the winner ... 4 sp to the 11th
    a = dict(nivå="silver", antal="60", brickor="72", final="A", kval_ronder="12", final_ronder="12", kval_par="60")
    assert convert(row(**a), rules).points == 43 and convert(row(plac="11", **a), rules).points == 4
    # A1 row 8 scores a third of the field, ⌈8/3⌉ = 3 places: the 4th gets nothing
    assert convert(row(nivå="brons", antal="8", brickor="24", plac="4"), rules).denomination is None


def test_bad_rows_are_refused_with_a_reason(rules):
    frame = pd.DataFrame([row(), row(plac="21"), row(nivå="platina"), row(ort="")])
    out = convert_rows(frame, rules)
    assert list(out["points"]) == [20, 0, 0, 0]
    assert out["problem"][0] == "" and "plac" in out["problem"][1] and "nivå" in out["problem"][2] and "ort" in out["problem"][3]


def test_conversion_fee(rules):
    assert conversion_fee(["brons"], rules) == Decimal("15.00")  # 7 kr, but at least 15
    assert conversion_fee(["brons", "silver"], rules) == Decimal("21.00")  # 7 + 14
    assert conversion_fee(["silver", "silver"], rules) == Decimal("28.00")
    assert conversion_fee(["guld", "silver", "brons"], rules) == Decimal("71.00")  # 50 + 14 + 7
    assert conversion_fee(["guld", "guld", "brons"], rules) == Decimal("100.00")  # 107, at most 100 per registration
    assert conversion_fee(["guld", "guld"], rules) == Decimal("100.00")  # exactly 100


def test_nightly_run_posts_conversions_and_the_fee(office):
    from datetime import date

    from se_helpers import ORG, register

    register(office)
    head = "medlemsnummer;tävling;datum;ort;land;nivå;form;antal;mött;brickor;plac;poäng;valör\n"
    office.post(f"{ORG}/konvertering/2026-11.konvertering.csv", head
                + "200000;DM par;2026-10-03;Odense;Danmark;silver;par;30;alla;48;1;12;sp\n"  # Danish: 12 sp as given
                + "200000;Oslo Open;2026-10-10;Oslo;Norge;silver;par;20;alla;52;1;7.5;\n"  # Tabell D row 20: 20 sp
                + "200000;Bonn Gold;2026-10-17;Bonn;Tyskland;guld;par;52;alla;60;1;30;\n"  # gold 52 pairs: 6 gp
                + "299999;Oslo Open;2026-10-10;Oslo;Norge;silver;par;20;alla;52;2;5;\n")  # not a member: quarantined
    office.run(date(2026, 11, 2))
    lines = office.query("select denomination, points, basis from awards where player_id = '200000' order by event_date")
    assert [(d, int(p)) for d, p in zip(lines["denomination"], lines["points"])] == [("sp", 12), ("sp", 20), ("gp", 6)]
    assert lines["basis"][1].startswith("konvertering: Oslo Open (Oslo, Norge, 2026-10-10): plac 1 av 20")
    q = office.query("select location, reason from quarantine")
    assert list(q["location"]) == ["line 5"] and "299999" in q["reason"][0]
    fee = office.query("select * from se_conversion_fees")
    # one registration (the file): silver 14 + silver 14 (the Danish sp) + gold 50 = 78 kr
    assert int(fee["events"][0]) == 3 and fee["fee_sek"][0] == Decimal("78.00")
    # foreign events give no ranking points
    assert office.query("select count(*) as n from se_ranking")["n"][0] == 0
