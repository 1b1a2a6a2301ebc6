"""JCBL masterpoint awards: RP (red) and BP (black) per player per event.

Pure, set-based functions over whole standings frames. Arithmetic is exact (rule values are
Decimals from ``data/rules/jcbl``, combined as Fractions) and each award component is rounded
once, in ``money.to_points``. Every formula and coefficient comes from the rule tables; this
module only knows the three formula shapes (placing, session_score, winning_vp).
"""
from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction

import pandas as pd

from pipelines.jcbl.money import show, to_points
from pipelines.jcbl.rules import JcblRules, JcblRulesError, RuleSet
from pipelines.core.validation import validate_frame
from schemas import jcbl as S

EVENT_COLUMNS = list(S.EventFrame.to_schema().columns)
STANDINGS_COLUMNS = list(S.StandingsFrame.to_schema().columns)
COMPONENT_COLUMNS = list(S.AwardComponentLines.to_schema().columns)
AWARD_COLUMNS = list(S.AwardLines.to_schema().columns)
QUARANTINE_COLUMNS = ["source_file", "location", "reason"]


class JcblInputError(ValueError):
    """compute_awards was handed an event it cannot score; ``.quarantine`` lists every problem."""

    def __init__(self, quarantine: pd.DataFrame):
        self.quarantine = quarantine
        lines = "; ".join(f"{r.source_file} {r.location}: {r.reason}" for r in quarantine.itertuples())
        super().__init__(f"JCBL event cannot be scored: {lines}")


# --------------------------------------------------------------------------- small helpers


def _frac(v) -> Fraction:
    return Fraction(v)


def _ratio_label(num: Decimal, den: Decimal) -> str:
    return f"{show(num)}/{show(den)}"


def _dec(v) -> Decimal | None:
    """Loose input value → Decimal (None for empty). Floats go through their shortest repr."""
    if v is None or (not isinstance(v, (str, Decimal)) and pd.isna(v)):
        return None
    if isinstance(v, Decimal):
        return v
    if isinstance(v, float):
        v = repr(v)
    try:
        d = Decimal(str(v).strip())
    except InvalidOperation:
        raise ValueError(f"expected a number, found {v!r}") from None
    return d


def quarantine_frame(rows: list[tuple[str, str, str]] | None = None) -> pd.DataFrame:
    if not rows:
        return _no_quarantine().copy()  # most files have no problem: the empty frame is validated once
    df = pd.DataFrame(rows, columns=QUARANTINE_COLUMNS, dtype=object)
    return validate_frame(S.Quarantine, df.astype(str))


@functools.cache
def _no_quarantine() -> pd.DataFrame:
    df = pd.DataFrame([], columns=QUARANTINE_COLUMNS, dtype=object)
    return validate_frame(S.Quarantine, df.astype({c: str for c in QUARANTINE_COLUMNS}))


def field_cut(field_size: int, cut_fraction: Decimal) -> int:
    """Places that receive placing awards: the top cut_fraction of the field, rounded up (10 → 4)."""
    return math.ceil(Fraction(field_size) * Fraction(cut_fraction))


# --------------------------------------------------------------------------- event settings


class EventFrames(dict):
    """{"event": 1 row, "strats": ...} as make_event validated them. _event_frames takes them as they
    are while the dict still holds those very frames (frames are never changed in place here):
    the JCBL unit tests and the nightly run hand make_event's frames straight on, and validating
    them a second time cost as much as validating them once."""

    def __init__(self, event: pd.DataFrame, strats: pd.DataFrame):
        super().__init__(event=event, strats=strats)
        self._validated = (event, strats)

    def as_validated(self) -> bool:
        return self.get("event") is self._validated[0] and self.get("strats") is self._validated[1]


def make_event(
    *,
    event_id: str,
    event_date,
    kind: str,
    organisation: str = "jcbl",
    name: str = "",
    class_level: int | None = None,
    weekday: bool = False,
    sessions: int | None = None,
    boards_per_session: int | None = None,
    boards_per_match: int | None = None,
    vp_scale=None,
    team_flights: int | None = None,
    pair_flights: int | None = None,
    strats: list[tuple[str, int | None]] | None = None,
    source_file: str = "",
) -> dict[str, pd.DataFrame]:
    """Event settings as the frames parse_event returns ({"event": 1 row, "strats": ...}).

    ``strats``: [("A", None), ("B", 1000), ("C", 500)], the open strat first.
    """
    row = dict(
        organisation=organisation, event_id=event_id, event_date=pd.Timestamp(event_date), name=name,
        kind=kind, class_level=class_level, weekday=bool(weekday), sessions=sessions,
        boards_per_session=boards_per_session, boards_per_match=boards_per_match,
        vp_scale=_dec(vp_scale), team_flights=team_flights, pair_flights=pair_flights,
        source_file=source_file or f"{event_id}.event.txt",
    )
    ev = pd.DataFrame([row], columns=EVENT_COLUMNS)
    ev["vp_scale"] = ev["vp_scale"].astype(object)
    st = pd.DataFrame(
        [{"event_id": event_id, "strat": s, "position": i + 1, "strat_limit": lim} for i, (s, lim) in enumerate(strats or [])],
        columns=["event_id", "strat", "position", "strat_limit"],
    )
    return EventFrames(validate_frame(S.EventFrame, ev), validate_frame(S.StratFrame, st))


def _event_frames(event) -> tuple[dict, pd.DataFrame]:
    """Accept parse_event frames, a one-row event DataFrame, or a mapping of settings."""
    if isinstance(event, pd.DataFrame):
        frames = {"event": event}
    elif isinstance(event, Mapping) and isinstance(event.get("event"), pd.DataFrame):
        frames = event if isinstance(event, EventFrames) else dict(event)
    elif isinstance(event, Mapping):
        frames = make_event(**event)
    else:
        raise TypeError(f"event must be parse_event frames, an event DataFrame or a mapping, not {type(event).__name__}")
    validated = isinstance(frames, EventFrames) and frames.as_validated()
    ev = frames["event"] if validated else validate_frame(S.EventFrame, frames["event"])
    if len(ev) != 1:
        raise ValueError(f"expected settings of exactly one event, found {len(ev)}")
    strats = frames.get("strats")
    if strats is None:
        strats = pd.DataFrame(columns=["event_id", "strat", "position", "strat_limit"])
    strats = strats[strats["event_id"] == ev["event_id"].iloc[0]] if len(strats) else strats
    if not validated:  # one event's rows of validated strats: every check holds per event
        strats = validate_frame(S.StratFrame, strats)
    return ev.iloc[0].to_dict(), strats.sort_values("position").reset_index(drop=True)


def _normalise_standings(standings: pd.DataFrame, ev: dict) -> pd.DataFrame:
    st = standings.copy()
    defaults = {
        "event_id": ev["event_id"], "flight": "", "session_1_pct": None, "session_2_pct": None,
        "winning_vp": None, "match_vps": "", "source_file": ev["source_file"],
    }
    for col, val in defaults.items():
        if col not in st:
            st[col] = val
    if "location" not in st:
        st["location"] = "entrant " + st["entrant"].astype(str)
    st["players"] = st["players"].map(lambda p: " ".join(map(str, p)) if isinstance(p, (list, tuple)) else str(p))
    st["flight"] = st["flight"].fillna("").astype(str)
    st["match_vps"] = st["match_vps"].fillna("").astype(str)
    for col in ("session_1_pct", "session_2_pct", "winning_vp"):
        st[col] = pd.Series([_dec(v) for v in st[col]], index=st.index, dtype=object)
    return st[STANDINGS_COLUMNS]


# --------------------------------------------------------------------------- checks


def _coefficient(table: pd.DataFrame, mask) -> tuple[str, Fraction] | None:
    rows = table[mask]
    if rows.empty:
        return None
    r = rows.iloc[0]
    return _ratio_label(r["numerator"], r["denominator"]), Fraction(r["numerator"]) / Fraction(r["denominator"])


def check_event(event, standings: pd.DataFrame, holdings: pd.DataFrame | None, rules) -> pd.DataFrame:
    """Every reason this event cannot be scored, as quarantine rows (empty frame: all fine).

    Cross-file checks the parsers cannot make alone: the kind exists in the rules in effect,
    the settings each award component needs are given, every entrant has the numbers its
    components need, flights and strats have coefficients, the field fits the ratio list.
    """
    return checked_event(event, standings, rules).problems


@dataclass(frozen=True)
class CheckedEvent:
    """An event and its standings read, validated and checked once (the nightly run checks an
    event, adds its own checks, then scores the same frames: components_of)."""

    ev: dict
    strats: pd.DataFrame
    standings: pd.DataFrame | None  # validated; None when they could not be
    problems: pd.DataFrame


def checked_event(event, standings: pd.DataFrame, rules) -> CheckedEvent:
    ev, strats = _event_frames(event)
    problems, st = _problems(ev, strats, standings, rules)
    return CheckedEvent(ev, strats, st, problems)


def _problems(ev: dict, strats: pd.DataFrame, standings: pd.DataFrame, rules) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """check_event on an event already read: (its quarantine rows, the standings validated, or
    None when they could not be). award_components scores those standings, not a second copy."""
    src = ev["source_file"]
    out: list[tuple[str, str, str]] = []
    try:
        rs = rules.for_date(ev["event_date"]) if isinstance(rules, JcblRules) else rules
        kind = rs.kind(ev["kind"])
    except JcblRulesError as e:
        return quarantine_frame([(src, "kind", str(e))]), None
    comps = rs.components(ev["kind"])
    try:
        st = _normalise_standings(standings, ev)
        st = S.StandingsFrame.validate(st, lazy=True)
    except ValueError as e:  # includes SchemaErrors
        return quarantine_frame([(src, "standings", f"standings do not match the documented columns: {e}")]), None
    validated = st

    if pd.notna(kind["class_scale"]):
        cl = ev["class_level"]
        classes = rs.class_ratios[rs.class_ratios["scale"] == kind["class_scale"]]["class_level"]
        if pd.isna(cl) or int(cl) not in set(classes):
            out.append((src, "class", f"{kind['label']} needs a class {sorted(classes)}; found {cl if pd.notna(cl) else 'nothing'}"))
    units = set(comps["unit"])
    for row in st[~st["unit"].isin(units)].itertuples():
        out.append((row.source_file, row.location, f"{kind['label']} scores {' and '.join(sorted(units))}s only; found a {row.unit} ({row.entrant})"))
    st = st[st["unit"].isin(units)]
    if st.empty:
        out.append((src, "standings", f"no {' or '.join(sorted(units))} in the standings of {ev['event_id']}"))
    for row in st[st["event_id"] != ev["event_id"]].itertuples():
        out.append((row.source_file, row.location, f"expected event {ev['event_id']}, found {row.event_id}"))

    teams = st[st["unit"] == "team"]
    sizes = teams["players"].str.split(" ").str.len()
    for row, n in zip(teams[(sizes < 4) | (sizes > 6)].itertuples(), sizes[(sizes < 4) | (sizes > 6)]):
        out.append((row.source_file, row.location, f"expected 4 to 6 players in team {row.entrant}, found {n}"))
    per_player = st.assign(player_id=st["players"].str.split(" ")).explode("player_id")
    dup = per_player[per_player.duplicated(["unit", "player_id"], keep=False)]
    for (unit, pid), g in dup.groupby(["unit", "player_id"]):
        out.append((g["source_file"].iloc[0], ", ".join(g["location"]), f"player {pid} appears in more than one {unit}: {', '.join(g['entrant'])}"))

    for comp in comps.itertuples():
        cst = st[st["unit"] == comp.unit]
        if comp.flight_coefficient:
            nflights = ev["team_flights"] if comp.unit == "team" else ev["pair_flights"]
            if pd.notna(nflights) and int(nflights) > 1:
                known = rs.flights[rs.flights["flights"] == int(nflights)]
                if known.empty:
                    out.append((src, f"{comp.unit}_flights", f"no flight coefficients for an event of {nflights} flights in {rs.rule_version} (known: {sorted(set(rs.flights['flights']))})"))
                else:
                    bad = cst[~cst["flight"].isin(set(known["flight"]))]
                    for row in bad.itertuples():
                        out.append((row.source_file, row.location, f"expected a flight {'/'.join(sorted(known['flight']))} for {comp.unit} {row.entrant}, found {row.flight or 'nothing'}"))
            else:
                for row in cst[cst["flight"] != ""].itertuples():
                    out.append((row.source_file, row.location, f"flight {row.flight} given but the event file declares no {comp.unit} flights"))
        if comp.strat_coefficient:
            for s in strats[strats["strat_limit"].notna()].itertuples():
                if int(s.strat_limit) not in set(rs.strats["strat_limit"]):
                    out.append((src, "strats", f"no coefficient for a strat under {s.strat_limit} MP in {rs.rule_version} (known: {sorted(rs.strats['strat_limit'])})"))
        if comp.formula == "placing" and comp.place_factor == "ratio":
            nratios = len(rs.place_ratios)
            for key, g in cst.groupby("flight"):
                cut = field_cut(len(g), rs.cut_fraction)
                if cut > nratios:
                    out.append((src, "standings", f"{len(g)} {comp.unit}s{' in flight ' + key if key else ''}: places 1-{cut} get awards but the ratio list of {rs.rule_version} ends at place {nratios}"))
        if comp.formula == "session_score":
            if pd.isna(ev["boards_per_session"]):
                out.append((src, "boards_per_session", f"{kind['label']} pays session-score BP: the event file must give boards_per_session"))
            nsess = int(ev["sessions"]) if pd.notna(ev["sessions"]) else 1
            for i in range(1, nsess + 1):
                for row in cst[cst[f"session_{i}_pct"].isna()].itertuples():
                    out.append((row.source_file, row.location, f"expected the session {i} percentage of pair {row.entrant}, found nothing"))
        if comp.formula == "winning_vp":
            for key, label in (("boards_per_match", "boards_per_match"), ("vp_scale", "vp_scale")):
                if pd.isna(ev[key]):
                    out.append((src, key, f"{kind['label']} pays winning-VP BP: the event file must give {label}"))
            for row in cst[cst["winning_vp"].isna() & (cst["match_vps"] == "")].itertuples():
                out.append((row.source_file, row.location, f"expected match VPs (or winning VP) of team {row.entrant}, found nothing"))
    # de-duplicate (several components can report the same row)
    return quarantine_frame(list(dict.fromkeys(out))), validated


# --------------------------------------------------------------------------- formulas


def _fixed_factors(rs: RuleSet, ev: dict) -> list[tuple[str, Fraction]]:
    """Coefficients that apply to every component of the event: class, kind, weekday."""
    kind = rs.kind(ev["kind"])
    factors: list[tuple[str, Fraction]] = []
    if pd.notna(kind["class_scale"]):
        c = _coefficient(rs.class_ratios, (rs.class_ratios["scale"] == kind["class_scale"]) & (rs.class_ratios["class_level"] == int(ev["class_level"])))
        factors.append(c)
    for name in filter(None, kind["coefficients"].split(";")):
        factors.append(_coefficient(rs.coefficients, rs.coefficients["coefficient"] == name))
    if ev["weekday"] and kind["weekday_applies"]:
        factors.append(_coefficient(rs.coefficients, rs.coefficients["coefficient"] == "weekday"))
    return factors


def _flight_factor(rs: RuleSet, ev: dict, unit: str, flights: pd.Series) -> pd.DataFrame:
    """Per-entrant flight coefficient (label, value); (\"\", 1) when the event has no flights."""
    n = ev["team_flights"] if unit == "team" else ev["pair_flights"]
    if pd.isna(n) or int(n) <= 1:
        return pd.DataFrame({"flight_label": "", "flight_value": Fraction(1)}, index=flights.index)
    t = rs.flights[rs.flights["flights"] == int(n)].set_index("flight")
    return pd.DataFrame({
        "flight_label": flights.map(lambda f: _ratio_label(t.at[f, "numerator"], t.at[f, "denominator"])),
        "flight_value": flights.map(lambda f: Fraction(t.at[f, "numerator"]) / Fraction(t.at[f, "denominator"])),
    }, index=flights.index)


def _power(base: Decimal, k: int) -> str:
    return "1" if k == 0 else show(base) if k == 1 else f"{show(base)}^{k}"


def _join_labels(*labels: str) -> str:
    return "×".join(l for l in labels if l)


def _place_table(comp, rs: RuleSet, sizes: pd.DataFrame, factor_label: str, factor_value: Fraction) -> pd.DataFrame:
    """Award of every place p of every field: columns field, place, in_cut, raw, expr.

    ``sizes``: field, n, coef_label, coef_value (coefficients that vary per field).
    """
    ratios = dict(zip(rs.place_ratios["place"], rs.place_ratios["ratio"]))
    t = sizes.assign(place=sizes["n"].map(lambda n: list(range(1, n + 1)))).explode("place")
    t["place"] = t["place"].astype(int)
    t["cut"] = t["n"].map(lambda n: field_cut(n, rs.cut_fraction))
    t["in_cut"] = t["place"] <= t["cut"]
    base, offset = Fraction(comp.base), Fraction(comp.field_offset)
    decay = Fraction(comp.decay) if comp.decay is not None else None

    if comp.place_factor == "geometric":
        pf = t["place"].map(lambda p: decay ** (p - 1))
        pf_label = t["place"].map(lambda p: _power(comp.decay, p - 1))
        tail = pd.Series("", index=t.index)
    elif comp.place_factor == "ratio":
        pf = t["place"].map(lambda p: Fraction(ratios[p]) if p in ratios else None)
        pf_label = t["place"].map(lambda p: show(ratios[p]) if p in ratios else "?")
        tail = pd.Series("", index=t.index)
    else:  # reciprocal
        pf = t["place"].map(lambda p: Fraction(1, p))
        pf_label = pd.Series("", index=t.index)
        tail = t["place"].map(lambda p: "" if p == 1 else f"/{p}")
    in_cut = t["in_cut"]
    if (in_cut & pf.isna()).any():
        raise JcblRulesError(f"{rs.rule_version}: the ratio list ends at place {len(ratios)}; a larger field needs more ratios")
    n_off = t["n"].map(lambda n: Fraction(n) + offset)
    raw = pd.Series(
        [base * a * (b or 0) * c * factor_value if ok else Fraction(0) for a, b, c, ok in zip(n_off, pf, t["coef_value"], in_cut)],
        index=t.index, dtype=object,
    )
    expr = (show(comp.base) + "×" + n_off.map(show) + pf_label.map(lambda s: "×" + s if s else "")
            + (factor_label and "×" + factor_label) + t["coef_label"].map(lambda s: "×" + s if s else "") + tail)
    if comp.cap_base is not None:
        cap = t["place"].map(lambda p: Fraction(comp.cap_base) * decay ** (p - 1))
        capped = raw > cap
        raw = raw.where(~capped, cap)
        cap_label = t["place"].map(lambda p: str(comp.cap_base) + ("" if p == 1 else "×" + _power(comp.decay, p - 1)))
        expr = expr.where(~capped, "min(" + expr + ", cap " + cap_label + ")")
    expr = expr.where(in_cut, "0 (outside the top " + t["cut"].astype(str) + ")")
    return t.assign(raw=raw, expr=expr)[["field", "place", "cut", "in_cut", "raw", "expr"]]


def _placing(comp, rs: RuleSet, entries: pd.DataFrame, factor_label: str, factor_value: Fraction) -> pd.DataFrame:
    """Placing award per entrant: entries have field, entrant, rank, coef_label, coef_value, field_name.

    Ranks are re-ranked within each field without gaps (competition ranking); tied entrants
    split the sum of the awards of the places they occupy (places beyond the cut add 0).
    """
    e = entries.copy()
    e["place"] = e.groupby("field")["rank"].rank(method="min").astype(int)
    e["tied"] = e.groupby(["field", "place"])["entrant"].transform("size").astype(int)
    sizes = e.groupby("field").agg(n=("entrant", "size"), coef_label=("coef_label", "first"), coef_value=("coef_value", "first")).reset_index()
    places = _place_table(comp, rs, sizes, factor_label, factor_value)
    occ = e[["field", "entrant", "place", "tied"]].assign(
        occupied=[list(range(p, p + t)) for p, t in zip(e["place"], e["tied"])]
    ).explode("occupied")
    occ = occ.merge(places.rename(columns={"place": "occupied"}), on=["field", "occupied"], how="left")
    agg = occ.groupby(["field", "entrant"]).agg(
        total=("raw", lambda s: sum(s, Fraction(0))), exprs=("expr", list), cut=("cut", "first")
    ).reset_index()
    e = e.merge(agg, on=["field", "entrant"], how="left").merge(sizes[["field", "n"]], on="field")
    e["raw"] = [tot / t for tot, t in zip(e["total"], e["tied"])]
    single = e["tied"] == 1
    e["calc"] = [
        x[0] if t == 1 else "(" + " + ".join(x) + f")/{t}" for x, t in zip(e["exprs"], e["tied"])
    ]
    place_text = [
        f"place {p}" if t == 1 else f"places {p}–{p + t - 1} tied ({t} {u}s{', top ' + str(c) + ' paid' if p + t - 1 > c >= p else ''})"
        for p, t, c, u in zip(e["place"], e["tied"], e["cut"], e["unit"])
    ]
    e["basis"] = (e["field_name"] + ", " + e["n"].astype(str) + " " + e["unit"] + "s, " + pd.Series(place_text, index=e.index)
                  + ": " + e["calc"])
    del single
    return e


def _strat_membership(st: pd.DataFrame, strats: pd.DataFrame, holdings: pd.DataFrame | None) -> pd.DataFrame:
    """Pairs × strats they belong to: strat 1 takes everybody; a lower strat takes a pair whose
    players all hold fewer masterpoints than its limit (players missing from holdings hold 0)."""
    pairs = st[st["unit"] == "pair"]
    if strats.empty:
        return pairs.assign(strat="", position=1, strat_limit=pd.NA)
    hold = {} if holdings is None or holdings.empty else dict(zip(holdings["player_id"], holdings["masterpoints"]))
    top = pairs["players"].map(lambda p: max(hold.get(x, Decimal(0)) for x in p.split(" ")))
    m = pairs.assign(top_holding=top).merge(strats[["strat", "position", "strat_limit"]], how="cross")
    keep = m["strat_limit"].isna() | (m["top_holding"] < m["strat_limit"].map(lambda v: Decimal(int(v)) if pd.notna(v) else Decimal(0)))
    return m[keep.astype(bool)].reset_index(drop=True)


def _class_text(rs: RuleSet, ev: dict) -> str:
    kind = rs.kind(ev["kind"])
    return f" class {int(ev['class_level'])}" if pd.notna(kind["class_scale"]) else ""


def _placing_component(comp, rs: RuleSet, ev: dict, st: pd.DataFrame, strats, holdings, fixed) -> pd.DataFrame:
    kind = rs.kind(ev["kind"])
    cst = st[st["unit"] == comp.unit]
    if cst.empty:
        return pd.DataFrame()
    fixed_label = _join_labels(*(l for l, _ in fixed))
    fixed_value = math.prod((v for _, v in fixed), start=Fraction(1))
    day = " (weekday)" if ev["weekday"] and kind["weekday_applies"] else ""
    fl = _flight_factor(rs, ev, comp.unit, cst["flight"]) if comp.flight_coefficient else pd.DataFrame(
        {"flight_label": "", "flight_value": Fraction(1)}, index=cst.index)
    cst = cst.join(fl)
    head = kind["label"] + _class_text(rs, ev)
    if comp.per_strat and not strats.empty:
        m = _strat_membership(cst, strats, holdings)
        lim = rs.strats.set_index("strat_limit")
        m["coef_label"] = m["strat_limit"].map(lambda v: "" if pd.isna(v) else _ratio_label(lim.at[int(v), "numerator"], lim.at[int(v), "denominator"]))
        m["coef_value"] = m["strat_limit"].map(lambda v: Fraction(1) if pd.isna(v) else Fraction(lim.at[int(v), "numerator"]) / Fraction(lim.at[int(v), "denominator"]))
        m["strat_text"] = m.apply(lambda r: f" strat {r['strat']}" + ("" if pd.isna(r["strat_limit"]) else f" ({lim.at[int(r['strat_limit']), 'label']})"), axis=1)
        m["field"] = m["flight"] + "|" + m["strat"]
        m["field_name"] = head + day + m["strat_text"] + ", " + comp.label
        m["overall"] = m["rank"]
        placed = _placing(comp, rs, m, fixed_label, fixed_value)
        placed["basis"] = placed["basis"] + placed.apply(lambda r: "" if r["position"] == 1 else f" (overall rank {r['overall']})", axis=1)
        placed["raw_pts"] = placed["raw"].map(to_points)
        alts = placed.groupby("entrant").apply(
            lambda g: " (best of strats " + ", ".join(f"{s}: {p}" for s, p in zip(g["strat"], g["raw_pts"])) + ")" if len(g) > 1 else "",
            include_groups=False).rename("note")
        best = (placed.sort_values(["entrant", "raw", "position"], ascending=[True, False, True])
                .drop_duplicates("entrant").merge(alts, left_on="entrant", right_index=True))
        return best
    e = cst.assign(
        field=cst["flight"],
        coef_label=cst["flight_label"], coef_value=cst["flight_value"],
        field_name=head + day + cst["flight"].map(lambda f: f" flight {f}" if f else "") + ", " + comp.label,
    )
    return _placing(comp, rs, e, fixed_label, fixed_value)


def _session_component(comp, rs: RuleSet, ev: dict, st: pd.DataFrame, strats, holdings, fixed) -> pd.DataFrame:
    kind = rs.kind(ev["kind"])
    pairs = st[st["unit"] == "pair"]
    if pairs.empty:
        return pd.DataFrame()
    fl = _flight_factor(rs, ev, "pair", pairs["flight"]) if comp.flight_coefficient else pd.DataFrame(
        {"flight_label": "", "flight_value": Fraction(1)}, index=pairs.index)
    pairs = pairs.join(fl)
    floor, threshold = Fraction(comp.session_floor), Fraction(comp.session_threshold)
    frac = Fraction(comp.lower_strat_top_fraction)
    boards = int(ev["boards_per_session"])
    nsess = int(ev["sessions"]) if pd.notna(ev["sessions"]) else 1
    fixed_label = _join_labels(*(l for l, _ in fixed))
    fixed_value = math.prod((v for _, v in fixed), start=Fraction(1))
    lower = _strat_membership(pairs, strats, holdings)
    lower = lower[lower["position"] > 1] if not strats.empty else lower.iloc[0:0]
    head = kind["label"] + _class_text(rs, ev)
    out = []
    for i in range(1, nsess + 1):  # sessions of one event: at most 2
        col = f"session_{i}_pct"
        s = pairs[pairs[col].notna()].copy()
        s["pct"] = s[col].map(Fraction)
        # session ranking within each lower strat (competition ranking on the session score)
        lw = lower[lower[col].notna()].copy()
        if not lw.empty:
            lw["srank"] = lw.groupby("strat")[col].rank(method="min", ascending=False).astype(int)
            lw["ssize"] = lw.groupby("strat")["entrant"].transform("size").astype(int)
            lw["top"] = [r <= frac * n for r, n in zip(lw["srank"], lw["ssize"])]
            lw = lw[lw["top"]].sort_values("position").drop_duplicates("entrant")
            note = lw.set_index("entrant").apply(
                lambda r: f" (below {show(comp.session_threshold)}%, but {r['srank']} of {r['ssize']} in the session ranking of strat {r['strat']})", axis=1)
        else:
            note = pd.Series(dtype=str)
        above = s["pct"] >= threshold
        lower_top = s["entrant"].isin(note.index) & (s["pct"] > floor)
        s = s[above | lower_top]
        if s.empty:
            continue
        s["raw"] = [Fraction(comp.base) * boards * (p - floor) * fixed_value * fv for p, fv in zip(s["pct"], s["flight_value"])]
        s["component"] = f"{comp.component}_{i}"
        s["basis"] = (head + s["flight"].map(lambda f: f" flight {f}" if f else "") + f", {comp.label} session {i}, {boards} boards, "
                      + s[col].map(show) + f"%: {show(comp.base)}×{boards}×(" + s[col].map(show) + f"−{show(comp.session_floor)})"
                      + (("×" + fixed_label) if fixed_label else "") + s["flight_label"].map(lambda x: "×" + x if x else ""))
        s["note"] = s["entrant"].map(lambda e: note.get(e, "") if len(note) else "").where(s["pct"] < threshold, "")
        out.append(s)
    return pd.concat(out, ignore_index=True) if out else pd.DataFrame()


def winning_vp(match_vps: pd.Series, vp_scale: Decimal) -> pd.Series:
    """Winning VP from space-separated match VPs: the sum of the VPs of the matches won
    (VP above half the scale; a drawn match at exactly half is not won)."""
    half = Fraction(vp_scale) / 2
    parts = match_vps.fillna("").str.split().explode()
    parts = parts[parts.notna() & (parts != "")]
    vals = parts.map(Decimal)
    won = vals[vals.map(lambda v: Fraction(v) > half).astype(bool)]
    total = won.groupby(level=0).agg(lambda s: sum(s, Decimal(0)))
    return total.reindex(match_vps.index).map(lambda v: Decimal(0) if pd.isna(v) else v)


def _vp_component(comp, rs: RuleSet, ev: dict, st: pd.DataFrame, strats, holdings, fixed) -> pd.DataFrame:
    kind = rs.kind(ev["kind"])
    teams = st[st["unit"] == "team"].copy()
    if teams.empty:
        return pd.DataFrame()
    scale = ev["vp_scale"]
    computed = winning_vp(teams["match_vps"], scale)
    teams["wvp"] = teams["winning_vp"].where(teams["winning_vp"].notna(), computed)
    teams = teams[teams["wvp"].map(lambda v: v > 0).astype(bool)]
    if teams.empty:
        return pd.DataFrame()
    fl = _flight_factor(rs, ev, "team", teams["flight"]) if comp.flight_coefficient else pd.DataFrame(
        {"flight_label": "", "flight_value": Fraction(1)}, index=teams.index)
    teams = teams.join(fl)
    fixed_label = _join_labels(*(l for l, _ in fixed))
    fixed_value = math.prod((v for _, v in fixed), start=Fraction(1))
    bpm = int(ev["boards_per_match"])
    k = Fraction(comp.base) * bpm * Fraction(comp.vp_reference) / Fraction(scale) * fixed_value
    teams["raw"] = [Fraction(v) * k * fv for v, fv in zip(teams["wvp"], teams["flight_value"])]
    teams["basis"] = (kind["label"] + teams["flight"].map(lambda f: f" flight {f}" if f else "")
                      + f", {comp.label} " + teams["wvp"].map(show)
                      + f" ({bpm}-board matches, {show(scale)} VP scale): " + teams["wvp"].map(show)
                      + f"×{show(comp.base)}×{bpm}×{show(comp.vp_reference)}/{show(scale)}"
                      + (("×" + fixed_label) if fixed_label else "") + teams["flight_label"].map(lambda x: "×" + x if x else ""))
    return teams


_FORMULAS = {"placing": _placing_component, "session_score": _session_component, "winning_vp": _vp_component}


def award_components(event, standings: pd.DataFrame, holdings: pd.DataFrame | None, rules) -> pd.DataFrame:
    """One line per player per award component (placing, session 1, session 2, winning VP ...),
    each rounded on its own. Columns: schemas.jcbl.AwardComponentLines. Raises JcblInputError
    (with ``.quarantine``) when check_event finds problems."""
    checked = checked_event(event, standings, rules)
    if len(checked.problems):
        raise JcblInputError(checked.problems)
    return components_of(checked, holdings, rules)


def components_of(checked: CheckedEvent, holdings: pd.DataFrame | None, rules) -> pd.DataFrame:
    """award_components of an event checked without problems."""
    ev, strats, st = checked.ev, checked.strats, checked.standings
    rs = rules.for_date(ev["event_date"]) if isinstance(rules, JcblRules) else rules
    if holdings is not None:
        holdings = validate_frame(S.HoldingsFrame, holdings.assign(masterpoints=holdings["masterpoints"].map(_dec)))
    fixed = _fixed_factors(rs, ev)
    parts = []
    for comp in rs.components(ev["kind"]).itertuples():  # a handful of components per kind
        got = _FORMULAS[comp.formula](comp, rs, ev, st, strats, holdings, fixed)
        if len(got):
            if "component" not in got:
                got = got.assign(component=comp.component)
            if "note" not in got:
                got = got.assign(note="")
            parts.append(got.assign(denomination=comp.denomination)[
                ["unit", "entrant", "players", "component", "denomination", "raw", "basis", "note", "source_file", "location"]])
    if not parts:
        return validate_frame(S.AwardComponentLines, pd.DataFrame(columns=COMPONENT_COLUMNS).astype({"event_date": "datetime64[ns]"}))
    lines = pd.concat(parts, ignore_index=True)
    lines["points"] = lines["raw"].map(to_points)
    lines = lines[lines["points"].map(lambda p: p != 0).astype(bool)]
    lines["basis"] = lines["basis"] + " = " + lines["points"].map(str) + lines["note"]
    lines = (lines.assign(player_id=lines["players"].str.split(" "))
             .explode("player_id")
             .assign(organisation=ev["organisation"], event_id=ev["event_id"], event_date=pd.Timestamp(ev["event_date"]),
                     rule_version=rs.rule_version))
    return validate_frame(S.AwardComponentLines, lines[COMPONENT_COLUMNS].reset_index(drop=True))


def aggregate_awards(components: pd.DataFrame) -> pd.DataFrame:
    """Component lines → one line per player per denomination per event (rounded components
    added, as the seed's examples add them), the bases joined with " + "."""
    keys = ["organisation", "event_id", "event_date", "player_id", "denomination", "rule_version"]
    if components.empty:
        return validate_frame(S.AwardLines, pd.DataFrame(columns=AWARD_COLUMNS).astype({"event_date": "datetime64[ns]"}))
    c = components.sort_values(["event_id", "player_id", "denomination", "unit", "component"])
    out = c.groupby(keys, sort=False).agg(
        points=("points", lambda s: sum(s, Decimal("0.00"))),
        basis=("basis", lambda s: " + ".join(s)),
        n=("basis", "size"),
        source_file=("source_file", lambda s: "; ".join(dict.fromkeys(s))),
        location=("location", lambda s: "; ".join(dict.fromkeys(s))),
    ).reset_index()
    out["basis"] = out["basis"].where(out["n"] == 1, out["basis"] + "; total " + out["points"].map(str))
    return validate_frame(S.AwardLines, out[AWARD_COLUMNS].reset_index(drop=True))


def compute_awards(event, standings: pd.DataFrame, holdings: pd.DataFrame | None, rules) -> pd.DataFrame:
    """RP and BP of every player of one event: one line per player per denomination.

    event: parse_event frames ({"event", "strats"}), a one-row event frame, or a mapping of
    settings (see make_event). standings: schemas.jcbl.StandingsFrame columns (optional ones
    filled). holdings: player_id, masterpoints as of the event date (strat eligibility).
    rules: load_rules() (the version in effect on the event date is used) or one RuleSet.
    """
    return award_components(event, standings, holdings, rules).pipe(aggregate_awards)
