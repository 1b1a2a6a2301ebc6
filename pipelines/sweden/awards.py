"""Swedish awards: each competition's award list from the rule tables, then SQL joins the result
lists with those lists (sql/sweden/int_*.sql), then pandas steps for what SQL does awkwardly:
shared places (rounded up), the shared last place's minimum, the better of the scratch and the
handicap list, reserves. Exact throughout: Fraction while computing, integers as awarded.

``event_list(rules, ev, n)`` is the list of one competition (what place k gets, in which
denomination, and how that follows from the seed: the basis a player reads).
``check_event(...)`` are the requirements (minimum entrants and boards, silver/gold rules).
``score(rules, events)`` turns a batch of parsed events into entrant and player award frames.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

import pandas as pd
import pyarrow as pa

from pipelines.core import sql
from pipelines.sweden import scales as S
from pipelines.sweden.rules import SwedenRules, frac

BRONZE_SCALE = {"par": "A", "lagbarometer": "B1", "individuell": "C"}
SILVER_TABLE = {"par": "D", "lagbarometer": "E1", "individuell": "F"}
UNIT = {"par": ("pair", "pairs"), "lagbarometer": ("team", "teams"), "individuell": ("player", "players")}
DEN_ORDER = {"gp": 0, "sp": 1, "bp": 2}


def ceil(x) -> int:
    return math.ceil(Fraction(x))


def ordinal(k: int) -> str:
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def _fmt(x: Fraction) -> str:
    x = Fraction(x)
    if x.denominator == 1:
        return str(x.numerator)
    d = Decimal(x.numerator) / Decimal(x.denominator)
    return format(d.normalize(), "f") if (x.denominator & (x.denominator - 1) == 0 or x.denominator % 5 == 0) else f"{x.numerator}/{x.denominator}"


def _table_name(scale: str, n: int) -> str:
    if scale == "A":
        return "Tabell A1" if n <= 32 else ("Tabell A2" if n <= 100 else "A2 principle")
    return f"Tabell {scale}"


@dataclass
class EventList:
    places: list[tuple[str, int]]  # (denomination, points) for place 1, 2, ...
    header: str  # how the row was found
    minimum: dict[str, int] = field(default_factory=dict)  # the least a shared last place gives
    handicap: list[tuple[str, int]] | None = None
    # the unrounded award of each place where it differs from the printed/rounded one (the national
    # ranking counts "ursprungsantalet": 22.5 gp, not the 23 posted); None: the places themselves
    exact: list[Fraction] | None = None

    def exact_values(self) -> list[Fraction]:
        return list(self.exact) if self.exact is not None else [Fraction(v) for _, v in self.places]


def _coef(rules: SwedenRules, table: str, **keys) -> Fraction | None:
    t = rules.tables[table]
    for k, v in keys.items():
        t = t[t[k].astype(str) == str(v)]
    return None if t.empty else frac(t.iloc[0]["coefficient"])


def board_coefficient(rules: SwedenRules, boards: int) -> Fraction:
    t = rules.tables["board_coefficients"]
    hit = t[(t["boards_from"] <= boards) & (t["boards_to"] >= boards)]
    if len(hit):
        return frac(hit.iloc[0]["coefficient"])
    top = t.sort_values("boards_to").iloc[-1]
    step_boards, step = rules.param("board_coefficient_step_boards"), rules.param("board_coefficient_step")
    steps = (Fraction(boards) - int(top["boards_to"]) - 1) // step_boards + 1
    return frac(top["coefficient"]) + steps * step


def _bronze_list(rules: SwedenRules, ev: dict, n: int) -> EventList:
    form = ev["form"]
    scale = BRONZE_SCALE[form]
    one, many = UNIT[form]
    parts = [f"bronze, {n} {many}"]
    n_row = n
    if ev.get("groups"):
        c = _coef(rules, "group_coefficients", groups=ev["groups"], group=ev["group"])
        n_row = ceil(c * n)
        parts.append(f"{ev['groups']} groups, group {ev['group']}: {n} × {_fmt(c)} = {n_row}")
    if ev.get("division"):
        c = _coef(rules, "division_coefficients", form=form, division=ev["division"])
        n_row = ceil(c * n)
        parts.append(f"division {ev['division']}: {n} × {_fmt(c)} = {n_row}")
    small = rules.tables["small_events"]
    minimum = int(S._p(rules, scale)["minimum"])
    if ev.get("nybörjarträff"):
        row = small[small["kind"] == "nybörjarträff"].iloc[0]
        size = int(row["row_up_to_99"]) if n <= 99 else int(row["row_from_100"])
        count = S.places(rules, scale, n)
        base = S.bronze_row(rules, "A", size)
        values = (base + [minimum] * count)[:count]
        parts.append(f"nybörjarträff: the {size}-pair row to a third of {n} ({count} places)")
    else:
        values = S.bronze_row(rules, scale, n_row)
        parts.append(f"→ {_table_name(scale, n_row)} row {n_row}")
        if ev.get("division"):
            count = S.places(rules, scale, n)  # a third of the division's own teams score
            values = (values + S.chain(values[-1], count - len(values) + 1, minimum)[1:])[:count] if values else []
            parts.append(f"a third of the division's {n} {many}: {count} places")
    if ev.get("orutinerade") and ev.get("boards") is not None and ev["boards"] < 18:
        row = small[small["kind"] == "orutinerade"].iloc[0]
        f, minimum = frac(row["factor"]), int(row["minimum"])
        values = [max(minimum, ceil(f * v)) for v in values]
        parts.append(f"novices, {ev['boards']} boards: half scale, at least {minimum}")
    out = EventList([("bp", v) for v in values], ", ".join(parts).replace(", →", " →"), {"bp": minimum})
    if ev.get("handikapp"):
        row = small[small["kind"] == "handikapp"].iloc[0]
        f, hmin = frac(row["factor"]), int(row["minimum"])
        out.handicap = [("bp", max(hmin, ceil(f * v))) for _, v in out.places]
        out.minimum["hcp"] = hmin
    return out


def silver_winner(rules: SwedenRules, ev: dict, n: int) -> tuple[int, list[str], bool, int]:
    """The winner's points (sp scale) before gold conversion, how, whether the printed row applies,
    and the winner before the board coefficient (and the cap): the silver places are counted from it."""
    table = SILVER_TABLE[ev["form"]]
    p = S._p(rules, table)
    f = frac(p["winner_per_entrant"])
    parts: list[str] = []
    plain = True
    if ev.get("final") and ev.get("carry_over"):
        r = ev["qual_rounds"] + ev["final_rounds"]
        rest = ceil(Fraction(n - r - 1, 2))
        w = r + 1 + rest
        parts.append(f"qualification + final with carry-over: {ev['qual_rounds']} + {ev['final_rounds']} + 1 + "
                     f"({n} − {r + 1})/2 = {r + 1} + {rest} = {w}")
        plain = False
    elif ev.get("met") is None:
        w = S.winner(rules, table, n)
        parts.append(f"all met all: winner {w}" if f == 1 else f"all met all: {n} × {_fmt(f)} = {w}")
    else:
        m = ev["met"]
        not_met = n - 1 - m
        exact = f * (1 + m + Fraction(not_met, 2))
        w = ceil(exact)
        factor = "" if f == 1 else f" × {_fmt(f)}"
        parts.append(f"met {m} of {n - 1}: (1 + {m} + {not_met}/2){factor} = {_fmt(exact)} → {w}" if exact != w or factor
                     else f"met {m} of {n - 1}: 1 + {m} + {not_met}/2 = {w}")
        plain = False
    before = w
    c = board_coefficient(rules, ev["boards"] or 0)
    if c != 1:
        w2 = ceil(c * w)
        parts.append(f"{ev['boards']} boards: {w} × {_fmt(c)} = {w2}")
        w, plain = w2, False
    cap = p["winner_cap"]
    if cap and w > int(frac(cap)):
        parts.append(f"capped at {int(frac(cap))}")
        w, plain = int(frac(cap)), False
    return w, parts, plain, before


def gold_row(rules: SwedenRules, level: str, form: str, n: int) -> pd.Series | None:
    """gold_places.csv's row of a gold level and form for n entrants (the last entrants_from <= n)."""
    gp = rules.tables["gold_places"]
    rows = gp[(gp["scale"] == level) & (gp["form"] == form) & (gp["entrants_from"] <= n)].sort_values("entrants_from")
    return rows.iloc[-1] if len(rows) else None


def _silver_list(rules: SwedenRules, ev: dict, n: int, bronze_factor: int | None = None) -> EventList:
    """The silver (or gold) list; bronze_factor: an SM final's own multiple of the bronze scale."""
    form, level = ev["form"], ev["level"]
    table = SILVER_TABLE[form]
    one, many = UNIT[form]
    gold = level in ("guld", "förhöjt guld")
    parts = [f"{'gold' if gold else 'silver'}{' (raised)' if level == 'förhöjt guld' else ''}, {n} {many}"]
    if ev.get("met") is not None and ev["met"] >= n - 1:
        # an entrant that met every other entrant has met all: all met all (the printed row, red
        # bronze included), not the not-all-met formula (docs/sweden.md, "mött")
        parts.append(f"met {ev['met']} of {n - 1}: all met all")
        ev = dict(ev, met=None)
    n_eff = n
    if ev.get("groups"):
        c = _coef(rules, "group_coefficients", groups=ev["groups"], group=ev["group"])
        n_eff = ceil(c * n)
        parts.append(f"{ev['groups']} groups, group {ev['group']}: {n} × {_fmt(c)} = {n_eff}")
    w, how, plain, before = silver_winner(rules, ev, n_eff)
    parts += how
    plain = plain and not ev.get("groups")
    p = S._p(rules, table)
    f = frac(p["winner_per_entrant"])
    lower = lower_final(ev)
    factor = bronze_factor or int(rules.param("carry_over_final_bronze_factor" if lower else "gold_bronze_factor" if gold
                                               else "silver_bronze_factor"))
    printed = S.silver_entry(rules, table, n)
    if plain and printed.how.startswith("printed") and not gold and bronze_factor is None:
        silver, bronze = list(printed.silver), list(printed.bronze)
        parts.append(f"→ Tabell {table} row {n}" + ("" if printed.how == "printed" else f" ({printed.how})"))
    else:
        # the silver places: a quarter of the field (all met all), or of the winner's points when not
        # all met ("12 (och inte 15)"), at most 16; the board coefficient raises the points (the row),
        # not the places ("Bästa fjärdedelen erhåller silverpoäng dock högst 16 par")
        s = min(int(frac(p["silver_max"])), ceil(Fraction(before) / f / frac(p["silver_divisor"])))
        silver = list(S.silver_entry(rules, "D", w).silver) if not plain else list(printed.silver)
        while len(silver) < s:
            silver.append(max(1, ceil(S.TWO_THIRDS * silver[-1])))
        silver = silver[:s]
        parts.append((f"→ row {w}, {s} silver places" + (f" (a quarter of {_fmt(Fraction(before) / f)}, at most "
                                                          f"{int(frac(p['silver_max']))})" if before != w else ""))
                     if not plain else f"→ Tabell {table} row {n}")
        if ev.get("final") == "A":
            bronze = []
            parts.append("no bronze in the A-final")
        else:
            # the starting field's bronze scale to a third of it; in groups by strength the corrected
            # count is the field ("Vid gruppindelning gäller samma bestämmelser som för bronspoäng")
            k = S.places(rules, table, n_eff)
            base = S.bronze_row(rules, BRONZE_SCALE[form], n_eff)
            bronze = [factor * v for v in base[s:k]]
            if bronze:
                parts.append(f"bronze {factor} × {_table_name(BRONZE_SCALE[form], n_eff)} row {n_eff} to place {k}")
    if gold:
        row = gold_row(rules, level, form, n)
        g = int(row["gold_places"])
        fixed = row["fixed_points"]
        div = int(rules.param("gold_from_silver_divisor"))
        if fixed:
            golds = [int(x) for x in fixed.split()][:g]
            gold_exact = [Fraction(v) for v in golds]
            parts.append(f"raised gold {' '.join(map(str, golds))} gp")
        else:
            gold_exact = [Fraction(v, div) for v in silver[:g]]
            golds = [ceil(v) for v in gold_exact]
            parts.append(f"gold to {g} places: ⌈{silver[0]}/{div}⌉ = {golds[0]} gp ...")
        places = [("gp", v) for v in golds] + [("sp", v) for v in silver[len(golds):]]
        exact = gold_exact + [Fraction(v) for v in silver[len(golds):]]
    else:
        places = [("sp", v) for v in silver]
        exact = [Fraction(v) for v in silver]
    if bronze and silver:
        top = silver[-1] * int(rules.param("bp_per_mp") / rules.param("sp_per_mp"))
        if bronze[0] > top:
            bronze = [min(top, v) for v in bronze]
            parts.append(f"bronze capped at the lowest silver place ({silver[-1]} sp = {top} bp)")
    places += [("bp", v) for v in bronze]
    exact += [Fraction(v) for v in bronze]
    if ev.get("gemensam_lista"):
        sim = rules.tables["simultaneous"]
        row = sim[sim["level"] == "silver"].iloc[0]
        fr, most = frac(row["common_list_fraction"]), int(row["common_list_places"])
        exact = [fr * x for (d, _), x in zip(places, exact) if d == "sp"][:most]
        places = [("sp", ceil(x)) for x in exact]
        parts.append(f"common list of the heats: {_fmt(fr)} of these points to at most {most} pairs, rounded up, no bronze")
    req = rules.tables["requirements"]
    half = req[(req["level"] == "silver") & (req["form"] == form) & (req["max_boards"] != "") & (req["championship"] == "")]
    if level == "silver" and ev.get("boards") is not None:
        for r in half.itertuples():
            if r.min_boards <= ev["boards"] <= int(r.max_boards):
                hf = frac(r.scale_factor)
                exact = [hf * x for x in exact]
                places = [(d, ceil(x)) for (d, _), x in zip(places, exact)]
                parts.append(f"{ev['boards']} boards: half silver scale")
    return EventList(places, ", ".join(parts).replace(", →", " →"), {"bp": factor * int(S._p(rules, BRONZE_SCALE[form])["minimum"])},
                     exact=exact)


_LIST_KEYS = ("level", "form", "boards", "met", "groups", "group", "division", "nybörjarträff", "orutinerade", "handikapp",
              "final", "qual_rounds", "final_rounds", "gemensam_lista", "carry_over", "field", "first_place", "tk_permission", "distribution", "dm", "sm_final", "matches")


def lower_final(ev: dict) -> bool:
    """A B-, C- (or later) final with carry-over: its list continues the whole field's list."""
    return bool(ev.get("final")) and ev["final"] != "A" and bool(ev.get("carry_over"))


def fresh_final(ev: dict) -> bool:
    """A B-, C- ... final without carry-over: a new bronze competition where all start from zero."""
    return bool(ev.get("final")) and ev["final"] != "A" and ev.get("carry_over") is False


def scored_field(ev: dict, n: int) -> int:
    """The field whose list a competition gets: a final with carry-over, the pairs that started
    the qualification (kval_par; an A-final without it: its own list); otherwise the list's own."""
    return (ev.get("field") or n) if ev.get("final") and ev.get("carry_over") else n


def event_list(rules: SwedenRules, ev: dict, n: int) -> EventList:
    """The competition's award list (cached: many events share their settings and field size)."""
    key = ("event_list", n) + tuple(ev.get(k) for k in _LIST_KEYS)
    if key not in rules._cache:
        rules._cache[key] = _event_list(rules, ev, n)
    return rules._cache[key]


def sm_final_places(rules: SwedenRules, final: str, n: int, version: str = "se-2009") -> list[tuple[str, int]]:
    """The fixed places of an SM final (sm_finals.csv): the row of the largest entrants_from <= n."""
    t = rules.tables["sm_finals"]
    t = t[(t["rule_version"] == version) & (t["final"] == final) & (t["entrants_from"] <= n)]
    if t.empty:
        return []
    t = t[t["entrants_from"] == t["entrants_from"].max()].sort_values("place")
    return list(zip(t["denomination"], t["points"].astype(int)))


def _sm_final_list(rules: SwedenRules, ev: dict, n: int) -> EventList:
    """Tabell H2: the fixed gold places, then Tabell D's places after them, bronze × 3 instead of the
    silver event's × 2; Tabell G2: the fixed gold places per player only; Tabell H1: by round."""
    if ev["sm_final"].startswith("h1"):
        return _h1_list(rules, ev, n)
    fixed = sm_final_places(rules, ev["sm_final"], n)
    text = " ".join(f"{v}" for _, v in fixed) + " gp"
    if ev["sm_final"] == "g2":
        return EventList(fixed, f"Tabell G2, SM team final of veterans/juniors, {n} teams: {text} per player")
    smallest = int(rules.printed["D"]["size"].min())
    if n < smallest:  # Tabell D starts at 12 pairs: a smaller final has only the fixed places
        return EventList(fixed, f"Tabell H2, SM pairs final, {n} pairs: {text} (Tabell D starts at {smallest} pairs)")
    final_factor = int(rules.param("sm_final_bronze_factor"))
    el = _silver_list(rules, dict(ev, level="silver", sm_final=None), n, bronze_factor=final_factor)
    header = (f"Tabell H2{' mixed' if ev['sm_final'] == 'h2-mixed' else ''}, SM pairs final, {n} pairs: places 1-{len(fixed)} "
              f"{text}; then {el.header} from place {len(fixed) + 1}, bronze × {final_factor} (SM finals)")
    return EventList(fixed + el.places[len(fixed):], header, el.minimum,
                     exact=[Fraction(v) for _, v in fixed] + el.exact_values()[len(fixed):])


def _h1_list(rules: SwedenRules, ev: dict, n: int) -> EventList:
    """Tabell H1, the open SM pairs final (seed p. 16), by round:
    1:  the silver list of the field (the winner by 1 + met + not met / 2, at most 100: "de 16 första
        enligt 100-par skalan"), bronze to a third × 2 ("med två i omgång ett");
    2a: the fixed gold places of sm_finals.csv, then bronze × 3 through place h1_2a_last_bronze_place;
    2b: from the pairs of sm_finals.csv's h1-2b rows the fixed gold places, else the first
        h1_2b_gold_places of the silver list in gold ("enligt normal skala"); then silver to the
        16th and bronze × 3 to a third ("Dock högst till 16:e respektive övriga första tredjedelen")."""
    rnd = ev["sm_final"]
    plain = dict(ev, level="silver", sm_final=None)
    if rnd == "h1-1":
        el = _silver_list(rules, plain, n, bronze_factor=int(rules.param("h1_round1_bronze_factor")))
        return EventList(el.places, f"Tabell H1 round 1, SM pairs final: {el.header}", el.minimum, exact=el.exact_values())
    factor = int(rules.param("sm_final_bronze_factor"))
    minimum = int(S._p(rules, "A")["minimum"])
    fixed = sm_final_places(rules, rnd, n)
    text = " ".join(f"{v}" for _, v in fixed) + " gp"
    if rnd == "h1-2a":
        last = int(rules.param("h1_2a_last_bronze_place"))
        row = S.bronze_row(rules, "A", n)
        if len(row) < last:  # "brons till och med 18:e plats": past the field's third, the 2/3 chain
            row = row + S.chain(row[-1], last - len(row) + 1, minimum)[1:]
        bronze = [factor * v for v in row[len(fixed):min(last, n)]]
        header = (f"Tabell H1 round 2A, SM pairs final, {n} pairs: {text}; then bronze {factor} × "
                  f"{_table_name('A', n)} row {n} to place {len(fixed) + len(bronze)}")
        places = fixed + [("bp", v) for v in bronze]
        return EventList(places, header, {"bp": factor * minimum})
    el = _silver_list(rules, plain, n, bronze_factor=factor)
    if fixed:  # 2B of at least h1_2b_fixed_gold_from pairs
        header = f"Tabell H1 round 2B, SM pairs final, {n} pairs: {text}; then {el.header} from place {len(fixed) + 1}"
        return EventList(fixed + el.places[len(fixed):], header, el.minimum,
                         exact=[Fraction(v) for _, v in fixed] + el.exact_values()[len(fixed):])
    g, div = int(rules.param("h1_2b_gold_places")), int(rules.param("gold_from_silver_divisor"))
    gold_exact = [Fraction(v, div) for d, v in el.places[:g] if d == "sp"]
    golds = [("gp", ceil(v)) for v in gold_exact]
    t = rules.tables["sm_finals"]
    header = (f"Tabell H1 round 2B, SM pairs final, {n} pairs (fewer than {int(t.loc[t['final'] == rnd, 'entrants_from'].min())}): "
              f"{el.header}; the first {len(golds)} in gold: ⌈{el.places[0][1]}/{div}⌉ = {golds[0][1]} gp ...")
    return EventList(golds + el.places[len(golds):], header, el.minimum,
                     exact=gold_exact + el.exact_values()[len(golds):])


def _event_list(rules: SwedenRules, ev: dict, n: int) -> EventList:
    if ev.get("sm_final"):
        return _sm_final_list(rules, ev, n)
    if fresh_final(ev):
        el = _bronze_list(rules, dict(ev, level="brons", final=None, carry_over=None), n)
        return EventList(el.places, f"{ev['final']}-final without carry-over: a new bronze competition from zero, {el.header}",
                         el.minimum, el.handicap)
    if ev["level"] == "brons":
        return _bronze_list(rules, ev, n)
    field_n = scored_field(ev, n)
    el = _silver_list(rules, ev, field_n)
    if not lower_final(ev):
        return el
    skip = ev["first_place"] - 1
    if ev.get("distribution"):
        given = list(ev["distribution"])
        text = ", ".join(f"{' '.join(str(v) for _, v in grp)} {d}" for d, grp in
                         ((d, list(g)) for d, g in itertools.groupby(given, key=lambda x: x[0])))
        return EventList(given, f"{ev['final']}-final with carry-over of {field_n} {UNIT[ev['form']][1]}, its winner "
                                f"{ordinal(skip + 1)} overall: the distribution sanctioned by TK ({ev['tk_permission']}): {text}",
                         el.minimum)
    return EventList(el.places[skip:], f"{el.header}; {ev['final']}-final with carry-over (TK permission {ev['tk_permission']}): "
                                       f"its winner is {ordinal(skip + 1)} of the {field_n} {UNIT[ev['form']][1]}, its place k "
                                       f"gets place k + {skip} of this list", el.minimum,
                     exact=el.exact_values()[skip:])


# --------------------------------------------------------------------------- requirements


def check_requirements(rules: SwedenRules, ev: dict, n: int, section: str) -> list[str]:
    """Why a competition cannot be scored (empty if it can); cached like the lists."""
    key = ("requirements", n, section, ev.get("simultan"), ev.get("rounds")) + tuple(ev.get(k) for k in _LIST_KEYS)
    if key not in rules._cache:
        rules._cache[key] = _check_requirements(rules, ev, n, section)
    return list(rules._cache[key])


def _check_requirements(rules: SwedenRules, ev: dict, n: int, section: str) -> list[str]:
    if ev.get("sm_final"):
        return _check_sm_final(rules, ev, n)
    if fresh_final(ev):  # a new bronze competition of the final's own field
        return _check_requirements(rules, dict(ev, level="brons", final=None, carry_over=None), n, section)
    out = _check_final(rules, ev, n) if ev.get("final") and ev.get("carry_over") else []
    return out + _check_level(rules, ev, scored_field(ev, n), section)


def _check_sm_final(rules: SwedenRules, ev: dict, n: int) -> list[str]:
    """An SM final has its own table (H1, H2, G2): enough entrants for the table's first row and, for
    G2, matches of fewer than 12 boards (with 12 or more another scale applies: the office's)."""
    t = rules.tables["sm_finals"]
    own = t.loc[t["final"] == ev["sm_final"], "entrants_from"]
    many = UNIT[ev["form"]][1]
    out = []
    if ev["sm_final"] in ("h1-1", "h1-2b"):  # a Tabell D list of the field (2B below 100 pairs as well)
        least = int(rules.printed["D"]["size"].min())
    elif ev["sm_final"].startswith("h"):
        least = 4
    else:
        least = int(own.min())
    if n < least:
        out.append(f"SM final {ev['sm_final']}: at least {least} {many} are needed for its table, found {n}")
    if ev["sm_final"] == "g2":
        most = int(rules.param("g2_max_boards_per_match"))
        if not ev.get("matches") or not ev.get("boards"):
            out.append("SM final g2: write matcher (matches each team played) and brickor: Tabell G2 holds for matches of "
                       f"at most {most} boards")
        elif Fraction(ev["boards"], ev["matches"]) > most:
            out.append(f"SM final g2: {ev['boards']} boards in {ev['matches']} matches is more than {most} boards a match; "
                       "Tabell G2 holds for matches of fewer than 12 boards, others have another scale: contact the office (kansliet)")
    return out


def _check_final(rules: SwedenRules, ev: dict, n: int) -> list[str]:
    """A final with carry-over: its list must fit in the field that started the qualification, and
    gold is given only in the A-final."""
    out = []
    many = UNIT[ev["form"]][1]
    field_n, first = scored_field(ev, n), ev.get("first_place") or 1
    if first + n - 1 > field_n:
        out.append(f"final {ev['final']}: {n} {many} from overall place {first} reach place {first + n - 1}, but kval_par says "
                   f"{field_n} {many} started the qualification")
    if lower_final(ev) and ev.get("distribution") and len(ev["distribution"]) > n:
        out.append(f"final {ev['final']}: fördelning lists {len(ev['distribution'])} places, but the final has {n} {many}")
    if lower_final(ev) and ev["level"] in ("guld", "förhöjt guld"):
        row = gold_row(rules, ev["level"], ev["form"], field_n)
        g = int(row["gold_places"]) if row is not None else 0
        if first <= g:
            out.append(f"final {ev['final']}: gold is given only in the A-final (seed p. 4), but this final's winner is place "
                       f"{first} of {g} gold places; första_plac must come after the A-final's pairs")
    return out


def requirement_rows(rules: SwedenRules, level: str, form: str, championship: bool) -> pd.DataFrame:
    """The requirements of a level and form: a championship qualification (SM-kval, DM final) has its
    own row where requirements.csv gives one (seed p. 4: 12 pairs / 42 boards), else the ordinary ones."""
    req = rules.tables["requirements"]
    rows = req[(req["level"] == level) & (req["form"] == form)]
    own = rows[rows["championship"] == "ja"]
    return own if championship and len(own) else rows[rows["championship"] == ""]


def _boards_per_match(rows: pd.DataFrame, ev: dict) -> list[str]:
    """Tabell B1 (p. 8): "Minsta antal brickor per match: 2" (requirements.csv, min_boards_per_match,
    where the table gives it), checked where the boards per match are known: brickor over matcher,
    else over ronder (a barometer plays one match a round)."""
    least = [int(v) for v in rows["min_boards_per_match"] if str(v).strip()]
    played, what = (ev.get("matches"), "matches") if ev.get("matches") else (ev.get("rounds"), "rounds")
    boards = ev.get("boards")
    if not least or not played or not boards or Fraction(boards, played) >= max(least):
        return []
    per = Fraction(boards, played)
    return [f"{ev['level']} {ev['form']}: at least {max(least)} boards a match are needed (Tabell B1: 'Minsta antal brickor "
            f"per match'), found {boards} boards in {played} {what} ({_fmt(per)} a match); correct brickor (boards played in "
            f"all) or {'matcher' if what == 'matches' else 'ronder'} if either is wrong"]


def _check_level(rules: SwedenRules, ev: dict, n: int, section: str) -> list[str]:
    form, level = ev["form"], ev["level"]
    one, many = UNIT[form]
    where = f" ({section})" if section else ""
    lvl = "guld" if level == "förhöjt guld" else level
    rows = requirement_rows(rules, lvl, form, bool(ev.get("dm")))
    out = []
    if rows.empty:
        return [f"nivå {level} is not available for form {form} in these rules (requirements.csv has no row for it)"]
    boards = ev.get("boards") or 0
    min_n = int(rows["min_entrants"].min())
    if ev.get("simultan") and not ev.get("gemensam_lista"):
        sim = rules.tables["simultaneous"]
        heat = sim[sim["level"] == lvl]
        if len(heat):
            min_n = int(heat["min_pairs_per_heat"].iloc[0])
    if n < min_n:
        out.append(f"{level} {form}{where}: at least {min_n} {many} are needed, found {n}")
    out += _boards_per_match(rows, ev)
    if level == "brons":
        novice = ev.get("orutinerade") and 10 <= boards <= 17
        if boards < 18 and not novice:
            out.append(f"{level} {form}: at least 18 boards are needed (novices' events 10-17), found {boards}; two consecutive "
                       "evenings with the same pairs may be reported as one event with 'kvällar: YYYY-MM-DD boards, YYYY-MM-DD "
                       "boards' and one result list with the columns kväll1 and kväll2 (docs/sweden.md)")
        if ev.get("orutinerade") and boards < 10:
            out.append(f"novices' event: at least 10 boards, found {boards}")
    else:
        ok = rows[(rows["min_boards"] <= boards) & ((rows["max_boards"] == "") | (rows["max_boards"].map(lambda v: int(v) if v else 10**9) >= boards))]
        if ok.empty:
            least = int(rows["min_boards"].min())
            out.append(f"{level} {form}: at least {least} boards are needed, found {boards}")
        if lvl == "guld":
            g = gold_row(rules, level, form, n)
            if g is not None and boards < int(g["min_boards"]):
                out.append(f"gold with {n} {many}: at least {int(g['min_boards'])} boards, found {boards}")
        if ev.get("met") is not None and not 0 <= ev["met"] <= n - 1:
            out.append(f"mött: each {one} can meet 0 to {n - 1} others, found {ev['met']}")
        if ev.get("final") and ev.get("carry_over") and ev["qual_rounds"] + ev["final_rounds"] + 1 > n:
            out.append(f"kval_ronder + final_ronder + 1 = {ev['qual_rounds'] + ev['final_rounds'] + 1} exceeds the {n} {many}"
                       + ("" if ev.get("field") else " (an A-final list of the finalists only: add kval_par, the pairs that "
                          "started the qualification)"))
    return out


# --------------------------------------------------------------------------- the batch


def _sql_frame(con, name: str, frame: pd.DataFrame) -> None:
    con.register(name, pa.Table.from_pandas(frame, preserve_index=False))


def score(rules: SwedenRules, comps: list[dict]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """comps: one dict per competition: competition id, ev (settings), st (its standings rows),
    n, list (EventList). Returns (entrant awards, player lines)."""
    scale_rows, entrant_rows, player_rows, comp_rows = [], [], [], []
    for c in comps:
        cid, el, st, ev = c["competition"], c["list"], c["st"], c["ev"]
        for lst, values in (("scratch", el.places), ("handicap", el.handicap or [])):
            scale_rows += [(cid, lst, k, d, v) for k, (d, v) in enumerate(values, start=1)]
        entrant_rows += [(cid, "scratch", e, p) for e, p in zip(st["entrant"], st["place"])]
        if el.handicap:
            h = st[st["hcp_place"].notna()]
            entrant_rows += [(cid, "handicap", e, int(p)) for e, p in zip(h["entrant"], h["hcp_place"])]
        for e, members, played in zip(st["entrant"], st["members"], st["played"]):
            for i, m in enumerate(members):
                player_rows.append((cid, e, m, None if played is None else played[i], i))
        if ev["form"] == "lagbarometer":
            rule, of = "matches", ev.get("matches")
        else:
            rule, of = "half", ev.get("rounds") or ev.get("boards")
        comp_rows.append((cid, c["event_id"], rule, of))
    con = sql.scratch()
    try:
        _sql_frame(con, "se_event_scale", pd.DataFrame(scale_rows, columns=["competition", "list", "place", "denomination", "points"]).astype({"points": "int64", "place": "int64"}))
        _sql_frame(con, "se_entrants", pd.DataFrame(entrant_rows, columns=["competition", "list", "entrant", "place"]).astype({"place": "int64"}))
        paid = sql.query(con, "sweden/int_se_entrant_points")
        shared = _share(paid, {c["competition"]: c["list"] for c in comps})
        best = _better_list(shared)
        _sql_frame(con, "se_entrant_awards", best[["competition", "entrant", "denomination", "points", "basis", "exact"]].astype({"points": "int64"}))
        _sql_frame(con, "se_players", pd.DataFrame(player_rows, columns=["competition", "entrant", "member", "played", "position"]).astype({"played": "Int64"}))
        _sql_frame(con, "se_competitions", pd.DataFrame(comp_rows, columns=["competition", "event_id", "reserve_rule", "played_of"]).astype({"played_of": "Int64"}))
        players = sql.query(con, "sweden/int_se_player_points")
    finally:
        con.close()
    return best, _reserves(players)


def _share(paid: pd.DataFrame, lists: dict) -> pd.DataFrame:
    """Tied entrants share the sum of their places, rounded up; a shared place paying bronze
    gives at least the list's minimum (4 bp; 2 on a half scale; × 2 / × 3 in silver / gold)."""
    if paid.empty:
        return paid.assign(points=pd.Series(dtype="int64"), basis=pd.Series(dtype="string"), exact=pd.Series(dtype="string"))
    sums = paid["points_sum"].astype("int64").to_numpy()
    sharing = paid["sharing"].astype("int64").to_numpy()
    share = -(-sums // sharing)
    minimum = [lists[c].minimum.get("hcp" if lst == "handicap" else d, 0)
               for c, lst, d in zip(paid["competition"], paid["list"], paid["denomination"])]
    points = pd.Series(share, index=paid.index)
    floor = pd.Series(minimum, index=paid.index)
    points = points.where(~((paid["sharing"] > 1) & (paid["denomination"] == "bp")), points.clip(lower=floor))
    place_text = [
        f"{ordinal(int(p))} place" if k == 1 else f"places {int(p)}–{int(t)} shared by {int(k)}"
        for p, t, k in zip(paid["place"], paid["place_to"], paid["sharing"])
    ]
    arith = [
        f"{int(v)} {d}" if k == 1 else
        f"({terms}) / {int(k)} = {int(v)} {d}" + ("" if int(v) == -(-int(s) // int(k)) else f" (shared last place: at least {int(v)})")
        for v, d, k, terms, s in zip(points, paid["denomination"], paid["sharing"], paid["terms"], paid["points_sum"])
    ]
    header = [lists[c].header + (", handicap list: half scale" if lst == "handicap" else "")
              for c, lst in zip(paid["competition"], paid["list"])]
    basis = [f"{h}; {pt}: {a}" for h, pt, a in zip(header, place_text, arith)]
    return paid.assign(points=points.astype("int64"), basis=basis, exact=_exact_shares(paid, lists))


def _exact_shares(paid: pd.DataFrame, lists: dict) -> list[str]:
    """The unrounded award of each row (the national ranking counts it): the unrounded values of the
    places the entrant occupies, in its denomination, over the entrants sharing them; a fraction as text
    ("45/2"). A shared place's bronze minimum is not part of it (bronze gives no ranking points)."""
    out = []
    for c, lst, d, p, t, k in zip(paid["competition"], paid["list"], paid["denomination"], paid["place"], paid["place_to"],
                                  paid["sharing"]):
        el = lists[c]
        places = el.handicap if lst == "handicap" else el.places
        values = [Fraction(v) for _, v in places] if lst == "handicap" else el.exact_values()
        total = sum((x for (dd, _), x in zip(places[int(p) - 1:int(t)], values[int(p) - 1:int(t)]) if dd == d), Fraction(0))
        out.append(str(total / int(k)))
    return out


def _better_list(shared: pd.DataFrame) -> pd.DataFrame:
    """A pair on both the scratch and the handicap list gets the list that gives more."""
    if shared.empty:
        return shared
    totals = shared.groupby(["competition", "entrant", "list"], as_index=False)["points"].sum()
    totals = totals.assign(pref=(totals["list"] == "scratch").astype(int))
    best = totals.sort_values(["competition", "entrant", "points", "pref"], ascending=[True, True, False, False]) \
        .drop_duplicates(["competition", "entrant"])[["competition", "entrant", "list"]]
    return shared.merge(best, on=["competition", "entrant", "list"])


def _reserves(players: pd.DataFrame) -> pd.DataFrame:
    """A player must have played half the rounds (or boards); in a barometer a player of a team of
    more than 4 gets points × matches played / matches, if at least a third, rounded up."""
    if players.empty:
        return players.assign(final=pd.Series(dtype="int64"), share=pd.Series(dtype="string"))
    pts = players["points"].astype("int64")
    played = players["played"].astype("Int64")
    of = players["played_of"].astype("Int64")
    known = played.notna() & of.notna() & (of > 0)
    half_rule = players["reserve_rule"] == "half"
    out = pts.copy()
    notes = pd.Series("", index=players.index)
    too_little = known & half_rule & (played * 2 < of)
    out = out.where(~too_little, 0)
    notes = notes.where(~too_little, "played " + played.astype(str) + " of " + of.astype(str) + ": less than half, no points")
    team_size = players.groupby(["competition", "entrant"])["member"].transform("size")
    share_rule = known & ~half_rule & (team_size > 4)
    enough = played * 3 >= of
    scaled = pd.Series([-(-int(p) * int(a) // int(b)) if s and e else (0 if s else int(p))
                        for p, a, b, s, e in zip(pts, played.fillna(0), of.fillna(1), share_rule, enough.fillna(False))],
                       index=players.index)
    out = out.where(~share_rule, scaled)
    partial = share_rule & (played < of).fillna(False)
    notes = notes.where(~partial, "played " + played.astype(str) + " of " + of.astype(str) + " matches: × "
                        + played.astype(str) + "/" + of.astype(str) + " = " + scaled.astype(str))
    notes = notes.where(~(share_rule & ~enough.fillna(False)), "played " + played.astype(str) + " of " + of.astype(str)
                        + " matches: less than a third, no points")
    basis = players["basis"] + notes.map(lambda s: f"; {s}" if s else "")
    # the exact part a part-time barometer player is paid (the national ranking counts it unrounded)
    share = ("" + played.astype(str) + "/" + of.astype(str)).where(partial & enough.fillna(False), "1")
    return players.assign(final=out.astype("int64"), basis=basis, share=share.astype(str))
