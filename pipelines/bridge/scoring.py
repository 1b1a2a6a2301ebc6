"""Law 77 contract scores, vectorised.

Every function here works on whole columns (numpy arrays or pandas Series) with integer
arithmetic; there is no per-row Python on the scoring path.

Conventions used throughout the bridge stage:

- ``level``: 0 for a passed-out board, else 1..7.
- ``strain``: ``C``, ``D``, ``H``, ``S`` or ``N`` (no trumps); ``""`` when passed out.
- ``doubled``: 0 undoubled, 1 doubled, 2 redoubled.
- ``declarer``: ``N``, ``E``, ``S``, ``W``; ``""`` when passed out.
- ``tricks``: the number of tricks declarer's side took (0..13), a count, never relative.
- ``vulnerable``: the board's vulnerability ``None``, ``NS``, ``EW`` or ``All``.
- scores are from North-South's point of view (``score_ns``) unless the name says
  ``declarer``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

STRAINS = ("C", "D", "H", "S", "N")
SEATS = ("N", "E", "S", "W")
VULNERABILITIES = ("None", "NS", "EW", "All")

_SUIT_SYMBOLS = str.maketrans({"♣": "C", "♦": "D", "♥": "H", "♠": "S", "♧": "C", "♢": "D", "♡": "H", "♤": "S"})

# After upper-casing, translating suit symbols and removing blanks:
#   4S  4SX  4SXX  3NT  3N  3NTXX  4S*  4S**  4SR   (R = redoubled, as some writers print it)
_CONTRACT_RE = r"^(?P<level>[1-7])(?P<strain>NT|N|S|H|D|C)(?P<dbl>XX|X|\*\*|\*|R)?$"
_PASS_WORDS = {"PASS", "P", "PASSED", "PASSEDOUT", "ALLPASS", "AP", "PO", "0"}

_VUL_ALIASES = {
    "NONE": "None", "LOVE": "None", "-": "None", "O": "None", "0": "None", "NEITHER": "None",
    "NS": "NS", "N-S": "NS", "N/S": "NS",
    "EW": "EW", "E-W": "EW", "E/W": "EW",
    "ALL": "All", "BOTH": "All", "B": "All",
}


def parse_contracts(contract: pd.Series) -> pd.DataFrame:
    """Parse contract strings into ``level``, ``strain``, ``doubled`` and a canonical ``contract``.

    Accepts ``4S``, ``4 S``, ``4SX``, ``3NT``, ``3 NT XX``, ``4♠x``, ``PASS``/``P``/``AP``.
    Returns a frame with columns ``contract`` (canonical: ``4S``, ``4SX``, ``3NTXX``, ``PASS``),
    ``level`` (int), ``strain`` (str), ``doubled`` (int) and ``contract_ok`` (bool; False means
    the text is not a contract at all). Rows that are not contracts get level -1.
    """
    raw = contract.astype("string").fillna("")
    norm = (
        raw.str.upper()
        .str.translate(_SUIT_SYMBOLS)
        .str.replace(r"[\s\-_.]", "", regex=True)
    )
    is_pass = norm.isin(_PASS_WORDS)
    m = norm.str.extract(_CONTRACT_RE)
    ok = m["level"].notna() | is_pass
    level = pd.to_numeric(m["level"], errors="coerce").fillna(-1).astype("int64")
    level = level.where(~is_pass, 0)
    strain = m["strain"].fillna("").replace({"NT": "N"})
    strain = strain.where(~is_pass, "")
    dbl = m["dbl"].fillna("")
    doubled = np.select([dbl.isin(["XX", "**", "R"]).to_numpy(), dbl.isin(["X", "*"]).to_numpy()], [2, 1], 0)
    doubled = pd.Series(doubled, index=contract.index, dtype="int64").where(~is_pass, 0)
    strain_txt = strain.replace({"N": "NT"})
    canon = (
        level.astype("string") + strain_txt.astype("string")
        + pd.Series(np.select([doubled == 2, doubled == 1], ["XX", "X"], ""), index=contract.index, dtype="string")
    )
    canon = canon.where(~is_pass, "PASS").where(ok, raw)
    return pd.DataFrame(
        {
            "contract": canon.astype("str"),
            "level": level,
            "strain": strain.astype("str"),
            "doubled": doubled,
            "contract_ok": ok.astype(bool),
        },
        index=contract.index,
    )


def parse_tricks(result: pd.Series, level: pd.Series) -> pd.Series:
    """Tricks taken by declarer's side from a result cell.

    ``10`` (a count), ``=`` (made exactly), ``+2`` / ``-1`` (relative to the contract), ``M``/``MADE``
    (made exactly). A relative result needs the contract ``level``. Returns a nullable Int64 Series;
    unparseable text gives <NA> (the caller quarantines it).
    """
    txt = result.astype("string").fillna("").str.strip().str.upper().str.replace(" ", "", regex=False)
    txt = txt.str.replace("−", "-", regex=False).str.replace("－", "-", regex=False)
    lev = pd.to_numeric(level, errors="coerce").astype("Int64")
    out = pd.Series(pd.NA, index=result.index, dtype="Int64")
    count = txt.str.fullmatch(r"\d{1,2}")
    out = out.mask(count.fillna(False), pd.to_numeric(txt.where(count, None), errors="coerce").astype("Int64"))
    exact = txt.isin(["=", "M", "MADE", "+0", "-0", "0="])
    out = out.mask(exact.fillna(False), lev + 6)
    rel = txt.str.fullmatch(r"[+-]\d{1,2}")
    relv = pd.to_numeric(txt.where(rel, None), errors="coerce").astype("Int64")
    out = out.mask(rel.fillna(False) & ~exact.fillna(False), lev + 6 + relv)
    return out


def normalise_vulnerability(vul: pd.Series) -> pd.Series:
    """Map the spellings real files use (``None``, ``Love``, ``-``, ``Both``, ``All``, ``N-S`` ...) to
    ``None``/``NS``/``EW``/``All``; anything else gives <NA>."""
    key = vul.astype("string").str.strip().str.upper()
    return key.map(_VUL_ALIASES).astype("string")


def declarer_vulnerable(declarer: pd.Series | np.ndarray, vulnerable: pd.Series | np.ndarray) -> np.ndarray:
    """True where the declaring side is vulnerable."""
    d = np.asarray(declarer, dtype=object)
    v = np.asarray(vulnerable, dtype=object)
    ns = np.isin(d, ["N", "S"])
    ew = np.isin(d, ["E", "W"])
    return (v == "All") | ((v == "NS") & ns) | ((v == "EW") & ew)


def contract_score(level, strain, doubled, vulnerable, tricks) -> np.ndarray:
    """Law 77 score for the declaring side (positive when the contract makes).

    All arguments are array-likes of equal length: ``level`` 0..7 (0 = passed out, scores 0),
    ``strain`` C/D/H/S/N, ``doubled`` 0/1/2, ``vulnerable`` a boolean (declarer vulnerable),
    ``tricks`` 0..13. Returns int64. Inputs must already be valid (see ``validate_contracts``).
    """
    level = np.asarray(level, dtype=np.int64)
    strain = np.asarray(strain, dtype=object)
    dbl = np.asarray(doubled, dtype=np.int64)
    vul = np.asarray(vulnerable, dtype=bool)
    tricks = np.asarray(tricks, dtype=np.int64)

    minor = np.isin(strain, ["C", "D"])
    nt = strain == "N"
    per_trick = np.where(minor, 20, 30)
    need = level + 6
    made = tricks >= need
    over = np.maximum(tricks - need, 0)
    under = np.maximum(need - tricks, 0)
    mult = np.where(dbl == 2, 4, np.where(dbl == 1, 2, 1))

    # Made contracts (Law 77: contract points, game/part-score, slam, insult, overtricks)
    trick_pts = (level * per_trick + np.where(nt, 10, 0)) * mult
    game = np.where(trick_pts >= 100, np.where(vul, 500, 300), 50)
    slam = np.where(level == 6, np.where(vul, 750, 500), np.where(level == 7, np.where(vul, 1500, 1000), 0))
    insult = np.where(dbl == 2, 100, np.where(dbl == 1, 50, 0))
    over_pts = np.where(dbl == 0, over * per_trick, over * np.where(vul, 200, 100) * dbl)
    made_score = trick_pts + game + slam + insult + over_pts

    # Defeated contracts
    undoubled = under * np.where(vul, 100, 50)
    dbl_nv = np.where(
        under >= 1,
        100 + 200 * (np.minimum(under, 3) - 1).clip(min=0) + 300 * np.maximum(under - 3, 0),
        0,
    )
    dbl_v = np.where(under >= 1, 200 + 300 * (under - 1), 0)
    doubled_pen = np.where(vul, dbl_v, dbl_nv)
    penalty = np.where(dbl == 0, undoubled, doubled_pen * np.where(dbl == 2, 2, 1))

    score = np.where(made, made_score, -penalty)
    return np.where(level == 0, 0, score).astype(np.int64)


def score_ns(level, strain, doubled, declarer, vulnerable, tricks) -> np.ndarray:
    """North-South score of each line: the declarer's Law 77 score, negated when East/West declared.
    ``vulnerable`` is the board's vulnerability (None/NS/EW/All)."""
    decl = np.asarray(declarer, dtype=object)
    vul = declarer_vulnerable(decl, vulnerable)
    s = contract_score(level, strain, doubled, vul, tricks)
    return np.where(np.isin(decl, ["E", "W"]), -s, s).astype(np.int64)


def board_rotation(board: pd.Series | np.ndarray, rotation: pd.DataFrame | None = None) -> pd.DataFrame:
    """Dealer and vulnerability of each board number from the standard 16-board rotation
    (``data/rules/bridge/board_rotation.csv``)."""
    if rotation is None:
        from pipelines.bridge.rules import load_board_rotation

        rotation = load_board_rotation()
    b = np.asarray(board, dtype=np.int64)
    key = ((b - 1) % 16) + 1
    table = rotation.set_index("board_mod16")
    return pd.DataFrame(
        {
            "dealer": table["dealer"].reindex(key).to_numpy(),
            "vulnerable": table["vulnerable"].reindex(key).to_numpy(),
        }
    )


def validate_contracts(frame: pd.DataFrame) -> pd.Series:
    """Reason text per row ("" when fine) for lines whose contract, declarer or tricks are impossible.

    Expects columns ``contract_ok``, ``contract_raw``, ``level``, ``strain``, ``doubled``,
    ``declarer``, ``tricks`` (nullable Int64) and ``result_raw``; rows flagged ``is_adjusted`` are not
    checked (an artificial adjusted score has no contract).
    """
    idx = frame.index
    adj = frame.get("is_adjusted", pd.Series(False, index=idx)).fillna(False).astype(bool)
    reason = pd.Series("", index=idx, dtype="object")

    def put(mask: pd.Series, text) -> None:
        # `text`: a function giving the reason, built only when a row needs it
        nonlocal reason
        m = mask.fillna(False).astype(bool) & (reason == "") & ~adj
        if m.any():
            reason = reason.mask(m, text())

    raw_c = frame["contract_raw"].astype("string").fillna("")
    put(~frame["contract_ok"], lambda: "contract '" + raw_c + "' is not a contract: expected level 1-7, strain C/D/H/S/NT, optional X/XX, or PASS")
    passed = frame["level"] == 0
    decl = frame["declarer"].astype("string").fillna("")
    put(~passed & ~decl.isin(list(SEATS)), lambda: "contract " + raw_c + ": declarer '" + decl + "' is not N, E, S or W")
    tr = frame["tricks"]
    res_raw = frame["result_raw"].astype("string").fillna("")
    put(~passed & tr.isna(), lambda: "contract " + raw_c + ": result '" + res_raw + "' is not a trick count (0-13), '=', '+n' or '-n'")
    bad_range = ~passed & tr.notna() & ((tr < 0) | (tr > 13))
    put(bad_range, lambda: "contract " + raw_c + ": " + tr.astype("string").fillna("") + " tricks is impossible (0 to 13 tricks; result '" + res_raw + "')")
    return reason
