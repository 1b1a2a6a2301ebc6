"""The mahjong league as a rule system of the nightly run (see pipelines/core/system.py)."""
from __future__ import annotations

import functools
from pathlib import Path

import pandas as pd
import pyarrow as pa

from pipelines.core.dates import month_keys
from pipelines.core.parallel import map_chunks, workers
from pipelines.core.sql import query, scratch
from pipelines.core.text import concat
from pipelines.core.system import RunContext, SourceFile, SystemBatch
from pipelines.mahjong import calendar
from pipelines.mahjong.parse import (EXPECTED_CONTENT, decode, empty_orphans, empty_results,
                                     empty_yakuman, parse_csv, parse_texts)
from pipelines.mahjong.rules import LeagueRules, load_league_rules
from pipelines.mahjong.validate import GAME_KEY, validate_games
from schemas.common import empty_frame
from schemas.ledger import AwardDraft, EventRecord, QuarantineDraft
from schemas.mahjong import MahjongResult

DENOMINATION = "league"
TEXT_LINES_PER_CHUNK = 200_000  # the text posts' lines parsed together (a year of a league: about 400,000)


def _parse_sources(sources: list[SourceFile]) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Parse the batch: all text posts in one vectorised pass, each CSV file on its own."""
    texts, results, yakuman, orphans = [], [], [], []
    for source in sources:  # per file: decoding only
        text, problem = decode(source.read())
        if text is None:
            orphans.append(pd.DataFrame({"source_file": [source.source_file], "line_no": [0], "raw": [None], "problem": [problem]}))
        elif source.source_file.lower().endswith(".csv"):
            r, y, o = parse_csv(source.source_file, text)
            results.append(r)
            yakuman.append(y)
            orphans.append(o)
        else:
            texts.append((source.source_file, text))
    # a backlog's chunks (bounded memory each) are parsed by both cores (pipelines/core/parallel.py)
    chunks = list(_chunks(texts, lines=TEXT_LINES_PER_CHUNK))
    for r, y, o in map_chunks(parse_texts, chunks, workers() if len(chunks) > 1 else 1):
        results.append(r)
        yakuman.append(y)
        orphans.append(o)
    # game keys are numbered per parse call: make them unique across the batch
    offset = 0
    for i, (r, y) in enumerate(zip(results, yakuman)):
        results[i] = r.assign(game_key=r["game_key"] + offset)
        yakuman[i] = y.assign(game_key=y["game_key"] + offset)
        offset += int(r["game_key"].max()) + 1 if len(r) else 0

    def stack(frames, empty):
        frames = [f for f in frames if len(f)]
        return pd.concat(frames, ignore_index=True) if frames else empty

    results = stack(results, empty_results())
    orphans = stack(orphans, empty_orphans())
    # A file that yields no game and no problem is not posted empty: nothing in it was found.
    found = set(results["source_file"].unique()) | set(orphans["source_file"].unique())  # distinct first: a backlog has a million rows
    nothing = [s.source_file for s in sources if s.source_file not in found]
    if nothing:
        orphans = pd.concat([orphans, pd.DataFrame({
            "source_file": nothing, "line_no": 0, "raw": None,
            "problem": f"no results found: expected {EXPECTED_CONTENT}"})], ignore_index=True)
    return results, stack(yakuman, empty_yakuman()), orphans


def _chunks(texts: list[tuple[str, str]], lines: int):
    chunk, size = [], 0
    for item in texts:
        chunk.append(item)
        size += item[1].count("\n") + 1
        if size >= lines:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


def _first_rule(rules: LeagueRules) -> tuple[str, str]:
    """(rule version, ISO date) of the league's first rule version: the start of its date window."""
    versions = rules.rule_versions.assign(start=pd.to_datetime(rules.rule_versions["effective_from"].astype("string")))
    first = versions.sort_values("start").iloc[0]
    return str(first["rule_version"]), first["start"].strftime("%Y-%m-%d")


def _with_places(valid: pd.DataFrame) -> pd.DataFrame:
    """The place that earns placing points: the posted rank, else the order of scores."""
    by_score = valid.groupby(GAME_KEY)["score"].rank(method="first", ascending=False)
    return valid.assign(place=valid["rank"].where(valid["rank_given"], by_score).astype(int))


def _results_table(valid: pd.DataFrame, yakuman: pd.DataFrame, organisation: str, sha_of: dict, run_id: str) -> pd.DataFrame:
    yak = yakuman.groupby(GAME_KEY + ["player_id"]).agg(
        yakuman=("line_no", "size"), yakuman_names=("yakuman_name", lambda s: "・".join(n for n in s if n))
    ).reset_index()
    rows = valid.merge(yak, on=GAME_KEY + ["player_id"], how="left")
    return rows.assign(
        event_id=concat(rows["source_file"], "#", rows["game_seq"].astype(int)),
        organisation=organisation,
        event_date=rows["event_date"].dt.date,
        game_no=rows["game_seq"].astype(int),
        player_name=rows["player_raw"].str.strip(),
        yakuman=rows["yakuman"].fillna(0).astype(int),
        yakuman_names=rows["yakuman_names"].fillna(""),
        source_sha256=rows["source_file"].map(sha_of),
        location=concat("line ", rows["line_no"].astype(int), index=rows.index),
        run_id=run_id,
    )


def _awards(results: pd.DataFrame, rules: LeagueRules, org: pd.Series) -> pd.DataFrame:
    rows = results.reset_index(drop=True)
    con = scratch()
    try:
        needed = ["game_key", "event_date", "place", "rank_given", "player_id", "score", "yakuman", "yakuman_names"]
        batch = pa.Table.from_pandas(rows[needed].assign(row_id=rows.index), preserve_index=False)
        con.register("batch_results", batch)
        con.register("mahjong_rule_versions", rules.rule_versions)
        con.register("mahjong_placing_points", rules.placing_points)
        points = query(con, "mahjong/int_mahjong_game_points", {"ruleset": org["ruleset"]})
    finally:
        con.close()
    points = points.set_index("row_id").sort_index()
    lines = rows.assign(rule_version=points["rule_version"], points=points["points"], basis=points["basis"])
    return lines.assign(
        system="mahjong",
        denomination=DENOMINATION,
        location=concat("lines ", lines["first_line"].astype(int), "–", lines["last_line"].astype(int)),
    )[list(AwardDraft.to_schema().columns)]


@functools.lru_cache(maxsize=32)
def _calendar_tables(organisation: str, league: str, scheme: tuple) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(periods, snapshots) of a league's calendar: eighty years of periods, the same every night
    while its scheme is (made once per process, not once per run; callers get copies)."""
    scheme = pd.Series(dict(scheme))
    periods = calendar.periods(scheme, organisation, league)
    return periods, calendar.snapshots(periods, int(scheme["months_per_period"]))


class MahjongSystem:
    # its events are published inside period pages (the site links a player's lines to them)
    publishes_periods = True
    name = "mahjong"
    accepted_suffixes = (".txt", ".csv")
    expected_content = EXPECTED_CONTENT
    lake_tables = {"mahjong_results": MahjongResult}
    warehouse_sql = ["warehouse/mahjong_results", "warehouse/mahjong_leaderboard"]

    def check_settings(self, data_dir: Path, org: pd.Series) -> None:
        """The league's rule, calendar and alias tables, checked before the run reads anything."""
        load_league_rules(data_dir, org)

    def rules(self, ctx: RunContext, org: pd.Series) -> LeagueRules:
        return load_league_rules(ctx.data_dir, org)

    def process(self, ctx: RunContext, org: pd.Series, sources: list[SourceFile], active: pd.DataFrame,
                superseded: set[str]) -> SystemBatch:
        organisation = org["organisation"]
        rules = self.rules(ctx, org)
        sha_of = {s.source_file: s.sha256 for s in sources}
        results, yakuman, orphans = _parse_sources(sources)

        months = set(month_keys(results["event_date"]).dropna().unique())
        history = ctx.lake.read("mahjong_results", MahjongResult, organisation, months)
        history = history.merge(active, on=["source_file", "source_sha256"])
        history = history[~history["source_file"].isin(superseded)]
        line = pd.to_numeric(history["location"].str.extract(r"(\d+)")[0])
        span = history.assign(line=line).groupby("event_id").agg(
            fingerprint=("fingerprint", "first"), source_file=("source_file", "first"), first=("line", "min"), last=("line", "max")
        )
        history = span.assign(location="lines " + span["first"].astype(str) + "–" + span["last"].astype(str)).reset_index()

        valid, valid_yakuman, quarantined = validate_games(
            results, yakuman,
            aliases=rules.aliases,
            seasons_of=lambda dates: calendar.season_of(dates, rules.seasons),
            game_total=int(org["game_total"]),
            as_of=ctx.as_of,
            history=history,
            first_rule=_first_rule(rules),
        )
        del results, yakuman
        valid = _with_places(valid)
        table = _results_table(valid, valid_yakuman, organisation, sha_of, ctx.run_id)
        awards = _awards(table, rules, org) if len(table) else empty_frame(AwardDraft)

        # a game's first row stands for its event (game keys and event ids are one to one; the
        # integers are deduplicated, not the ids' text); the award lines are the table's rows in
        # its order, so the first row's line carries the event's location
        first = ~table["game_key"].duplicated().to_numpy()
        events = table[first].assign(system="mahjong", kind="mahjong_game", location=awards["location"].to_numpy()[first])
        events = events[[c for c in EventRecord.to_schema().columns if c != "run_id"]]

        quarantine = pd.concat(
            [
                quarantined,
                orphans.assign(
                    location=("line " + orphans["line_no"].astype("string")).where(orphans["line_no"].astype(int) > 0, "whole file"),
                    reason=orphans["problem"], record=orphans["raw"],
                )[list(QuarantineDraft.to_schema().columns)],
            ],
            ignore_index=True,
        )
        posted = table.groupby("source_file")["event_id"].nunique()
        rejected = quarantine.groupby("source_file").size()
        records = pd.DataFrame({"source_file": [s.source_file for s in sources]}).assign(
            records_posted=lambda f: f["source_file"].map(posted).fillna(0).astype(int),
            records_quarantined=lambda f: f["source_file"].map(rejected).fillna(0).astype(int),
        )
        return SystemBatch(
            events=events,
            awards=awards,
            quarantine=quarantine,
            records=records,
            tables={"mahjong_results": table[list(MahjongResult.to_schema().columns)]},
        )

    # -- warehouse, publications, explain: see publish.py ---------------------------------------
    def warehouse_tables(self, ctx: RunContext, org: pd.Series) -> dict[str, pd.DataFrame]:
        """Small data tables the warehouse views join: periods, snapshots, rule versions."""
        rules = self.rules(ctx, org)
        scheme = rules.period_scheme.iloc[0]
        periods, snapshots = _calendar_tables(org["organisation"], org["display_name"], tuple(scheme.items()))
        return {"mahjong_periods": periods.copy(), "mahjong_snapshots": snapshots.copy(),
                "mahjong_rule_versions": rules.rule_versions}

    def publish(self, ctx, con, org, affected_months: set[str], out_dir: Path) -> list[Path]:
        from pipelines.mahjong.publish import publish_league

        scheme = self.rules(ctx, org).period_scheme.iloc[0]
        # the months with award lines, read off the lake's partition folders (no data read)
        played = {path.parent.name.removeprefix("month=") for path in ctx.lake.committed_files("awards", org["organisation"])}
        return publish_league(con, org, affected_months, out_dir, played, scoped=ctx.scoped, scheme=scheme)

    def explain(self, con, player_id: str, event_id: str | None) -> list[str]:
        from pipelines.mahjong.publish import explain_leaderboard

        return explain_leaderboard(con, player_id)


SYSTEM = MahjongSystem()
