"""Correction pages (issue 15): one page per run and file whose lines a later version of the file
reversed (a corrected file, a withdrawn one, or a recomputation after a rule change), showing the
original lines, their reversal and the correction posted in their place, and per player the
balance before and after. With the list of corrections, `corrections/index.html`, linked from the
organisation's index.

The pages are the ledger's history by design, like the Atom feed: a fresh run on the final inbox
has no corrections, so the history-equals-fresh comparisons leave `corrections/` out. A posted
correction never changes (its run's lines are written once), so its page is written once, under a
permalink made of the run's date, the file and a digest of run and file; the list is rewritten
when it changes.
"""
from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from decimal import Decimal
from pathlib import Path

import pandas as pd

from pipelines.core.sql import fetch

FOLDER = "corrections"


def correction_lines(con, organisation: str) -> pd.DataFrame:
    """Every line of every correction: (run_id, as_of, source_file, recomputed, part, player_id,
    denomination, event_date, points, basis, posted_as_of), `part` one of original / reversal /
    correction. A correction is a run's reversal of lines of a file; its correction lines are the
    award lines that run posted for the same file."""
    return fetch(con, """
        with reversals as (
            select * from awards where organisation = ? and entry_type = 'reversal'
        ),
        corrections as (
            select distinct run_id, source_file from reversals
        ),
        originals as (
            select reversals.run_id, reversals.source_file, 'original' as part, original.player_id, original.denomination,
                   original.event_date, original.points, original.basis, original.run_id as posted_run
            from reversals
            inner join awards as original on original.award_id = reversals.reverses_award_id
        ),
        reversal_lines as (
            select run_id, source_file, 'reversal' as part, player_id, denomination, event_date, points, basis, run_id as posted_run
            from reversals
        ),
        new_lines as (
            select awards.run_id, awards.source_file, 'correction' as part, awards.player_id, awards.denomination,
                   awards.event_date, awards.points, awards.basis, awards.run_id as posted_run
            from awards
            inner join corrections using (run_id, source_file)
            where awards.organisation = ? and awards.entry_type = 'award'
        ),
        lines as (
            select * from originals union all select * from reversal_lines union all select * from new_lines
        )
        select
            lines.run_id,
            cast(runs.as_of as varchar) as as_of,
            lines.source_file,
            lines.run_id in (select run_id from recomputations) as recomputed,
            lines.part,
            lines.player_id,
            lines.denomination,
            cast(lines.event_date as varchar) as event_date,
            cast(lines.points as varchar) as points,
            lines.basis,
            cast(posted.as_of as varchar) as posted_as_of
        from lines
        inner join runs on runs.run_id = lines.run_id
        inner join runs as posted on posted.run_id = lines.posted_run
        order by as_of desc, lines.run_id desc, lines.source_file,
                 case lines.part when 'original' then 1 when 'reversal' then 2 else 3 end,
                 lines.player_id, lines.event_date, lines.denomination, lines.basis
        """, [organisation, organisation])


def page_name(as_of: str, source_file: str, run_id: str) -> str:
    """A correction's permalink: the run's date, the file's name (letters and digits of any script),
    a digest of run and file (two corrections of one file on one day stay apart)."""
    readable = re.sub(r"[^\w]+", "-", unicodedata.normalize("NFKC", source_file), flags=re.U).strip("-_")[:60]
    digest = hashlib.sha1(f"{run_id}\n{source_file}".encode("utf-8")).hexdigest()[:8]
    return f"{as_of}-{readable}-{digest}.html"


def _kind(group: pd.DataFrame) -> str:
    if group["recomputed"].iloc[0]:
        return "feed_recomputed"
    return "feed_corrected" if (group["part"] == "correction").any() else "feed_withdrawn"


def per_player(group: pd.DataFrame) -> pd.DataFrame:
    """Per player and denomination: the file's points before (the original lines) and after (the
    lines posted in their place), exact, and the change."""
    points = group["points"].map(Decimal)
    sums = (group.assign(before=points.where(group["part"] == "original", Decimal(0)),
                         after=points.where(group["part"] == "correction", Decimal(0)))
            .groupby(["player_id", "denomination"], sort=True)[["before", "after"]]
            .agg(lambda s: sum(s, Decimal(0))).reset_index())
    return sums.assign(change=[a - b for a, b in zip(sums["after"], sums["before"])])


def publish_corrections(con, org: pd.Series, out_dir: Path, text: dict[str, str], render,
                        name_of: dict[str, str], player_href: dict[str, str]) -> list[Path]:
    """Write the correction pages not yet written and the list of corrections (always, so that the
    index links it whether or not there is one); the paths written. `render(template, **context)`
    renders a site template; `player_href`: player id -> the player's page, relative to the site."""
    lines = correction_lines(con, org["organisation"])
    folder = out_dir / FOLDER
    written, listed = [], []
    who = lambda pid: f"{name_of[pid]} ({pid})" if pid in name_of else pid  # noqa: E731
    for (run_id, source_file), group in lines.groupby(["run_id", "source_file"], sort=False):
        as_of = group["as_of"].iloc[0]
        name = page_name(as_of, source_file, run_id)
        kind = _kind(group)
        listed.append({"as_of": as_of, "kind": kind, "source_file": source_file, "href": name,
                       "players": group["player_id"].nunique()})
        page = folder / name
        if page.is_file():
            continue  # a posted correction never changes
        rows = group.assign(who=group["player_id"].map(who)).to_dict("records")
        summary = per_player(group)
        context = {
            "kind": kind, "as_of": as_of, "source_file": source_file,
            "per_player": [{"who": who(r["player_id"]), "href": ("../" + player_href[r["player_id"]]) if r["player_id"] in player_href else "",
                            "denomination": r["denomination"], "before": r["before"], "after": r["after"], "change": r["change"]}
                           for r in summary.to_dict("records")],
            "parts": [(key, [r for r in rows if r["part"] == part])
                      for part, key in (("original", "correction_original"), ("reversal", "correction_reversal"),
                                        ("correction", "correction_new"))],
        }
        written.append(_write(page, render("correction.html.j2", t=text, lang=org.get("language") or "en",
                                           organisation=org["display_name"], c=context)))
    index = render("corrections.html.j2", t=text, lang=org.get("language") or "en", organisation=org["display_name"],
                   as_of=listed[0]["as_of"] if listed else "", corrections=listed)
    path = folder / "index.html"
    if not path.is_file() or path.read_text(encoding="utf-8") != index:
        written.append(_write(path, index))
    return written


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    scratch = path.with_name(f".{path.name}.tmp")  # a run killed while writing leaves no half page
    scratch.write_text(text, encoding="utf-8")
    os.replace(scratch, path)
    return path
