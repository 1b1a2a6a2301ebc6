"""Swedish result lists from travellers: PBN (as Ruter and Magic Contest export it), USEBIO or the
bridge CSV traveller format, scored by the bridge stage (pipelines/bridge) as the JCBL system does.

``<event>.pbn`` / ``<event>.xml`` / ``<event>.travellers.csv`` next to ``<event>.event.txt``
replaces the ``.standings.csv``. Matchpoint pairs, one session: each pair's place is the bridge
rank in its own group; a Mitchell ranked per direction (NS and EW) is two competitions, exactly as a
result list with a ``sektion`` column. Members are the traveller's member numbers (PBN
``MemberID1``/``MemberID2``, USEBIO ``NATIONAL_ID_NUMBER``, CSV ``ns_ids``/``ew_ids``); names are
never used as ids.
"""
from __future__ import annotations

from pathlib import PurePosixPath

import pandas as pd

TRAVELLER_SUFFIXES = (".travellers.csv", ".pbn", ".xml")


def traveller_suffix(source_file: str) -> str | None:
    name = PurePosixPath(source_file).name.lower()
    return next((s for s in TRAVELLER_SUFFIXES if name.endswith(s) and len(name) > len(s)), None)


def standings_from_travellers(source_file: str, data: bytes) -> tuple[pd.DataFrame | None, list]:
    from pipelines.bridge.parse_csv import parse_csv
    from pipelines.bridge.parse_pbn import parse_pbn
    from pipelines.bridge.parse_usebio import parse_usebio
    from pipelines.bridge.system import DEFAULT_OPTIONS, score_batch

    parser = {".pbn": parse_pbn, ".xml": parse_usebio, ".travellers.csv": parse_csv}[traveller_suffix(source_file)]
    try:
        frames, q = parser(source_file, data)
    except Exception as error:  # noqa: BLE001 - the bridge parsers never raise; this is a last line of defence
        return None, [(source_file, "whole file", f"the traveller file could not be read ({type(error).__name__}: {error})")]
    problems = [(source_file, str(r.location), str(r.reason)) for r in q.itertuples()] if len(q) else []
    if problems:
        return None, problems
    lines = frames["traveller_lines"]
    if len(lines) == 0:
        return None, [(source_file, "whole file", "the traveller file has no traveller lines")]
    scoring = str(frames["events"]["scoring"].iloc[0]) if len(frames["events"]) else "MP"
    if scoring != "MP":
        return None, [(source_file, "whole file", f"expected a matchpoint pairs session, found scoring {scoring}: send a "
                                                  "result list (plac;par;medlemmar) for other forms")]
    try:
        # the bridge stage's own defaults (one definition: a new bridge setting reaches these travellers too)
        scored, refused = score_batch(frames, {**DEFAULT_OPTIONS, "events": []})
    except Exception as error:  # noqa: BLE001
        return None, [(source_file, "whole file", f"the travellers could not be scored ({type(error).__name__}: {error})")]
    bad = [(source_file, str(r.location), str(r.reason)) for r in pd.concat([refused, scored["problems"]]).itertuples()] \
        if len(refused) or len(scored["problems"]) else []
    if bad:
        return None, bad
    ss = scored["session_standings"]
    if ss["session"].nunique() != 1:
        return None, [(source_file, "whole file", f"expected one session, found {ss['session'].nunique()}: send one "
                                                  "event file and one traveller file per session")]
    sec = ss["section"].fillna("").astype(str)
    direction = ss["direction"].fillna("").astype(str).map({"NS": "NS", "EW": "ÖV", "": ""})
    label = sec.where(sec == "", sec + "-") + ss["direction"].fillna("").astype(str) + ss["entrant"].astype(str)
    ids = ss["player_ids"].fillna("").astype(str).map(lambda t: [x.strip() for x in t.replace(",", ";").split(";") if x.strip()])
    out = []
    for lab, members, pname in zip(label, ids, ss["player_names"]):
        if len(members) != 2 or not all(m.isdigit() for m in members):
            out.append((source_file, f"pair {lab}", f"expected the member numbers of both players (PBN MemberID1/MemberID2, "
                                                    f"USEBIO NATIONAL_ID_NUMBER, CSV ns_ids/ew_ids), found {';'.join(members) or 'none'} "
                                                    f"(names: {pname or 'none'}): points are credited to member numbers"))
    if out:
        return None, out
    section = (sec.where(sec == "", sec + " ") + direction).str.strip()
    st = pd.DataFrame({
        "location": ("pair " + label).to_numpy(), "line": range(1, len(ss) + 1),
        "place": ss["rank"].astype(int).to_numpy(), "tied": ss["rank_label"].str.endswith("=").to_numpy(),
        "entrant": label.to_numpy(), "members": list(ids), "played": [None] * len(ss), "section": section.to_numpy(),
        "hcp_place": [None] * len(ss), "names": ss["player_names"].fillna("").to_numpy(),
    })
    return st.sort_values(["section", "place", "entrant"]).reset_index(drop=True), []
