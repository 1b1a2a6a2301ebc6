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
