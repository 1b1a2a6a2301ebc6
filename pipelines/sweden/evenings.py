"""Two consecutive short competitions with the same pairs counted as one (seed p. 6: "Om färre än
18 brickor spelas, må två på varandra följande tävlingar med samma par räknas som en tävling och
bronspoäng utdelas enligt tabell A1 eller A2").

Input (docs/sweden.md, "Two short evenings as one"): one event file with
``kvällar: 2024-10-01 12, 2024-10-08 12`` and one combined result list whose columns ``kväll1`` and
``kväll2`` hold each pair's score on each evening. parse.py checks the event file (two evenings,
in order, each < 18 boards, together >= 18, bronze pairs); this module checks what needs the rule
data and the result list: the evenings are consecutive (at most ``double_evening_max_days`` apart,
parameters.csv), every pair of the list played both evenings (the same pairs), and the list's places
follow the two evenings' scores together: a pair placed above another may not have scored less on
the two evenings than it, both as the scores' sum and as their sum weighted by each evening's boards
(the combined percentage); the two agree when the evenings had the same boards, and a club may rank
by either. Shared places and places of equal totals are the club's (its program breaks ties). The
combined list is then scored as one bronze competition (Tabell A1 / A2) of its pairs and the
evenings' boards.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from pipelines.sweden.rules import SwedenRules

_NONE = {"", "-", "–", "—"}


def check_evenings(rules: SwedenRules, ev: dict, st: pd.DataFrame, event_file: str) -> list[tuple[str, str]]:
    """(location in the result list, reason) for each problem; empty when the two evenings may count as one."""
    if not ev.get("evenings"):
        return []
    (d1, b1), (d2, b2) = ev["evenings"]
    out: list[tuple[str, str]] = []
    most = int(rules.param("double_evening_max_days"))
    if (d2 - d1).days > most:
        out.append(("whole file", f"{event_file} {ev.get('evenings_where', 'kvällar')}: kvällar: two competitions count as one "
                                  f"only when they follow each other; expected the evenings at most {most} days apart, found "
                                  f"{d1} and {d2} ({(d2 - d1).days} days); if no club evening lay between them, ask the office"))
    missing = [c for c in ("evening1", "evening2") if c not in st.columns]
    if missing:
        out.append(("whole file", "a result list of two evenings counted as one needs the columns kväll1 and kväll2 (each pair's "
                                  f"score on {d1} and on {d2}), so that the same pairs can be checked; found no "
                                  f"{' and no '.join(m.replace('evening', 'kväll') for m in missing)}"))
        return out
    scores = []
    for i, (d, col) in enumerate(((d1, "evening1"), (d2, "evening2")), start=1):
        text = st[col].fillna("").astype(str).str.strip()
        absent = text.isin(_NONE)
        for r in st[absent].itertuples() if absent.any() else ():
            out.append((r.location, f"kväll{i}: pair {r.entrant} has no score on evening {i} ({d}); two short competitions "
                                    "count as one only with the same pairs (seed p. 6). A pair that played one evening only "
                                    "cannot be combined: correct the line, or the evenings are two competitions of fewer "
                                    "than 18 boards (no bronze)"))
        # a score in percent or match points, with a decimal comma or point ("55,2", "55.2 %", "312")
        value = pd.to_numeric(text.str.rstrip("%").str.strip().str.replace(",", ".", regex=False), errors="coerce")
        wrong = value.isna() & ~absent
        for r, found in zip(st[wrong].itertuples(), text[wrong]) if wrong.any() else ():
            out.append((r.location, f"kväll{i}: expected pair {r.entrant}'s score on evening {i} ({d}) as a number (percent "
                                    f"or match points, e.g. 55,2), found {found!r}"))
        scores.append(value)
    return out or _order(st, scores, (b1, b2))


def _order(st: pd.DataFrame, scores: list[pd.Series], boards: tuple[int, int]) -> list[tuple[str, str]]:
    """A pair placed below one that scored less on the two evenings, by the sum and by the weighted sum."""
    # in thousandths as integers: exact for scores of up to three decimals
    e1, e2 = ((s.to_numpy(dtype=float) * 1000).round().astype(np.int64) for s in scores)
    plain, weighted = e1 + e2, e1 * boards[0] + e2 * boards[1]
    place = st["place"].to_numpy(dtype=np.int64)
    # below[i, j]: pair j is placed below pair i and scored more both ways
    below = (place[:, None] < place[None, :]) & (plain[None, :] > plain[:, None]) & (weighted[None, :] > weighted[:, None])
    out = []
    for j in np.flatnonzero(below.any(axis=0)):
        above = np.flatnonzero(below[:, j])
        i = above[np.argmax(place[above])]  # the nearest pair above it that scored less
        out.append((st["location"].iloc[j],
                    f"kväll1 + kväll2: pair {st['entrant'].iloc[j]} is placed {st['place'].iloc[j]} with "
                    f"{_score(e1[j])} + {_score(e2[j])} = {_score(plain[j])}, below pair {st['entrant'].iloc[i]} (place "
                    f"{st['place'].iloc[i]}) with {_score(e1[i])} + {_score(e2[i])} = {_score(plain[i])}; two evenings counted "
                    "as one are ranked by their scores together: correct the places or the scores"))
    return out


def _score(thousandths: int) -> str:
    whole, rest = divmod(abs(int(thousandths)), 1000)
    sign = "-" if thousandths < 0 else ""
    return f"{sign}{whole}" if rest == 0 else f"{sign}{whole}.{rest:03d}".rstrip("0")
