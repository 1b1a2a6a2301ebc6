"""What the three traveller parsers share: normalising raw cells into ``traveller_lines`` and
quarantining every line that cannot be scored, with a reason a club secretary can act on.

A parser builds a *raw* frame, one row per traveller line, all cells as text:

``event_id, session, section, board, round, ns_pair, ew_pair, contract_raw, declarer_raw,
result_raw, score_raw, adjusted_raw, vulnerable_raw, dealer_raw, location``

and calls :func:`finalise` with the entrants it read (may be empty when the file has no list).
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date

import numpy as np
import pandas as pd

from pipelines.core.text import SHOWN, clip, physical_lines, unicode_marked  # noqa: F401 - re-exported to the bridge readers
from pipelines.bridge.scoring import (
    board_rotation,
    normalise_vulnerability,
    parse_contracts,
    parse_tricks,
    score_ns,
    validate_contracts,
)

QUARANTINE_COLUMNS = ["source_file", "location", "reason"]

TRAVELLER_COLUMNS = [
    "event_id", "session", "section", "board", "round", "ns_pair", "ew_pair", "contract", "level",
    "strain", "doubled", "declarer", "tricks", "vulnerable", "dealer", "score_ns", "stated_score_ns",
    "law77_score_ns", "deal", "par", "adjusted", "adj_ns_pct", "adj_ew_pct", "source_file", "location",
]
EVENT_COLUMNS = ["event_id", "event_date", "name", "movement", "scoring", "winner_type", "source_file"]
ENTRANT_COLUMNS = ["event_id", "section", "direction", "entrant", "entrant_name", "player_names", "player_ids",
                   "handicap", "master_points"]


def empty_quarantine() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype="str") for c in QUARANTINE_COLUMNS})


# Bounds of what a traveller cell may hold (validation, not crashes: a value outside them is a
# quarantine reason naming the value, never an overflow further down).
MAX_BOARD = 999          # board numbers 1..999 (a long multi-session event numbers boards consecutively)
MAX_SESSION = 99         # sessions 1..99
MAX_ROUND = 999          # rounds 0..999
MAX_SCORE = 7600         # the largest bridge score: 7NTXX vulnerable, down 13
MAX_CELL = 100           # characters in a pair/team number, contract, result, score or similar cell
MAX_NAME = 200           # characters in an event name, a section or a team name
MAX_PLAYERS_CELL = 1000  # characters in a cell of player names or national ids
# SHOWN: characters of a bad value quoted in a reason; clip: such a value (pipelines/core/text.py)


def decode_text(data: bytes) -> str:
    """A traveller file's text (CSV or PBN): UTF-16 with its byte order mark (Windows' "Unicode") as
    the mark says, else UTF-8 (a BOM is fine), else Windows-1252, the scorers' older encoding."""
    marked = unicode_marked(data)
    if marked is not None:
        return marked[0]
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def clip_series(s: pd.Series, limit: int = SHOWN) -> pd.Series:
    t = s.astype("string").fillna("")
    n = t.str.len()
    return t.where(n <= limit, t.str.slice(0, limit) + "… (" + n.astype("string") + " characters)")


# physical_lines: the file's lines as an editor numbers them (pipelines/core/text.py)


def nfkc(s: pd.Series) -> pd.Series:
    """Full-width digits and letters as ASCII (``１２`` → ``12``), vectorised."""
    return s.astype("string").fillna("").str.normalize("NFKC")


def quarantine_frame(source_file: str, location, reason) -> pd.DataFrame:
    loc = pd.Series(location, dtype="object").astype(str)
    rea = pd.Series(reason, dtype="object").astype(str)
    return pd.DataFrame({"source_file": source_file, "location": loc.to_numpy(), "reason": rea.to_numpy()})


def whole_file_rejected(source_file: str, reason: str, location: str = "whole file") -> tuple[dict, pd.DataFrame]:
    """Empty frames and a one-line quarantine for a file that cannot be read at all."""
    return empty_frames(), quarantine_frame(source_file, [location], [reason])


def never_raises(parser):
    """Last line of defence for the nightly run: an unexpected error while reading one file
    quarantines that file (with the error) instead of stopping the batch."""
    import functools

    @functools.wraps(parser)
    def wrapper(source_file: str, data: bytes):
        try:
            return parser(source_file, data)
        except Exception as exc:  # noqa: BLE001 - reported, never swallowed silently
            return whole_file_rejected(source_file, f"the file could not be read ({type(exc).__name__}: {exc}); "
                                       "please check that it is a complete export and send it again")

    return wrapper


def empty_frames() -> dict[str, pd.DataFrame]:
    return {
        "events": pd.DataFrame({c: pd.Series(dtype="object") for c in EVENT_COLUMNS}),
        "entrants": pd.DataFrame({c: pd.Series(dtype="object") for c in ENTRANT_COLUMNS}),
        "traveller_lines": pd.DataFrame({c: pd.Series(dtype="object") for c in TRAVELLER_COLUMNS}),
    }


def slug(text: str) -> str:
    t = unicodedata.normalize("NFKC", text or "").strip().lower()
    t = re.sub(r"[^\w]+", "-", t, flags=re.UNICODE).strip("-")
    return t or "event"


def make_event_id(event_date: date | None, name: str, fallback: str) -> str:
    """``YYYY-MM-DD:slug-of-name``; the foundation may prefix the organisation."""
    d = event_date.isoformat() if event_date else "nodate"
    return f"{d}:{slug(name or fallback)}"


_DATE_PATTERNS = [
    (re.compile(r"^(\d{4})[.\-/](\d{1,2})[.\-/](\d{1,2})$"), ("y", "m", "d")),
    (re.compile(r"^(\d{1,2})[.\-/](\d{1,2})[.\-/](\d{4})$"), ("d", "m", "y")),  # USEBIO dd/mm/yyyy
    (re.compile(r"^(\d{4})年(\d{1,2})月(\d{1,2})日$"), ("y", "m", "d")),
]


def parse_date(text: str | None) -> date | None:
    t = unicodedata.normalize("NFKC", (text or "").strip())
    for rx, order in _DATE_PATTERNS:
        m = rx.match(t)
        if m:
            parts = dict(zip(order, (int(x) for x in m.groups())))
            try:
                return date(parts["y"], parts["m"], parts["d"])
            except ValueError:
                return None
    return None


# ------------------------------------------------------------------------------------------
# Adjusted scores

_ADJ_WORDS = {"AVE+": 60, "AV+": 60, "A+": 60, "AVEPLUS": 60, "AVE": 50, "AV": 50, "A=": 50, "A": 50,
              "AVE=": 50, "AVE-": 40, "AV-": 40, "A-": 40, "AVEMINUS": 40}


def parse_adjusted(text: pd.Series) -> pd.DataFrame:
    """Artificial adjusted score marks -> ``adj_ns_pct``, ``adj_ew_pct`` (nullable ints) and
    ``adjusted`` (the canonical mark ``A60/40``; "" when not adjusted) and ``adj_ok``.

    Accepted (case-insensitive, blanks ignored): ``AVE+``/``A+`` (60), ``AVE``/``A=`` (50),
    ``AVE-``/``A-`` (40), ``A60``, ``60%``; two values for NS and EW: ``A60/40``, ``A60-40``,
    ``60%-40%``, ``A6040`` (EBU scorers: NS 60, EW 40), ``AVE+/AVE-``, ``A+A-``. A single value is North-South's; East-West then get the
    complement (100 - NS). Percentages must be integers 0..100."""
    t = text.astype("string").fillna("").str.upper().str.replace(r"\s", "", regex=True)
    t = t.str.replace("%", "", regex=False)
    present = t != ""
    one = r"(AVE\+|AVE-|AVE=|AVE|AV\+|AV-|AV|A\+|A-|A=|A?\d{1,3})"
    # EBU scorers write both sides as four digits: A6040 = NS 60 %, EW 40 %
    t = t.str.replace(r"^A(\d{2})(\d{2})$", r"A\1/\2", regex=True)
    m = t.str.extract(rf"^{one}(?:[/\-]?{one})?$")
    # ``A`` alone could be average; a bare number without "A" or "%" is not an adjusted mark unless
    # the caller already knows this cell holds marks.

    def val(col: pd.Series) -> pd.Series:
        c = col.fillna("")
        word = c.map(_ADJ_WORDS)
        num = pd.to_numeric(c.str.replace("A", "", regex=False).where(c.str.fullmatch(r"A?\d{1,3}")), errors="coerce")
        return word.fillna(num).astype("Float64")

    ns = val(m[0])
    ew = val(m[1])
    ew = ew.fillna(100 - ns)
    ok = ~present | (ns.notna() & ns.between(0, 100) & ew.between(0, 100))
    ns = ns.where(present & ok)
    ew = ew.where(present & ok)
    canon = ("A" + ns.astype("Int64").astype("string") + "/" + ew.astype("Int64").astype("string")).fillna("")
    return pd.DataFrame({
        "adj_ns_pct": ns.astype("Int64"), "adj_ew_pct": ew.astype("Int64"),
        "adjusted": canon.astype("str"), "adj_ok": ok.fillna(False).astype(bool), "adj_present": present.astype(bool),
    }, index=text.index)


def looks_adjusted(text: pd.Series) -> pd.Series:
    """True where a contract or score cell holds an adjusted mark (``AVE+``, ``A60``, ``60%``,
    ``A60/40``, ``60%-40%``) rather than a contract or a number."""
    t = text.astype("string").fillna("").str.upper().str.replace(r"\s", "", regex=True)
    return t.str.contains(r"^(?:AVE|AV|A[+\-=]|A\d|\d{1,3}%)", regex=True).fillna(False)


# ------------------------------------------------------------------------------------------
# Pair numbers

def split_pair_number(text: pd.Series) -> pd.DataFrame:
    """USEBIO-style pair numbers: ``1``, ``1 NS``, ``(A) 1 EW``, ``A1`` -> ``pair`` ("1"),
    ``direction`` ("NS"/"EW"/"") and ``section`` ("A"/"")."""
    t = text.astype("string").fillna("").str.strip().str.upper()
    m = t.str.extract(r"^(?:\((?P<sec>[A-Z0-9]{1,3})\)\s*)?(?P<pair>[A-Z]?\d+|[A-Z0-9]+)\s*(?P<dir>NS|EW|N-S|E-W|N/S|E/W)?$")
    direction = m["dir"].fillna("").str.replace(r"[-/]", "", regex=True)
    pair = m["pair"].fillna(t)
    pair = pair.str.replace(r"^0+(?=\d)", "", regex=True)
    return pd.DataFrame({"pair": pair.astype("str"), "direction": direction.astype("str"),
                         "section": m["sec"].fillna("").astype("str")}, index=text.index)


# ------------------------------------------------------------------------------------------
# The common finalisation


def _norm_seat(s: pd.Series) -> pd.Series:
    t = s.astype("string").fillna("").str.strip().str.upper()
    t = t.replace({"NORTH": "N", "EAST": "E", "SOUTH": "S", "WEST": "W"})
    return t.astype("str")


def _score_number(s: pd.Series) -> tuple[pd.Series, pd.Series]:
    """Stated NS score cell -> (nullable Int64, reason). ``NS 420``, ``EW 420`` (= NS -420),
    ``420``, ``-50``; ``-``/``?``/"" -> <NA> (no stated score). Anything else, or a number beyond
    the largest bridge score, gives a reason ("" when fine)."""
    raw = nfkc(s).str.strip()
    t = raw.str.upper().str.replace('"', "", regex=False)
    t = t.str.replace("−", "-", regex=False).str.replace("+", "", regex=False)
    ew = t.str.startswith("EW")
    t = t.str.replace(r"^(NS|EW)\s*", "", regex=True)
    digits = t.str.fullmatch(r"-?\d+").fillna(False)
    huge = digits & (t.str.lstrip("-").str.lstrip("0").str.len() > 6)  # more digits than any score: not parsed
    num = pd.to_numeric(t.where(digits & ~huge), errors="coerce").astype("Int64")
    num = num.where(~ew, -num)
    absent = t.isin(["", "-", "?"])
    reason = pd.Series("", index=s.index, dtype="object")
    not_number = ~absent & ~digits
    if not_number.any():  # (the texts only when a row needs one)
        reason = reason.mask(not_number, "stated score '" + clip_series(raw) + "' is not a number: expected e.g. 420, -50, NS 420 or EW 420")
    too_big = huge | (digits & (num.abs() > MAX_SCORE).fillna(False))
    if too_big.any():
        reason = reason.mask(too_big, "stated score '" + clip_series(raw) + f"' is not a possible bridge score (scores lie between -{MAX_SCORE} and {MAX_SCORE})")
    return num.where(~too_big), reason


_TEXT_CELLS = {  # cell -> (limit, what a secretary calls it)
    "board": (MAX_CELL, "board number"), "session": (MAX_CELL, "session number"), "round": (MAX_CELL, "round number"),
    "section": (MAX_NAME, "section"), "ns_pair": (MAX_CELL, "North-South pair number"),
    "ew_pair": (MAX_CELL, "East-West pair number"), "contract_raw": (MAX_CELL, "contract"),
    "declarer_raw": (MAX_CELL, "declarer"), "result_raw": (MAX_CELL, "result"), "score_raw": (MAX_CELL, "score"),
    "adjusted_raw": (MAX_CELL, "adjusted score"), "vulnerable_raw": (MAX_CELL, "vulnerability"),
    "dealer_raw": (MAX_CELL, "dealer"),
}


def _whole_number(text: pd.Series, low: int, high: int, what: str, blank_ok: bool) -> tuple[pd.Series, pd.Series]:
    """A cell holding a whole number in low..high -> (Int64, reason "" when fine)."""
    t = text.astype("string").fillna("").str.strip()
    digits = t.str.fullmatch(r"\d{1,18}").fillna(False)
    num = pd.to_numeric(t.where(digits), errors="coerce").astype("Int64")
    ok = digits & num.between(low, high).fillna(False)
    reason = pd.Series("", index=text.index, dtype="object")
    bad = ~ok & ~((t == "") & blank_ok)
    if bad.any():  # (the texts only when a row needs one)
        reason = reason.mask(bad, what + " '" + clip_series(t) + f"' is not a whole number from {low} to {high}")
    return num.where(ok), reason


def _some_locations(s: pd.Series, shown: int = 5) -> str:
    """Up to ``shown`` locations of a group, then how many more (a reason stays short and the
    work linear, however many lines repeat)."""
    more = len(s) - shown
    return "; ".join(s.iloc[:shown]) + (f" and {more} more line(s)" if more > 0 else "")


def finalise(
    raw: pd.DataFrame,
    source_file: str,
    entrants: pd.DataFrame | None,
    pair_numbering: str = "by_direction",
    teams: bool = False,
    stated_score_authority: bool = False,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Normalise, score and check raw traveller rows. Returns (traveller_lines, quarantine).

    ``stated_score_authority`` (files a scoring program wrote, USEBIO): a stated score that
    disagrees with Law 77 is the score the scorer matchpointed, so it is the line's ``score_ns``
    and the Law 77 score of the contract as recorded is kept in ``law77_score_ns`` (shown on the
    notice board). Otherwise (a traveller typed by hand: CSV, PBN) such a line is quarantined."""
    if raw.empty:
        return empty_frames()["traveller_lines"], empty_quarantine()
    df = raw.copy().reset_index(drop=True)
    for c in ("contract_raw", "declarer_raw", "result_raw", "score_raw", "adjusted_raw", "vulnerable_raw",
              "dealer_raw", "round", "section"):
        if c not in df:
            df[c] = ""
    df = df.fillna({"section": "", "round": ""})
    reason = pd.Series("", index=df.index, dtype="object")

    def put(mask, text):
        """The reason `text` for the rows of `mask` that have none yet. `text` may be a function
        giving it: the reason is then built only when a row needs it (a clean file, the usual
        case, builds none of the per-row texts)."""
        nonlocal reason
        m = pd.Series(mask, index=df.index).fillna(False).astype(bool) & (reason == "")
        if not m.any():
            return
        text = text() if callable(text) else text
        reason = reason.mask(m, text if isinstance(text, str) else pd.Series(text, index=df.index))

    # Full-width digits and letters are read as ASCII wherever a number or code is expected (NFKC),
    # and no cell may be longer than a bridge value can be.
    for c, (limit, what) in _TEXT_CELLS.items():
        df[c] = nfkc(df[c])
        n = df[c].str.len()
        put(n > limit, lambda: what + " '" + clip_series(df[c]) + "' is " + n.astype("string") + f" characters long: at most {limit} expected")

    # Board, session and round numbers
    board, why = _whole_number(df["board"], 1, MAX_BOARD, "board number", blank_ok=False)
    put(why != "", why)
    df["board"] = board.fillna(0).astype("int64")
    session, why = _whole_number(df["session"], 1, MAX_SESSION, "session number", blank_ok=True)
    put(why != "", why)
    df["session"] = session.fillna(1).astype("int64")
    rnd, why = _whole_number(df["round"], 0, MAX_ROUND, "round number", blank_ok=True)
    put(why != "", why)
    df["round"] = rnd.astype("Int64")

    # Adjusted scores may sit in their own cell, in the contract cell or in the score cell.
    adj_src = df["adjusted_raw"].astype("string").fillna("")
    adj_src = adj_src.mask((adj_src == "") & looks_adjusted(df["contract_raw"]), df["contract_raw"].astype("string"))
    adj_src = adj_src.mask((adj_src == "") & looks_adjusted(df["score_raw"]), df["score_raw"].astype("string"))
    adj = parse_adjusted(adj_src)
    df["is_adjusted"] = adj["adj_present"]
    put(adj["adj_present"] & ~adj["adj_ok"], lambda: "adjusted score '" + adj_src + "' is not understood: expected AVE+, AVE, AVE-, A60, A60/40 or 60%-40%")
    df = pd.concat([df, adj[["adj_ns_pct", "adj_ew_pct", "adjusted"]]], axis=1)

    # Contract, declarer, tricks
    pc = parse_contracts(df["contract_raw"].where(~df["is_adjusted"], "PASS"))
    df["contract_ok"] = pc["contract_ok"]
    df["level"] = pc["level"]
    df["strain"] = pc["strain"]
    df["doubled"] = pc["doubled"]
    df["contract"] = pc["contract"].where(~df["is_adjusted"], "")
    df["declarer"] = _norm_seat(df["declarer_raw"]).where(df["level"] > 0, "")
    df["tricks"] = parse_tricks(df["result_raw"], df["level"]).where(df["level"] > 0)
    reasons = validate_contracts(df)
    put(reasons != "", reasons)

    # Vulnerability and dealer: from the file, else from the standard rotation
    rot = board_rotation(df["board"].clip(lower=1))
    vul = normalise_vulnerability(df["vulnerable_raw"])
    given = df["vulnerable_raw"].astype("string").fillna("").str.strip() != ""
    put(given & vul.isna(), lambda: "vulnerability '" + df["vulnerable_raw"].astype("string").fillna("") + "' is not None, NS, EW or All")
    df["vulnerable"] = vul.fillna(pd.Series(rot["vulnerable"].to_numpy(), index=df.index)).astype("str")
    dealer = _norm_seat(df["dealer_raw"])
    df["dealer"] = dealer.where(dealer.isin(["N", "E", "S", "W"]), pd.Series(rot["dealer"].to_numpy(), index=df.index)).astype("str")

    # Law 77 score, and the stated score check
    scorable = (reason == "") & ~df["is_adjusted"]
    s = score_ns(
        df["level"].where(scorable, 0), df["strain"].where(scorable, ""), df["doubled"].where(scorable, 0),
        df["declarer"].where(scorable, ""), df["vulnerable"], df["tricks"].fillna(0).astype("int64").where(scorable, 0),
    )
    df["score_ns"] = pd.Series(s, index=df.index, dtype="Int64").where(scorable)
    stated, why = _score_number(df["score_raw"].where(~looks_adjusted(df["score_raw"]), ""))
    put(why != "", why)
    scorable = scorable & (why == "")
    df["stated_score_ns"] = stated
    disagree = scorable & stated.notna() & (stated != df["score_ns"]).fillna(False)
    df["law77_score_ns"] = df["score_ns"].where(disagree).astype("Int64")
    if stated_score_authority:
        df["score_ns"] = df["score_ns"].mask(disagree, stated)
        disagree = disagree & False
    tricks_txt = df["tricks"].astype("string").fillna("?")
    put(disagree, lambda: (
        "stated score " + stated.astype("string").fillna("") + " for NS disagrees with Law 77: "
        + df["contract"] + " by " + df["declarer"] + ", " + tricks_txt + " tricks, board vulnerability "
        + df["vulnerable"] + " scores " + df["score_ns"].astype("string").fillna("") + " for NS"
    ))

    # Pair numbers
    ns_p = split_pair_number(df["ns_pair"])
    ew_p = split_pair_number(df["ew_pair"])
    df["ns_pair"] = ns_p["pair"]
    df["ew_pair"] = ew_p["pair"]
    df["section"] = df["section"].astype("string").fillna("").mask(df["section"].astype("string").fillna("") == "", ns_p["section"]).astype("str")
    put(df["ns_pair"] == "", "North-South pair number is missing")
    put(df["ew_pair"] == "", "East-West pair number is missing")
    if pair_numbering == "unique" or teams:
        put(df["ns_pair"] == df["ew_pair"], lambda: "pair " + df["ns_pair"] + " is recorded as playing against itself (NS and EW)")
    if entrants is not None and not entrants.empty:
        known = entrants.assign(direction=entrants["direction"].fillna(""))
        for side, col in (("NS", "ns_pair"), ("EW", "ew_pair")):
            ok_keys = known[known["direction"].isin([side, ""])][["event_id", "section", "entrant"]].drop_duplicates()
            ok_keys = ok_keys.assign(_known=True)
            probe = df[["event_id", "section", col]].rename(columns={col: "entrant"})
            hit = probe.merge(ok_keys, on=["event_id", "section", "entrant"], how="left")["_known"]
            # Entrant lists without sections match any section
            if not hit.notna().all():
                anysec = ok_keys.drop(columns="section").drop_duplicates()
                hit2 = probe.merge(anysec, on=["event_id", "entrant"], how="left")["_known"]
                hit = hit.fillna(hit2)
            unknown = hit.isna().to_numpy()
            put(unknown, lambda: ("unknown " + ("North-South" if side == "NS" else "East-West") + " pair number "
                          + df[col] + ": it is not in the file's list of " + ("teams" if teams else "pairs")))

    # A pair playing a board twice
    key = ["event_id", "session", "section", "board"] + (["round"] if teams else [])
    kd = df[key].astype("string").fillna("")
    for col, side in (("ns_pair", "North-South"), ("ew_pair", "East-West")):
        keyed = df[[col, "location"]].assign(**{c: kd[c] for c in key})
        dup = keyed.duplicated(key + [col], keep=False) & (df[col] != "")
        if dup.any():
            d = keyed[dup]
            where = d.groupby(key + [col])["location"].transform(_some_locations)
            put(dup, pd.Series(side + " pair " + d[col] + " has more than one result on board "
                               + d["board"] + " (" + where + "): a pair plays each board once, so the traveller"
                               " must be corrected", index=d.index).reindex(df.index))
    if pair_numbering == "unique" and not teams:
        both = pd.concat([
            df[key + ["ns_pair"]].rename(columns={"ns_pair": "pair"}).assign(_i=df.index),
            df[key + ["ew_pair"]].rename(columns={"ew_pair": "pair"}).assign(_i=df.index),
        ])
        both[key] = both[key].astype("string").fillna("")
        d = both[both.duplicated(key + ["pair"], keep=False)]
        rows = np.unique(d["_i"].to_numpy())
        mask = pd.Series(False, index=df.index)
        mask.iloc[rows] = True
        put(mask, lambda: "a pair has two results on board " + df["board"].astype("string") + " (it appears in more than one traveller line): a pair plays each board once")

    # The deal (PBN [Deal "N:AKQ.xx... ..."]) and par (PBN [OptimumScore "NS 620"]) of the board, shown
    # on the notice board: kept when well formed (four hands of 13 cards, 52 different cards; a par of
    # NS/EW and a score), else left out (they are shown, never scored)
    df["deal"] = normalise_deals(df["deal_raw"] if "deal_raw" in df else pd.Series("", index=df.index))
    par = (df["par_raw"] if "par_raw" in df else pd.Series("", index=df.index)).astype("string").fillna("").str.strip().str.upper()
    df["par"] = par.where(par.str.fullmatch(r"(NS|EW) -?\d{1,4}"), "").astype("str")
    df["source_file"] = source_file
    bad = reason != ""
    q = quarantine_frame(source_file, df.loc[bad, "location"].tolist(), reason[bad].tolist())
    good = df.loc[~bad, TRAVELLER_COLUMNS].reset_index(drop=True)
    good["tricks"] = good["tricks"].astype("Int64")
    good["level"] = good["level"].astype("int64")
    good["doubled"] = good["doubled"].astype("int64")
    return good, q


_RANKS = "AKQJT98765432"


def normalise_deals(text: pd.Series) -> pd.Series:
    """PBN deals ``F:h1 h2 h3 h4`` (hands clockwise from seat F, each ``S.H.D.C`` with ranks
    AKQJT98765432, ``10`` as ``T``) -> ``N:`` followed by North, East, South, West; "" when the text
    is not a complete deal (each hand 13 cards, all 52 cards once). Distinct values are checked
    once (a board's deal repeats on every line)."""
    t = text.astype("string").fillna("").str.strip().str.upper().str.replace("10", "T", regex=False)
    out = {}
    for deal in t.unique():
        out[deal] = _one_deal(deal)
    return t.map(out).astype("str")


def _one_deal(deal: str) -> str:
    m = re.fullmatch(r"([NESW]):(\S+) (\S+) (\S+) (\S+)", deal or "")
    if not m:
        return ""
    hands = list(m.groups()[1:])
    seen = set()
    for h in hands:
        suits = h.split(".")
        if len(suits) != 4 or sum(len(s) for s in suits) != 13:
            return ""
        for suit, cards in zip("SHDC", suits):
            if any(c not in _RANKS for c in cards):
                return ""
            seen.update(suit + c for c in cards)
    if len(seen) != 52:
        return ""
    start = "NESW".index(m.group(1))
    by_seat = {"NESW"[(start + i) % 4]: hands[i] for i in range(4)}
    return "N:" + " ".join(by_seat[s] for s in "NESW")


def entrants_frame(rows: list[dict], per_session: bool = False) -> pd.DataFrame:
    """The entrant list, first mention of a pair wins. ``per_session`` (CSV): the rows carry a
    ``session`` and the list is kept per session, so a file holding several sessions may number
    different players with the same pair number in each session."""
    if not rows:
        return empty_frames()["entrants"]
    e = pd.DataFrame(rows)
    for c in ENTRANT_COLUMNS:
        if c not in e:
            e[c] = ""
    extra = ["session"] if per_session else []
    e = e[ENTRANT_COLUMNS + extra].fillna("")
    return e.drop_duplicates(["event_id", *extra, "section", "direction", "entrant"]).reset_index(drop=True)


def events_frame(rows: list[dict]) -> pd.DataFrame:
    e = pd.DataFrame(rows)
    for c in EVENT_COLUMNS:
        if c not in e:
            e[c] = None
    return e[EVENT_COLUMNS].drop_duplicates("event_id").reset_index(drop=True)
