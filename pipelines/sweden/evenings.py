"""Two consecutive short competitions with the same pairs counted as one (seed p. 6: "Om färre än
18 brickor spelas, må två på varandra följande tävlingar med samma par räknas som en tävling och
bronspoäng utdelas enligt tabell A1 eller A2").

Input (docs/sweden.md, "Two short evenings as one"): one event file with
``kvällar: 2024-10-01 12, 2024-10-08 12`` and one combined result list whose columns ``kväll1`` and
``kväll2`` hold each pair's score on each evening. parse.py checks the event file (two evenings,
in order, each < 18 boards, together >= 18, bronze pairs); this module checks what needs the rule
data and the result list: the evenings are consecutive (at most ``double_evening_max_days`` apart,
parameters.csv) and every pair of the list played both evenings (the same pairs). The combined list
is then scored as one bronze competition (Tabell A1 / A2) of its pairs and the evenings' boards.
"""
from __future__ import annotations

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
    for i, (d, col) in enumerate(((d1, "evening1"), (d2, "evening2")), start=1):
        absent = st[col].fillna("").astype(str).str.strip().isin(_NONE)
        for r in st[absent].itertuples() if absent.any() else ():
            out.append((r.location, f"kväll{i}: pair {r.entrant} has no score on evening {i} ({d}); two short competitions "
                                    "count as one only with the same pairs (seed p. 6). A pair that played one evening only "
                                    "cannot be combined: correct the line, or the evenings are two competitions of fewer "
                                    "than 18 boards (no bronze)"))
    return out
