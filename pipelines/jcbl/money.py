"""The one place where JCBL points are rounded.

Arithmetic runs on exact rationals (``fractions.Fraction`` built from the ``Decimal`` rule values,
so 1/3, 1/7 and 20/30 stay exact) and is rounded ONCE per award component, at the end:
``ROUND_HALF_UP`` to 0.01 (0.225 → 0.23, 1.045 → 1.05, 3.135 → 3.14), which is what the seed's
tables show. Component awards are rounded separately and then added (Women's Teams flight B:
2.95 + 1.26 = 4.21 as printed, where rounding the exact sum would give 4.20).
"""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

ROUNDING = ROUND_HALF_UP
QUANTUM = Decimal("0.01")


def to_points(value: Fraction | Decimal | int) -> Decimal:
    """Exact value → Decimal points, ROUND_HALF_UP to 0.01 (halves away from zero).

    The rational is divided out at 60 significant digits: a terminating result is exact, and a
    non-terminating one is at least 1/(2·denominator) away from any .xx5 boundary, far beyond
    the 1e-60 error, so the rounding is always that of the exact value.
    """
    f = Fraction(value)
    with localcontext() as ctx:
        ctx.prec = 60
        d = Decimal(f.numerator) / Decimal(f.denominator)
        return d.quantize(QUANTUM, rounding=ROUNDING)


def exact(value: Decimal | int | str) -> Fraction:
    """A rule value (Decimal from the data files) as an exact rational."""
    return Fraction(Decimal(value)) if isinstance(value, str) else Fraction(value)


def show(value: Decimal | Fraction | int) -> str:
    """A number as a human writes it in a basis string (no trailing zeros, no exponent)."""
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return str(value.numerator)
        d = Decimal(value.numerator) / Decimal(value.denominator)
        if Fraction(d) == value:
            value = d
        else:
            return f"{value.numerator}/{value.denominator}"
    d = Decimal(value)
    s = format(d.normalize(), "f") if d != 0 else "0"
    return s
