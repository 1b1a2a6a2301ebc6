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
