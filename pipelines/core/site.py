"""The publication site's shared pages (issue 15): an index per organisation and one across
organisations, and a page per player for every system with a ledger.

Every rule system writes its own pages (events, periods, series); this module links them: the
organisation's index lists every page it published (by the page's own title) and every player
with a balance, searchable by name or number in the browser (the list is plain HTML: readable
without scripts). A player page shows the player's balances per season and denomination and
every standing award line with its basis ("why did I get 0.34?").

Pages carry no run ids or run dates: the stamp is the latest event date of the organisation's
standing lines and the rule versions behind them, so the same ledger gives the same bytes however
many nights it took (the history-equals-fresh tests compare them). A night rewrites the index and
the pages of the players whose lines it posted or reversed (and any page missing), so its cost
follows its input.
"""
from __future__ import annotations

import bisect
import hashlib
import json
import os
import re
import unicodedata
import uuid
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from pipelines.core import pager, parallel
from pipelines.core import charts, corrections
from pipelines.core.charts import PALETTE, Series, line_chart
from pipelines.core.names import other_spellings, read_aliases
from pipelines.core.publishing import existing_names, replace_file, replace_folder
from pipelines.core.sql import arrow, fetch, scratch
from pipelines.core.templating import FIXED_TEMPLATES
from pipelines.core.text import rewrite_where_found

_TEMPLATES = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"),
                         autoescape=select_autoescape(["html", "j2", "atom"]), trim_blocks=True, lstrip_blocks=True,
                         **FIXED_TEMPLATES)
_TITLE = re.compile(r"<title>(.*?)</title>", re.S | re.I)
PLAYERS = "players"
FEED = "feed.atom"
FEED_ENTRIES = 50  # the newest entries a feed keeps (readers keep what they have seen)
# Player pages built column-wise together: at most this many players, and at most LINES_PER_BATCH
# lines (unless one player has more), which bounds the night's memory: 100 players of a league's
# 1,600 lines each, 1,000 of a federation's few dozen. Few players per batch cost a query and a
# lookup of the events' pages each (some 30 ms a batch at 300 clubs)
PLAYER_PAGE_BATCH = 1000
LINES_PER_BATCH = 160_000
parallel.serves_workers(__name__)  # render_player_pages, put_links


def _messages(path: Path) -> dict[str, dict[str, str]]:
    """The catalogue at `path`, read and validated once per content (an office's copy of the
    bundled one is not validated again; an edited one is read again)."""
    from pipelines.core.rule_tables import checked, read_csv_text
    from pipelines.core.settings import cached_by_content
    from schemas.site import SiteMessage

    def read() -> dict[str, dict[str, str]]:
        label = "site/messages.csv"  # as the office finds it in its data folder
        table = checked(SiteMessage, read_csv_text(path, label), label)
        return {lang: dict(zip(table["key"], table[lang])) for lang in ("en", "ja", "sv")}

    return cached_by_content("site.messages", (path,), read)


def messages(data_dir: Path, language: str) -> dict[str, str]:
    """The fixed texts in the organisation's language: the office's data/site/messages.csv, else
    the bundled catalogue (a data folder written before the site existed has none)."""
    from pipelines.core.settings import DATA_DIR

    own = Path(data_dir) / "site" / "messages.csv"
    bundled = _messages(DATA_DIR / "site" / "messages.csv")[language]
    # an office's catalogue written by an earlier version lacks the newer texts: the bundled ones fill in
    return {**bundled, **_messages(own)[language]} if own.is_file() else bundled


_MONTH_FOLDER = re.compile(r"\d{4}-\d{2}")


_ESCAPES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&#34;"), ("'", "&#39;"))  # as markupsafe.escape


_SPECIAL = "[" + "".join(re.escape(char) for char, _ in _ESCAPES) + "]"


def _escape(values: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """An Arrow column as HTML text, escaped as Jinja escapes (missing values: '')."""
    text = pc.fill_null(pc.cast(values, pa.string()), "")
    kind = values.type
    if pa.types.is_temporal(kind) or pa.types.is_integer(kind) or pa.types.is_decimal(kind) or pa.types.is_boolean(kind):
        return text  # their text has none of the five characters: five passes saved (a night's 800,000 lines)
    if isinstance(text, pa.ChunkedArray):
        return pa.chunked_array([_escape_text(chunk) for chunk in text.chunks], type=pa.string())
    return _escape_text(text)


def _escape_text(text: pa.Array) -> pa.Array:
    """The five replacements on the texts that hold one of the characters only: one search over
    a column, not five rewrites of it (most files, ids and bases hold none)."""
    return rewrite_where_found(text, _SPECIAL, _replace_specials)


def _replace_specials(text: pa.Array) -> pa.Array:
    for char, entity in _ESCAPES:
        text = pc.replace_substring(text, char, entity)
    return text


def line_rows(lines: pa.Table) -> list[str]:
    """Each award line of a player page as its table row (<tr>...</tr>), built column-wise for all
    of a night's pages at once: a league's night renders hundreds of pages of thousands of lines,
    which a template loop renders a row at a time. Columns (texts as shown): event_date, points,
    denomination, basis, event_page (a link, or null), event_id, source_file, location."""
    return _row_texts(lines).to_pylist() if lines.num_rows else []


def rows_by_page(lines: pa.Table) -> dict[str, tuple[int, str]]:
    """Each page's table rows (line_rows) joined, by "player\x1fseason": (line count, rows
    separated by newlines), in the lines' order within the page. Joined in Arrow: a league's first
    night has 800,000 rows, which as Python texts cost a string each and a join per page."""
    if lines.num_rows == 0:
        return {}
    rows = _row_texts(lines.drop_columns(["player_id", "season"]))
    keys = pc.binary_join_element_wise(lines.column("player_id"), lines.column("season"), "\x1f")
    codes, pages = pd.factorize(keys.to_numpy(zero_copy_only=False))
    counts = np.bincount(codes, minlength=len(pages))
    rows = pc.take(rows, pa.array(np.argsort(codes, kind="stable")))  # each page's rows together, in order
    if isinstance(rows, pa.ChunkedArray):
        rows = rows.combine_chunks()
    offsets = pa.array(np.concatenate([[0], np.cumsum(counts)]), type=pa.int64())
    texts = pc.binary_join(pa.LargeListArray.from_arrays(offsets, rows), "\n").to_pylist()
    return {page: (int(count), text) for page, count, text in zip(pages, counts, texts)}


def _row_texts(lines: pa.Table) -> pa.Array | pa.ChunkedArray:
    join = pc.binary_join_element_wise
    column = lines.column
    page = lines.column("event_page")
    has_page = pc.is_valid(page)
    link = pc.if_else(has_page, join(' <a href="', _escape(page), '" aria-label="', _escape(column("event_id")), '">→</a>', ""), "")
    location = _escape(column("location"))
    where = pc.if_else(pc.equal(location, ""), "", join(" (", location, ")", ""))
    rows = join('<tr><td class="date">', _escape(column("event_date")), '</td><td class="num">', _escape(column("points")),
                '</td><td class="kind">', _escape(column("denomination")), '</td><td class="basis">', _escape(column("basis")),
                link, '</td><td class="file">', _escape(column("source_file")), where, "</td></tr>", "")
    return rows


def running_totals_of(lines: pd.DataFrame | pa.Table) -> pd.DataFrame:
    """Each player's season balance per denomination after each date they earned points on, for
    many players at once, set-based (DuckDB window sums over the lines' exact decimals):
    (player_id, season, denomination, event_date, total), in date order; a season starts at 0, as
    its row of the balances does. The site's night renders hundreds of player pages with
    thousands of lines each; a Python sum per line does not scale."""
    return _running_totals(lines).to_pandas(types_mapper=pd.ArrowDtype)


# Each (player, season, denomination)'s balance after each date of `frame`'s lines: a season
# starts at 0, as its row of the balances does (running_totals_of, _CHART_POINTS)
_TOTALS = """
    per_day as (
        select cast(player_id as varchar) as player_id, cast(season as varchar) as season,
               cast(denomination as varchar) as denomination, cast(event_date as date) as event_date,
               sum(points) as points
        from frame group by all
    ),
    totals as (
        select player_id, season, denomination, event_date,
               sum(points) over (partition by player_id, season, denomination order by event_date
                                 rows between unbounded preceding and current row) as total
        from per_day
    )
"""


def _running_totals(lines: pd.DataFrame | pa.Table) -> pa.Table:
    with scratch() as con:
        columns = ["player_id", "season", "denomination", "event_date", "points"]
        con.register("frame", lines.select(columns) if isinstance(lines, pa.Table) else lines[columns])
        return arrow(con, f"""
            with {_TOTALS}
            select player_id, season, denomination, event_date, total
            from totals
            order by player_id, season, denomination, event_date
            """)


def running_total_chart(series: list[tuple[str, list, list]], text: dict[str, str]) -> dict | None:
    """The chart of a player's running total per denomination (core/charts), drawn once the
    player has points on two dates or more (one dot says nothing the balance does not).
    `series`: (denomination, dates, totals) of the player's rows of running_totals_of."""
    if len({d for _, dates, _ in series for d in dates}) < 2:
        return None
    lines = [Series(str(denomination), dates, totals, colour)
             for colour, (denomination, dates, totals) in zip(PALETTE, sorted(series, key=lambda s: s[0]))]
    return {"series": lines, "figure": line_chart(lines, x_label=text["date"], y_label=text["points"],
                                               aria_label=text["running_total"], steps=True)}


# A night's chart points encoded as charts.line_chart encodes them, in one query: the date, the
# series' label (its JSON, $labels), the total's exact text and the total as a JSON number. The
# number is the text without trailing zeros, which is what Python writes for float(total) when the
# total has at most 15 significant digits and 4 decimals; pages with a larger total (`exact`
# false) or more series than the palette has colours are drawn by running_total_chart.
_CHART_POINTS = "with" + _TOTALS + """,
    points as (
        select totals.player_id, totals.season, totals.denomination, totals.event_date, totals.total,
               '{"date":"' || cast(totals.event_date as varchar) || '","series":' || labels.label_json
                   || ',"text":"' || cast(totals.total as varchar) || '","value":'
                   || case when contains(cast(totals.total as varchar), '.')
                           then rtrim(rtrim(cast(totals.total as varchar), '0'), '.')
                           else cast(totals.total as varchar) end
                   || '}' as point
        from totals
        inner join labels on labels.denomination = totals.denomination
    )
    select player_id, season,
           count(distinct event_date) as dates,
           list_sort(list(distinct denomination)) as legend,
           '[' || string_agg(point, ',' order by denomination, event_date) || ']' as values_json,
           bool_and(abs(total) < 100000000000) as exact
    from points
    group by player_id, season
"""


def running_total_charts(lines: pa.Table, text: dict[str, str]) -> dict[tuple[str, str], dict | None]:
    """running_total_chart of every (player, season) of a night's lines (player_id, season,
    denomination, event_date, points), each page's points encoded in one query for all (a
    league's first night: 1,000 pages of a season's dates each, a dictionary per point cost
    seconds); the same figures, byte for byte."""
    if lines.num_rows == 0:
        return {}
    labels = sorted(set(pc.unique(pc.cast(lines.column("denomination"), pa.string())).to_pylist()) - {None})
    with scratch() as con:
        columns = ["player_id", "season", "denomination", "event_date", "points"]
        con.register("frame", lines.select(columns))
        con.register("labels", pa.table({"denomination": labels, "label_json": [charts.script_json(v) for v in labels]}))
        pages = arrow(con, _CHART_POINTS).to_pylist()
    points = lines.column("points").type
    exact = pa.types.is_decimal(points) and points.scale <= 4
    for page in pages:  # a page of more series than colours draws the first (running_total_chart)
        page["exact"] = page["exact"] and len(page["legend"]) <= len(PALETTE)
    if not exact or not all(page["exact"] for page in pages):  # the rare pages Python encodes (see _CHART_POINTS)
        series_of = _series_by_page(_running_totals(lines))
    out = {}
    for page in pages:
        key = (page["player_id"], page["season"])
        if page["dates"] < 2:
            out[key] = None
        elif not (exact and page["exact"]):
            out[key] = running_total_chart(series_of.get(key, []), text)
        else:
            legend = list(zip(page["legend"], PALETTE))
            out[key] = {"series": [Series(label, (), (), colour) for label, colour in legend],
                        "figure": charts.line_figure(legend, page["values_json"], x_label=text["date"], y_label=text["points"],
                                                     aria_label=text["running_total"], steps=True)}
    return out


def _series_by_page(totals: pa.Table) -> dict[tuple[str, str], list[tuple[str, list, list]]]:
    """{(player, season): [(denomination, dates, totals)]} from _running_totals (sorted by
    player, season, denomination, date): cut at the key changes, not grouped row by row."""
    if totals.num_rows == 0:
        return {}
    players, seasons = totals.column("player_id").to_pylist(), totals.column("season").to_pylist()
    denominations, dates, values = (totals.column(c).to_pylist() for c in ("denomination", "event_date", "total"))
    keys = pc.binary_join_element_wise(totals.column("player_id"), totals.column("season"), totals.column("denomination"),
                                       "\x1f").to_numpy(zero_copy_only=False)
    starts = np.concatenate([[0], np.flatnonzero(keys[1:] != keys[:-1]) + 1, [len(keys)]])
    out: dict[tuple[str, str], list] = {}
    for a, b in zip(starts[:-1], starts[1:]):
        out.setdefault((players[a], seasons[a]), []).append((denominations[a], dates[a:b], values[a:b]))
    return out


def player_slug(player_id: str) -> str:
    """The permalink of a player's page: readable (letters and digits of any script kept) and
    unique (a hash of the exact id), the same from run to run."""
    readable = re.sub(r"[^\w]+", "-", unicodedata.normalize("NFKC", player_id), flags=re.U).strip("-_")[:40]
    digest = hashlib.sha1(player_id.encode("utf-8")).hexdigest()[:8]
    return f"{readable}-{digest}" if readable else digest


_NOT_PAGES = {PLAYERS, "quarantine", corrections.FOLDER}  # the open-problem report and the corrections are linked on their own
_INDEX_VERSION = 2


def _stamp(path: str) -> str | None:
    """A file's inode, size and mtime: a page with the same stamp has the same bytes."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return f"{st.st_ino}.{st.st_size}.{st.st_mtime_ns}"


def _folder_key(st: os.stat_result) -> str:
    """A page folder's inode and mtime: a folder with the same key holds the same entries."""
    return f"{st.st_ino}.{st.st_mtime_ns}"


def _page_folders(root: str, known: dict, pages: dict) -> tuple[list[str], dict, dict[str, str]]:
    """Every folder under `root` (relative, '/'-separated) that holds an index.html, what was
    seen of each folder that has sub-folders: [its inode and mtime, its sub-folders, whether it
    holds a page], and the key (`_folder_key`) of each page folder without sub-folders that was
    looked at. Publishers swap a page's folder in whole (publishing.replace_folder), which
    changes the parent folder's mtime; so the sub-folders of a folder whose inode and mtime are as
    last seen are as last seen, and one of them that was a page folder without sub-folders is not
    even looked at (its page's own stamp is checked by published_pages). A page folder below a
    folder that changed is looked at by one stat: listed only when its own key (kept with its
    page in `pages`) changed. A night lists only the folders that changed: one stat per club
    folder, not per event, and one per event of a club that changed."""
    found, seen, todo, leaf_keys = [], {}, [""], {}
    while todo:
        rel = todo.pop()
        path = os.path.join(root, rel) if rel else root
        try:
            st = os.stat(path)
        except FileNotFoundError:
            continue  # removed while we looked
        key = [st.st_ino, st.st_mtime_ns]
        entry = known.get(rel)
        if entry is None and rel:
            page = pages.get(rel + "/index.html")
            leaf_keys[rel] = _folder_key(st)
            if page is not None and page[3] == leaf_keys[rel]:
                entry = [key, [], True]  # a page folder without sub-folders, as last seen
        same = entry is not None and entry[0] == key
        if not same:
            subdirs, has_page = [], False
            with os.scandir(path) as it:
                for e in it:
                    if e.name.startswith("."):
                        continue  # a publisher's folder being swapped in (.name.tmp, .name.old)
                    if e.is_dir(follow_symlinks=False):
                        if rel or e.name not in _NOT_PAGES:
                            subdirs.append(e.name)
                    elif rel and e.name == "index.html":
                        has_page = True
            entry = [key, sorted(subdirs), has_page]
        if entry[1] or not rel:
            seen[rel] = entry
        if entry[2]:
            found.append(rel)
        below = [f"{rel}/{d}" for d in entry[1]] if rel else entry[1]
        if same:  # its sub-folders as last seen: a page folder without sub-folders is not looked at
            todo.extend(b for b in below if b in known)
            found.extend(b for b in below if b not in known and b + "/index.html" in pages)
        else:
            todo.extend(below)
    return sorted(found), seen, {rel: k for rel, k in leaf_keys.items() if rel not in seen}


def _section(folder: str) -> str:
    """The section a page belongs to: its top-level folder when it lies below one (a Swedish
    club's events, a backgammon season's months), else '' (the organisation's own pages)."""
    return folder.split("/", 1)[0] if "/" in folder else ""


def published_pages(out_dir: Path, index: dict | None = None) -> list[dict]:
    """Every page a rule system published for the organisation (not the index, not player pages):
    its path relative to the organisation's folder and its own title. `index` (the site's cache of
    what it saw, updated here): a page whose file stamp (inode, size, mtime) is as last seen is
    not read again; pages read tonight (new or rewritten) are marked `changed`. A top-level folder
    with pages below it is a section (a Swedish club): the site writes its index.html, which
    lists its pages (publish_sections), so the organisation's index stays short at 90,000 pages."""
    index = index if index is not None else {}
    if index.get("version") != _INDEX_VERSION:
        index.clear()  # an older cache (or none): every page is read once
        index.update({"version": _INDEX_VERSION, "folders": {}, "pages": {}})
    root = str(out_dir)
    known, pages = index["pages"], []
    folders, index["folders"], leaf_keys = _page_folders(root, index["folders"], known)
    # a section's own index.html is the site's; one left by a section that has no pages any more
    # is not a page either (publish_sections removes it)
    sections = {f.split("/", 1)[0] for f in folders if "/" in f} | set(index.setdefault("sections", {}))
    for folder in folders:
        if folder in sections:
            continue  # a section's own index.html is the site's (publish_sections), not a publisher's
        href = f"{folder}/index.html"
        stamp = _stamp(os.path.join(root, href))
        if stamp is None:
            continue
        entry = known.get(href)
        if entry is not None and entry[1] == stamp:
            entry[3] = leaf_keys.get(folder, entry[3])
            pages.append({"href": href, "title": entry[0], "folder": folder, "changed": False, "section": _section(folder)})
            continue
        with open(os.path.join(root, href), encoding="utf-8", errors="replace") as f:
            head = f.read(4000)
        found = _TITLE.search(head)
        title = _unescape(re.sub(r"\s+", " ", found.group(1)).strip() if found else folder)
        # its links are not known until link_pages has seen it
        known[href] = [title, stamp, "", leaf_keys.get(folder, "")]
        pages.append({"href": href, "title": title, "folder": folder, "changed": True, "section": _section(folder)})
    return pages


class EventPages:
    """What `event_page_column` looks up in the published pages, made once per organisation and
    night (a night builds its player pages a batch at a time; making the set of a federation's
    90,000 page folders again for each batch cost 0.6 s of a night at 300 clubs)."""

    def __init__(self, pages: list[dict], period_pages: bool):
        # period pages: the folders ending in a YYYY-MM, in order; event pages: every page folder
        # (only the one the site's kind reads is made)
        self.months = sorted((p["folder"].rsplit("/", 1)[-1], p["folder"]) for p in pages
                             if _MONTH_FOLDER.fullmatch(p["folder"].rsplit("/", 1)[-1])) if period_pages else None
        self.folders = None if period_pages else pa.array(list({p["folder"] for p in pages}), type=pa.string())


def event_page_column(event_ids, event_dates, pages: list[dict] | EventPages, organisation: str,
                      period_pages: bool) -> pa.ChunkedArray | pa.Array:
    """The link from a player page to each line's event page (or null), column-wise (Arrow):
    - `period_pages` (a mahjong game in its leaderboard, a backgammon match in its month's
      snapshot): the page whose folder ends in the latest YYYY-MM not after the event's month
      (`event_dates` as 'YYYY-MM-DD' texts). Periods follow one another, so that is the period
      the event belongs to;
    - else the page in the folder the event's id names (a JCBL event, a Swedish event and its DM
      bonus); lines of events without a page of their own get none.
    `pages`: the published pages, or their EventPages made once for several calls."""
    lookup = pages if isinstance(pages, EventPages) else EventPages(pages, period_pages)
    if (lookup.months is None) == period_pages:
        raise ValueError("event_page_column: the EventPages were made for the other kind of site")
    event_ids = pc.cast(event_ids, pa.string())
    if period_pages:
        months = lookup.months
        if not months or len(event_ids) == 0:
            return pa.nulls(len(event_ids), pa.string())
        starts = np.array([m for m, _ in months])
        month = pc.utf8_slice_codeunits(pc.cast(event_dates, pa.string()), 0, 7).to_numpy(zero_copy_only=False).astype(starts.dtype)
        at = np.searchsorted(starts, month, side="right") - 1  # the latest start not after the month
        links = np.array([f"../{f}/index.html" for _, f in months], dtype=object)
        return pa.array(np.where(at >= 0, links[np.clip(at, 0, None)], None), type=pa.string())
    prefix = organisation + "/"
    folder = pc.list_element(pc.split_pattern(event_ids, "#", max_splits=1), 0)
    folder = pc.if_else(pc.starts_with(folder, prefix), pc.utf8_slice_codeunits(folder, len(prefix)), folder)
    found = pc.is_in(folder, value_set=lookup.folders)
    return pc.if_else(found, pc.binary_join_element_wise("../", folder, "/index.html", ""), pa.scalar(None, pa.string()))


def section_stamps(events: pd.DataFrame) -> dict[str, dict]:
    """{section: its stamp}: the latest event date and the rule versions of the standing lines
    whose event's page (`event_page`, event_page_column: '../<folder>/index.html') lies in the
    section. A section's page then changes only with its own events, as a fresh run would write it."""
    events = events.dropna(subset=["event_page"])
    if events.empty:
        return {}
    # '../<section>/<page folder>/index.html': the first folder of a page that lies below one
    events = events.assign(section=events["event_page"].astype(str).str.extract(r"^\.\./([^/]+)/.+/index\.html$", expand=False))
    events = events.dropna(subset=["section"])
    # one aggregation over every section (a federation's 300 clubs), not a frame per section
    latest = events.groupby("section", sort=False)["event_date"].max()
    versions = (events.assign(rule_version=events["rule_version"].astype(str))[["section", "rule_version"]]
                .drop_duplicates().sort_values(["section", "rule_version"])
                .groupby("section", sort=False)["rule_version"].agg(", ".join))
    return {section: {"as_of": str(day), "rule_versions": versions[section]} for section, day in latest.items()}


def publish_sections(out_dir: Path, pages: list[dict], titles: dict[str, str], stamps: dict[str, dict],
                     render, index: dict) -> tuple[list[dict], list[Path]]:
    """The index of every section (a top-level folder with pages below it: a Swedish club's
    events and monthly pages, a backgammon season's months): its pages, newest folder first.
    Written when its title, stamp or list changes; a section without pages loses its index.
    Returns the organisation index's entries (its own pages, then one per section) and the files
    written."""
    by_section: dict[str, list[dict]] = {}
    for p in pages:
        by_section.setdefault(p.get("section") or _section(p["folder"]), []).append(p)
    top = by_section.pop("", [])
    known, seen, written = index.setdefault("sections", {}), {}, []
    for section in sorted(by_section):
        mine = sorted(by_section[section], key=lambda p: p["folder"], reverse=True)
        title = titles.get(section) or section
        entries = [{"href": p["href"][len(section) + 1:], "title": p["title"], "folder": p["folder"][len(section) + 1:]} for p in mine]
        stamp = stamps.get(section, {"as_of": "", "rule_versions": ""})
        digest = hashlib.blake2b(json.dumps([title, stamp, entries], ensure_ascii=False).encode("utf-8"), digest_size=8).hexdigest()
        path = out_dir / section / "index.html"
        if known.get(section) != digest or not path.is_file():
            if _write_if_changed(path, render(title=title, stamp=stamp, pages=entries)):
                written.append(path)
        seen[section] = digest
        top.append({"href": f"{section}/index.html", "title": title, "folder": section, "count": len(mine)})
    for section in set(known) - set(seen):
        (out_dir / section / "index.html").unlink(missing_ok=True)
    index["sections"] = seen
    return sorted(top, key=lambda p: p["folder"]), written


def link_pages(out_dir: Path, pages: list[dict], text: dict[str, str], index: dict | None = None,
               section_titles: dict[str, str] | None = None) -> list[Path]:
    """Up / previous / next links on every published page (pipelines/core/pager.py); a page is
    rewritten only when its links change. A page's links name its section and its two neighbours
    of its kind (pager.kind_of), so they can change only for a page that is new or rewritten, the
    pages next to it, and the pages next to a removed one: only those are linked again, so a
    night's cost follows its pages, not the site's (a federation has tens of thousands; a club's
    two years of events are one kind). When the pager's labels or a section's title change (a club
    renamed), every page of the site is linked again."""
    index = index if index is not None else {}
    known = index.setdefault("pages", {})
    hrefs = {p["href"] for p in pages}
    removed = [href for href in known if href not in hrefs]
    labels = {"nav": pager.nav_html(_PAGER_PROBE, text), "sections": dict(sorted((section_titles or {}).items()))}
    relabelled = index.get("pager") != labels
    index["pager"] = labels

    def is_new(p: dict) -> bool:
        return relabelled or p.get("changed", True) or p["href"] not in known

    dirty = {pager.kind_of(p["folder"]) for p in pages if is_new(p)}
    dirty |= {pager.kind_of(href.rpartition("/")[0]) for href in removed}
    gone: dict[tuple[str, str], list[str]] = {}
    for href in removed:
        gone.setdefault(pager.kind_of(href.rpartition("/")[0]), []).append(href.rpartition("/")[0])
        del known[href]
    groups: dict[tuple[str, str], list[dict]] = {}
    for p in pages:
        kind = pager.kind_of(p["folder"])
        if kind in dirty:
            groups.setdefault(kind, []).append(p)
    due = []
    for kind, group in groups.items():
        group.sort(key=lambda p: p["folder"])
        marked = set()
        for i, p in enumerate(group):
            if is_new(p):
                marked.update((i - 1, i, i + 1))
        folders = [p["folder"] for p in group]
        for folder in gone.get(kind, []):
            at = bisect.bisect_left(folders, folder)  # its old neighbours are now next to each other
            marked.update((at - 1, at))
        due.extend(group[i] for i in sorted(marked) if 0 <= i < len(group))
    links = pager.neighbours(due, section_titles, groups=groups)
    work = []
    for p in due:
        nav = pager.nav_html(links[p["href"]], text)
        digest = hashlib.blake2b(nav.encode("utf-8"), digest_size=8).hexdigest()
        entry = known.get(p["href"])
        if entry is not None and entry[2] == digest and not p.get("changed", True):
            continue
        work.append((p, str(out_dir / p["href"]), nav, digest))
    # a history's tens of thousands of pages are linked by both cores (pipelines/core/parallel.py)
    processes = parallel.workers() if len(work) >= PARALLEL_FROM_PAGES else 1
    ranges = parallel.chunk_ranges(np.arange(len(work)), processes, per_chunk=500)
    done = parallel.map_chunks(put_links, [[(path, nav) for _, path, nav, _ in work[a:b]] for a, b in ranges], processes)
    written = []
    for (p, path, _, digest), (changed, stamp) in zip(work, (r for chunk in done for r in chunk)):
        if changed:
            written.append(Path(path))
        known[p["href"]] = [p["title"], stamp, digest, ""]  # (its folder's key: _refresh_folder_keys)
    return written


# From this many pages to link on, the links are written by worker processes
PARALLEL_FROM_PAGES = 2000


def _refresh_folder_keys(out_dir: Path, index: dict, written: list[Path]) -> None:
    """The folders the site itself wrote into after published_pages listed them (a page's links, a
    section's index; files only, never a folder) hold the sub-folders and the page they were
    listed with: their keys are taken again, so the next night does not list them again. (After a
    history, a club's page and every event page got written: every folder of a federation's
    97,000 was listed again the next night.)"""
    root = str(out_dir)
    folders, pages = index.get("folders", {}), index.get("pages", {})
    for path in written:
        try:
            rel = Path(path).parent.relative_to(out_dir).as_posix()
        except ValueError:
            continue
        if rel == ".":
            continue  # the organisation's own folder is listed each night it changed
        entry, page = folders.get(rel), pages.get(rel + "/index.html")
        if entry is None and page is None:
            continue  # not a folder that was listed (the player pages, the corrections)
        try:
            st = os.stat(os.path.join(root, rel))
        except FileNotFoundError:
            continue
        if entry is not None:
            entry[0] = [st.st_ino, st.st_mtime_ns]
        else:
            page[3] = _folder_key(st)


def put_links(pages: list[tuple[str, str]]) -> list[tuple[bool, str | None]]:
    """Each page (path, its pager's HTML) with its links put in, written where that changes it:
    (written, the page's stamp after) for each. Runs in a worker process for a history."""
    done = []
    for path, nav in pages:
        page = Path(path).read_text(encoding="utf-8")
        done.append((_write_if_changed(Path(path), pager.with_nav(page, nav)), _stamp(path)))
    return done


# A page's links as the pager writes them: when the pager's words (the site's messages) or its
# markup change, this probe's links change, and every page is linked again
_PAGER_PROBE = {"up": "index.html", "up_title": None, "prev": {"href": "p", "title": "p"}, "next": {"href": "n", "title": "n"}}


def _unescape(text: str) -> str:
    # the titles are HTML already; they are escaped again when this index renders them
    import html

    return html.unescape(text)


# The organisation's award lines that stand (not reversed): what a fresh run would post.
_STANDING = """
    select player_id, denomination, season, event_id, event_date, points, basis, source_file, location, rule_version
    from awards
    where organisation = $organisation and entry_type = 'award'
      and award_id not in (select reverses_award_id from awards where organisation = $organisation and entry_type = 'reversal')
"""
_LINE_ORDER = "player_id, event_date, event_id, denomination, points, basis, source_file, location, season, rule_version"


def page_stamps(con, organisation: str) -> pd.DataFrame:
    """The stamps of the site's pages from the standing lines, aggregated in SQL (a night does not
    read a league's million lines to learn their latest date): one row per (player, season), per
    player (season missing, `whole`) and for the organisation (both missing): the latest event
    date, the rule versions (sorted, joined) and the number of lines."""
    return fetch(con, f"""
        with standing as ({_STANDING})
        select player_id, season, grouping(season) = 1 as whole,
               max(event_date) as as_of,
               array_to_string(array_sort(list(distinct cast(rule_version as varchar))), ', ') as rule_versions,
               count(*) as lines
        from standing
        group by grouping sets ((player_id, season), (player_id), ())
        """, {"organisation": organisation})


def season_page_name(slug: str, season: str) -> str:
    """The file of a player's page for one earlier season, beside the player's own page."""
    return f"{slug}.{player_slug(str(season))}.html"


def _season_pages(stamps: pd.DataFrame) -> tuple[dict[str, str], pd.DataFrame]:
    """({player: the season of their latest line}, the (player_id, season) rows of every other
    season with lines: each has a page of its own). A player page shows the latest season's lines,
    so a night that posts in the current season leaves the earlier seasons' pages as they are and
    the night's cost follows the season, not the player's whole history."""
    per_season = stamps[stamps["player_id"].notna() & ~stamps["whole"].astype(bool)]
    per_season = per_season.assign(player_id=per_season["player_id"].astype(str), season=per_season["season"].astype(str))
    ordered = per_season.sort_values(["player_id", "as_of", "season"])
    latest = dict(zip(ordered["player_id"], ordered["season"]))  # the last row of each player wins
    earlier = per_season[per_season["season"] != per_season["player_id"].map(latest)]
    return latest, earlier[["player_id", "season", "as_of", "rule_versions"]].reset_index(drop=True)


def _lines_of(con, organisation: str, pairs: pd.DataFrame) -> pa.Table:
    """The standing lines of the given (player_id, season) pairs, in the pages' order, as Arrow
    (exact decimals), with the date as the pages' links name it."""
    con.register("site_pages_due", pairs[["player_id", "season"]])
    try:
        return arrow(con, f"""
            with standing as ({_STANDING})
            select standing.* replace (cast(standing.season as varchar) as season),
                   cast(standing.event_date as varchar) as date_text
            from standing
            join site_pages_due on standing.player_id = site_pages_due.player_id
                               and cast(standing.season as varchar) = site_pages_due.season
            order by {_LINE_ORDER}
            """, {"organisation": organisation})
    finally:
        con.unregister("site_pages_due")


# The most lines one query reads for the player pages: the lines of several batches of players
# are read together (each query reads the whole ledger once: a night's 46 batches of a
# federation's million lines cost half a second), a batch at a time only when its lines are many
LINES_PER_READ = 250_000


def _lines_due(wanted: pd.DataFrame, stamps: pd.DataFrame) -> dict[str, int]:
    """{player: the lines of the player's pages due}: page_stamps' counts of the `wanted` (player,
    season) pairs, not of the player's whole history nor the organisation's."""
    per_season = stamps[stamps["player_id"].notna() & ~stamps["whole"].astype(bool)]
    count = dict(zip(zip(per_season["player_id"].astype(str), per_season["season"].astype(str)), per_season["lines"]))
    lines_of: dict[str, int] = {}
    for player, season in zip(wanted["player_id"], wanted["season"]):
        lines_of[player] = lines_of.get(player, 0) + int(count.get((player, str(season)), 0))
    return lines_of


def _read_groups(batch_players: list[str], wanted: pd.DataFrame, stamps: pd.DataFrame,
                 lines_of: dict[str, int] | None = None) -> list[list[list[str]]]:
    """The batches of players (in order: at most PLAYER_PAGE_BATCH players and LINES_PER_BATCH
    lines each), grouped so that one query reads the lines of a group: consecutive batches while
    their lines (_lines_due, or `lines_of` when the caller has it) stay within LINES_PER_READ."""
    lines_of = _lines_due(wanted, stamps) if lines_of is None else lines_of
    groups, current, held = [], [], 0
    for batch in _cut(batch_players, lines_of, PLAYER_PAGE_BATCH, LINES_PER_BATCH):
        lines = sum(lines_of.get(p, 0) for p in batch)
        if current and held + lines > LINES_PER_READ:
            groups.append(current)
            current, held = [], 0
        current.append(batch)
        held += lines
    return groups + [current] if current else groups


def _cut(players: list[str], lines_of: dict[str, int], most_players: int, most_lines: int) -> list[list[str]]:
    """`players` in consecutive parts (in order) of at most `most_players` players and at most
    `most_lines` of their lines (`lines_of`), but never empty: a player with more lines than that
    is a part of their own."""
    parts, current, held = [], [], 0
    for player in players:
        lines = lines_of.get(player, 0)
        if current and (len(current) == most_players or held + lines > most_lines):
            parts.append(current)
            current, held = [], 0
        current.append(player)
        held += lines
    return parts + [current] if current else parts


def _events_of(con, organisation: str, pages: list[dict] | EventPages, period_pages: bool) -> pd.DataFrame:
    """Every event with standing lines (event_id, event_date, rule_version) and its page: the
    sections' stamps."""
    events = arrow(con, f"""with standing as ({_STANDING})
        select distinct event_id, event_date, cast(event_date as varchar) as date_text, rule_version from standing""",
                   {"organisation": organisation})
    page = event_page_column(events.column("event_id"), events.column("date_text"), pages, organisation, period_pages)
    return events.append_column("event_page", page).to_pandas(types_mapper=pd.ArrowDtype)


def publish_organisation(con, org: pd.Series, out_dir: Path, run_id: str, data_dir: Path,
                         names: pd.DataFrame | None = None, notes_for=None, always: set[str] = frozenset(),
                         period_pages: bool = False, page_index: Path | None = None,
                         section_titles: dict[str, str] | None = None, every_page: bool = False,
                         open_problems: int | None = None, base_url: str | None = None) -> list[Path]:
    """The organisation's index and the player pages this run touched (or that are missing).
    `names` (player_id, name): the names a rule system knows beside the ids (the Swedish member
    register); where the id is the name (mahjong, backgammon) there are none. `notes_for(players)`:
    a rule system's lines about each player that depend on the player's own lines only (the
    Swedish master class and promotions), for the pages written tonight. `always`: players whose
    page is rendered every night, as their notes change without lines of their own (the Swedish
    ranking position); a page is written only when its bytes change. `period_pages`: the system
    publishes its events inside period pages (mahjong, backgammon): lines link to their period's.
    `page_index`: where the site keeps what it read of the published pages (a private cache), so
    that a night reads only the pages that changed. `section_titles` (folder → title): how the
    sections are named (the Swedish clubs' names); else by their folder. `every_page`: every
    player page and earlier season's page is rendered (a new member register renames players).
    `open_problems`: how many problems the quarantine report lists (counted here when not given).

    A player's page holds the balances of every season, and the chart and lines of the season of
    the player's latest line; each earlier season has a page of its own (season_page_name),
    written when a run posts or reverses a line of that season (or the page is missing)."""
    organisation = org["organisation"]
    lang = org.get("language") or "en"
    name_of = dict(zip(names["player_id"].astype(str), names["name"].astype(str))) if names is not None and len(names) else {}
    text = messages(data_dir, lang)
    balances = fetch(con, "select player_id, season, denomination, points, award_lines from balances "
                          "where organisation = ? order by player_id, season, denomination", [organisation])
    stamps = page_stamps(con, organisation)
    whole = stamps[stamps["player_id"].isna()]
    stamp = ({"as_of": str(whole["as_of"].iloc[0]), "rule_versions": str(whole["rule_versions"].iloc[0])}
             if len(whole) and pd.notna(whole["as_of"].iloc[0]) else {"as_of": "", "rule_versions": ""})
    own_stamp = {str(r.player_id): {"as_of": str(r.as_of), "rule_versions": str(r.rule_versions)}
                 for r in stamps[stamps["player_id"].notna() & stamps["whole"].astype(bool)].itertuples()}
    latest, earlier = _season_pages(stamps)
    players = sorted(set(balances["player_id"].astype(str)))
    slugs = {p: player_slug(p) for p in players}
    folder = out_dir / PLAYERS
    touched = fetch(con, "select distinct player_id, season from awards where organisation = ? and run_id = ?",
                    [organisation, run_id])
    touched_players = set(touched["player_id"].astype(str))
    touched_pairs = set(zip(touched["player_id"].astype(str), touched["season"].astype(str)))
    written = [p for p in [charts.ensure_library(out_dir)] if p is not None]
    index = _load_index(page_index)
    pages = published_pages(out_dir, index)
    lookup = EventPages(pages, period_pages)
    on_disk = existing_names(folder)  # the pages written so far: one listing, not a look per player
    due = [p for p in players if every_page or p in touched_players or f"{slugs[p]}.html" not in on_disk]
    # `always` pages whose own lines did not move tonight: only their notes can have (the Swedish
    # ranking position), so the notes are put into the page as it stands (refresh_notes), not the
    # whole page rendered again from its lines; a page not as expected is rendered whole
    rendered = set(due)
    moving = [p for p in players if p in always and p not in rendered]
    earlier = earlier[earlier["player_id"].isin(slugs)]
    earlier = earlier.assign(page=[season_page_name(slugs[p], s) for p, s in zip(earlier["player_id"], earlier["season"])])
    season_due = earlier.loc[np.array([every_page or (p, s) in touched_pairs or name not in on_disk
                                       for p, s, name in zip(earlier["player_id"], earlier["season"], earlier["page"])], dtype=bool)]
    season_href = {(p, s): name for p, s, name in zip(earlier["player_id"], earlier["season"], earlier["page"])}
    notes = notes_for(set(due) | set(moving)) if notes_for is not None and (due or moving) else {}
    notes_block = _TEMPLATES.get_template("player_lines.html.j2").module.notes_block
    for player in moving:
        path = folder / f"{slugs[player]}.html"
        as_written = path.read_text(encoding="utf-8")
        page = refresh_notes(as_written, str(notes_block(text, notes.get(player, []))), text)
        if page is None:
            due.append(player)
        elif page != as_written:
            _replace_text(path, page)
            written.append(path)
    due_set = set(due)
    # the balances of the pages rendered tonight only (a federation has tens of thousands of players)
    player_of_balance = balances["player_id"].astype(str)
    shown = player_of_balance.isin(due_set | set(season_due["player_id"].astype(str)))
    # as records, made once for all of tonight's pages (a frame's to_dict per page cost 0.5 ms
    # each: 2 s for a federation's 3,700 pages a night)
    balances_of: dict[str, list[dict]] = {}
    for record, player in zip(balances[shown].to_dict("records"), player_of_balance[shown]):
        balances_of.setdefault(player, []).append(record)
    # the lines of the pages due tonight only (the latest season of each player due, and each
    # earlier season due), read for several batches of players at once (_read_groups) and built a
    # batch at a time; every per-line column computed column-wise for the batch (one map of the
    # events' pages, one window sum of the running totals, the table rows built by
    # site.line_rows); batches bound the memory
    wanted = pd.concat([pd.DataFrame({"player_id": due, "season": [latest.get(p, "") for p in due]}),
                        season_due[["player_id", "season"]]], ignore_index=True)
    batch_players = sorted(set(wanted["player_id"]))
    common = {"t": text, "lang": lang, "organisation": org["display_name"]}
    # a history's (or a renamed register's) thousands of pages are rendered and written by both
    # cores (pipelines/core/parallel.py) while the next batch's lines are read here; a night's
    # pages of a few lines each are done here (a Swedish night's 3,100 pages of 5,500 lines: 2.1 s
    # here, 2.4 s with the workers, whose jobs are made here all the same)
    lines_due = _lines_due(wanted, stamps)
    many = len(wanted) >= PARALLEL_FROM_PLAYER_PAGES or sum(lines_due.values()) >= PARALLEL_FROM_LINES
    processes = parallel.workers() if many else 1

    reads = _read_groups(batch_players, wanted, stamps, lines_due)

    def jobs():
        for group in reads:
            read = _lines_of(con, organisation, wanted[wanted["player_id"].isin([p for b in group for p in b])])
            yield from batch_jobs(group, read)

    def batch_jobs(group: list[list[str]], read: pa.Table):
        for batch in group:
            part = read if len(group) == 1 else read.filter(
                pc.is_in(pc.cast(read.column("player_id"), pa.string()), value_set=pa.array(batch, type=pa.string())))
            batch_pages = []
            for player in (p for p in batch if p in due_set):
                own = balances_of.get(player, [])
                season = latest.get(player, "")
                batch_pages.append(("player.html.j2", str(folder / f"{slugs[player]}.html"), (player, season), dict(
                    player=player, name=name_of.get(player, ""), stamp=own_stamp.get(player, {"as_of": "", "rule_versions": ""}),
                    notes=notes.get(player, []), season=season,
                    earlier=any((player, str(b["season"])) in season_href for b in own),
                    balances=[dict(b, href=season_href.get((player, str(b["season"])))) for b in own])))
            for r in season_due[season_due["player_id"].isin(batch)].itertuples():
                own = balances_of.get(r.player_id, [])
                batch_pages.append(("player_season.html.j2", str(folder / r.page), (r.player_id, r.season), dict(
                    player=r.player_id, season=r.season, name=name_of.get(r.player_id, ""),
                    stamp={"as_of": str(r.as_of), "rule_versions": str(r.rule_versions)}, player_href=f"{slugs[r.player_id]}.html",
                    balances=[b for b in own if str(b["season"]) == r.season])))
            lines = pa.table({
                # typed: a date's or a decimal's text needs no escaping (line_rows casts them as DuckDB prints them)
                "event_date": part.column("event_date"), "points": part.column("points"),
                "denomination": part.column("denomination"), "basis": part.column("basis"),
                "event_page": event_page_column(part.column("event_id"), part.column("date_text"), lookup, organisation, period_pages),
                "event_id": part.column("event_id"), "source_file": part.column("source_file"), "location": part.column("location"),
                "player_id": pc.cast(part.column("player_id"), pa.string()), "season": part.column("season")})
            if processes <= 1:
                yield {"common": common, "lines": lines, "pages": batch_pages}
                continue
            # a worker's share is a part of the batch: what a worker holds while it renders (the
            # table rows of a league's 800-line pages) is what bounds the run's memory
            counts = pc.value_counts(lines.column("player_id"))
            lines_of = dict(zip(counts.field("values").to_pylist(), counts.field("counts").to_pylist()))
            for job in _cut(batch, lines_of, PLAYERS_PER_WORKER_JOB, LINES_PER_WORKER_JOB):
                group = pa.array(job, type=pa.string())
                members = set(job)
                yield {"common": common, "lines": lines.filter(pc.is_in(lines.column("player_id"), value_set=group)),
                       "pages": [page for page in batch_pages if page[2][0] in members]}

    written += [Path(p) for done in parallel.map_streamed(render_player_pages, jobs(), processes) for p in done]
    if folder.is_dir():  # a player whose every line was reversed has no page, as in a fresh run
        wanted_files = {f"{s}.html" for s in slugs.values()} | set(earlier["page"])
        for page in folder.glob("*.html"):
            if page.name not in wanted_files:
                page.unlink()
    written += corrections.publish_corrections(
        con, org, out_dir, text, lambda name, **context: _TEMPLATES.get_template(name).render(**context),
        name_of, {p: f"{PLAYERS}/{slugs[p]}.html" for p in players})
    feed = write_feed(con, org, out_dir, text, base_url)
    if feed is not None:
        written.append(feed)
    # the report stays on disk once written (with nothing open it says so); linked while it lists a problem
    if open_problems is None:
        from pipelines.core.quarantine_report import open_problems as report_rows

        open_problems = len(report_rows(con, organisation))  # exactly what the report lists
    written += link_pages(out_dir, pages, text, index, section_titles)
    index = index if index is not None else {}
    # the sections' stamps need every event's page; a site without sections (a mahjong league's
    # periods) does not read its events at all
    if any(p["section"] for p in pages):
        stamps_of_sections = section_stamps(_events_of(con, organisation, lookup, period_pages))
    else:
        stamps_of_sections = {}
    listed, sections_written = publish_sections(
        out_dir, pages, section_titles or {}, stamps_of_sections,
        lambda **context: _TEMPLATES.get_template("site_section.html.j2").render(
            t=text, lang=lang, organisation=org["display_name"], **context), index)
    written += sections_written
    _refresh_folder_keys(out_dir, index, written)
    _save_index(page_index, index)
    # the spellings `explain` accepts (data/aliases/), so that the index finds a player by any of them
    spellings = other_spellings(read_aliases(data_dir, org.get("aliases") if pd.notna(org.get("aliases")) else None))
    index = _TEMPLATES.get_template("site_index.html.j2").render(
        t=text, lang=lang, organisation=org["display_name"], stamp=stamp,
        pages=listed, feed=FEED, quarantine=open_problems > 0 and (out_dir / "quarantine" / "index.html").is_file(),
        players=[{"id": p, "name": name_of.get(p, ""), "href": f"{PLAYERS}/{slugs[p]}.html", "also": spellings.get(p, "")}
                 for p in players])
    if _write_if_changed(out_dir / "index.html", index):
        written.append(out_dir / "index.html")
    return written


# From this many player pages due in one run, or this many lines on them (a league's first run: 1,000
# pages of 800 lines; a Swedish night's 3,100 pages hold 5,500), they are rendered by worker
# processes, each batch cut into jobs of at most PLAYERS_PER_WORKER_JOB players and
# LINES_PER_WORKER_JOB lines. The lines bound
# a worker's memory (all the processes of the 200,000-game league's first run: 2.1 GiB with a whole
# batch of 100 players of 1,600 lines to a worker, 1.5 GiB with a quarter); the players keep a
# federation's few-line pages from costing a job each quarter of a hundred (a job's charts are one
# query of some 10 ms: 132 jobs of 25 players cost a Swedish night of 3,300 pages 1.4 s of CPU)
PARALLEL_FROM_PLAYER_PAGES = 10_000
PARALLEL_FROM_LINES = 200_000
PLAYERS_PER_WORKER_JOB = 250
LINES_PER_WORKER_JOB = 40_000


def render_player_pages(job: dict) -> list[str]:
    """One batch of player pages (and earlier seasons' pages) rendered from their lines and
    written where that changes them: the paths written. `job`: `common` (the templates' texts),
    `lines` (every award line of the batch's pages, in the pages' order: the columns of
    line_rows, player_id and season) and `pages` (template, path, (player, season), context).
    Every per-line column is computed column-wise for the batch (the table rows joined per page by
    rows_by_page, the charts encoded by running_total_charts); runs in a worker process for a
    history."""
    lines = job["lines"]
    rows_of = rows_by_page(lines)
    chart_of = running_total_charts(lines, job["common"]["t"])
    written = []
    for template, path, (player, season), context in job["pages"]:
        count, rows = rows_of.get(f"{player}\x1f{season}", (0, ""))
        html = _TEMPLATES.get_template(template).render(
            **job["common"], **context, line_count=count, line_rows=Markup(rows), chart=chart_of.get((player, season)))
        if _write_if_changed(Path(path), html):
            written.append(path)
    return written


def feed_entries(con, organisation: str, limit: int = FEED_ENTRIES) -> pd.DataFrame:
    """What each run posted for each file of the organisation, newest first: award and reversal
    lines, players, the events' dates, and whether the run was a recomputation.

    The newest `limit` (run, file) pairs are found first, and only their lines are counted, not
    the ledger's (a two-year league's 800,000 lines: 60 -> 24 ms)."""
    return fetch(con, """
        with newest as (
            -- within a run, the files of the latest events first: a night (or a history) of more
            -- files than the feed holds keeps its newest results, not the alphabetically first
            select awards.run_id, runs.as_of, awards.source_file, max(awards.event_date) as latest_event
            from awards
            inner join runs on runs.run_id = awards.run_id
            where awards.organisation = $organisation
            group by all
            order by runs.as_of desc, awards.run_id desc, latest_event desc, awards.source_file desc
            limit $limit
        )
        select
            awards.run_id,
            cast(newest.as_of as varchar) as as_of,
            awards.source_file,
            cast(min(awards.event_date) as varchar) as first_date,
            cast(max(awards.event_date) as varchar) as last_date,
            count(*) filter (where awards.entry_type = 'award') as posted,
            count(*) filter (where awards.entry_type = 'reversal') as reversed,
            count(distinct awards.player_id) filter (where awards.entry_type = 'award') as players,
            awards.run_id in (select run_id from recomputations) as recomputed
        from awards
        inner join newest on newest.run_id = awards.run_id and newest.source_file = awards.source_file
        where awards.organisation = $organisation
        group by all
        order by as_of desc, awards.run_id desc, max(awards.event_date) desc, awards.source_file desc
        limit $limit
        """, {"organisation": organisation, "limit": limit})


def _feed_entry(row: dict, organisation: str, text: dict[str, str]) -> dict:
    kind = ("feed_recomputed" if row["recomputed"] else "feed_withdrawn" if row["posted"] == 0
            else "feed_corrected" if row["reversed"] else "feed_new")
    summary = text["feed_reversed" if row["reversed"] else "feed_posted"].format(
        posted=row["posted"], reversed=row["reversed"], players=row["players"])
    dates = row["first_date"] if row["first_date"] == row["last_date"] else f"{row['first_date']} – {row['last_date']}"
    return {
        # an entry's id: one run's lines of one file, the same whenever the feed is rewritten
        "id": uuid.uuid5(uuid.NAMESPACE_URL, f"pointledger:{organisation}:{row['run_id']}:{row['source_file']}").urn,
        "title": f"{text[kind]}: {row['source_file']} ({dates})",
        "as_of": row["as_of"], "summary": summary,
        # a correction links its own page (original, reversal, correction); new results the index
        "href": (f"{corrections.FOLDER}/{corrections.page_name(row['as_of'], row['source_file'], row['run_id'])}"
                 if row["reversed"] else "index.html"),
    }


def write_feed(con, org: pd.Series, out_dir: Path, text: dict[str, str], base_url: str | None = None) -> Path | None:
    """The organisation's Atom feed of new, corrected, withdrawn and recomputed results: one entry
    per run and file (the newest FEED_ENTRIES). Unlike every other page it is the ledger's history
    by design (a fresh run on the same inbox has one entry per file). Written for every organisation
    the run publishes, with no entry while nothing posted (`updated` then a fixed 1970-01-01, so a
    night that posts nothing rewrites nothing), so the index always links it. None: unchanged."""
    organisation = org["organisation"]
    rows = feed_entries(con, organisation)
    updated = rows["as_of"].max() if len(rows) else "1970-01-01"
    # a feed reader fetches the feed alone: with the office's publication_base_url its relative
    # links resolve against the organisation's folder where it is served (xml:base)
    xml_base = f"{base_url.rstrip('/')}/{organisation}/" if base_url else None
    xml = _TEMPLATES.get_template("feed.atom.j2").render(
        t=text, lang=org.get("language") or "en", organisation=org["display_name"], feed_name=FEED, xml_base=xml_base,
        feed_id=uuid.uuid5(uuid.NAMESPACE_URL, f"pointledger:{organisation}").urn, updated=updated,
        entries=[_feed_entry(r, organisation, text) for r in rows.to_dict("records")])
    path = out_dir / FEED
    return path if _write_if_changed(path, xml) else None


def _load_index(path: Path | None) -> dict | None:
    """The site's private cache of what it saw of an organisation's published pages: the folders
    with sub-folders (JSON) and, per page, its title, file stamp and the digest of its links
    (Parquet beside it: a federation has tens of thousands of pages). Missing or unreadable: {}
    (every page is read once and the cache written again)."""
    if path is None:
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("version") != _INDEX_VERSION:
            return {}
        table = pq.read_table(_pages_file(path)).to_pydict()
        keys = table.get("folder_key") or [""] * len(table["href"])  # (a cache written before the keys were kept)
        data["pages"] = {h: [t, s, d, k] for h, t, s, d, k in zip(table["href"], table["title"], table["stamp"],
                                                                 table["links"], keys)}
        return data
    except (OSError, ValueError, KeyError, pa.ArrowException):
        return {}


def _pages_file(path: Path) -> Path:
    return path.with_name(path.stem + ".pages.parquet")


def _save_index(path: Path | None, index: dict | None) -> None:
    if path is None or index is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    pages = index.get("pages", {})
    entries = list(pages.values())
    table = pa.table({"href": list(pages), "title": [e[0] for e in entries], "stamp": [e[1] for e in entries],
                      "links": [e[2] for e in entries], "folder_key": [e[3] for e in entries]})
    # written whole (a private cache: never compared); the pages first, so that a run killed
    # between the two writes leaves a folder list that sends every changed folder to be read
    tmp = path.with_name(f".{path.name}.pages.tmp")
    pq.write_table(table, tmp)
    os.replace(tmp, _pages_file(path))
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps({k: v for k, v in index.items() if k != "pages"}, ensure_ascii=False, separators=(",", ":")),
                   encoding="utf-8")
    os.replace(tmp, path)


@cache
def _notes_pattern(balances_heading: str) -> re.Pattern:
    # the notes block sits between the stamp line and the balances heading (player.html.j2)
    return re.compile(r'(<p class="stamp">[^\n]*</p>\n)(.*?)(<h2>' + re.escape(str(Markup.escape(balances_heading))) + '</h2>)',
                      re.S)


def refresh_notes(page: str, notes_html: str, text: dict[str, str]) -> str | None:
    """A player page (player.html.j2) with its notes block (player_lines.html.j2's notes_block,
    between the stamp and the balances) replaced by `notes_html`; None when the page does not have
    the expected shape (an older release's page): it is rendered whole."""
    found = _notes_pattern(text["balances"]).search(page)
    if found is None:
        return None
    return page[:found.start(2)] + notes_html + page[found.end(2):]


def _write_if_changed(path: Path, text: str) -> bool:
    """A night that changes nothing publishes nothing (the run reports what it wrote). A page of
    another size has changed: it is not read to be compared (most of a night's pages have new
    lines; reading each cost a tenth of a millisecond)."""
    data = text.encode("utf-8")
    try:
        size = os.stat(path).st_size
    except FileNotFoundError:
        size = None
    if size == len(data) and path.read_bytes() == data:
        return False
    replace_file(path, data)
    return True


def _replace_text(path: Path, text: str) -> None:
    replace_file(path, text.encode("utf-8"))


def publish_site_index(publications: Path, organisations: pd.DataFrame, data_dir: Path) -> Path | None:
    """publications/index.html: every organisation with a published index (None: unchanged)."""
    text = messages(data_dir, "en")
    orgs = [{"href": f"{o}/index.html", "name": row["display_name"], "id": o}
            for o, row in organisations.sort_index().iterrows() if (publications / o / "index.html").is_file()]
    page = publications / "index.html"
    # its texts are the English ones (the organisations' names keep their own writing)
    changed = _write_if_changed(page, _TEMPLATES.get_template("site_all.html.j2").render(t=text, organisations=orgs, lang="en"))
    return page if changed else None
