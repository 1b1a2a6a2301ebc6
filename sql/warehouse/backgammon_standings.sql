-- backgammon_standings
-- Grain: one row per (organisation, season, as_of, player_id): the club master points race of a club's
-- season as of a month end. One snapshot per month of the season (as_of = the month's last day)
-- up to the month of the club's latest event; months before a season's first event have no rows.
-- Everything comes from the ledger: an award line counts +1 event and its matches won, a
-- reversal −1 and minus its matches won, so a corrected file changes the race exactly as it
-- changes the ledger. Matches won are those of the result row behind each line (same file
-- version, written by the run that posted the line). Ties on points share a rank (rank_label
-- '3='). Exact DECIMAL sums, no division.
with

awards as (
    select * from awards where system = 'backgammon' and denomination = 'club_mp'
),

lake_backgammon_results as (
    select * from internal.lake_backgammon_results
),

clubs as (
    select * from backgammon_clubs
),

posting_runs as (
    -- the run that wrote the result row behind each line: an award line's own run, a reversal
    -- the run of the line it reverses (a file put back, X -> Y -> X, has X's rows of two runs)
    select
        awards.award_id,
        coalesce(reversed.run_id, awards.run_id) as posting_run_id
    from awards
    left join awards as reversed
        on reversed.award_id = awards.reverses_award_id
),

ledger_lines as (
    select
        awards.organisation as club,
        awards.season,
        awards.event_id,
        awards.event_date,
        awards.player_id as player,
        awards.points,
        case awards.entry_type when 'award' then 1 else -1 end as line_sign,
        coalesce(results.matches_won, 0) as matches_won
    from awards
    inner join posting_runs
        on posting_runs.award_id = awards.award_id
    left join lake_backgammon_results as results
        on results.organisation = awards.organisation
        and results.run_id = posting_runs.posting_run_id
        and results.source_file = awards.source_file
        and results.source_sha256 = awards.source_sha256
        and results.event_id = awards.event_id
        and results.player_id = awards.player_id
),

standing_events as (
    -- events with lines in force (not every line reversed)
    select club, season, event_id, min(event_date) as event_date
    from ledger_lines
    group by club, season, event_id
    having sum(line_sign) > 0
),

club_span as (
    select club, max(event_date) as last_event
    from standing_events
    group by club
),

seasons as (
    select
        standing_events.club,
        clubs.club_name,
        standing_events.season,
        make_date(cast(left(standing_events.season, 4) as integer), clubs.season_start_month, 1) as season_start
    from standing_events
    inner join clubs
        on clubs.organisation = standing_events.club
    group by all
),

snapshots as (
    select
        seasons.club,
        seasons.club_name,
        seasons.season,
        seasons.season_start,
        cast(last_day(month_start) as date) as as_of
    from seasons
    inner join club_span
        on club_span.club = seasons.club
    cross join unnest(
        generate_series(
            cast(seasons.season_start as timestamp),
            cast(least(seasons.season_start + interval 11 month, date_trunc('month', club_span.last_event)) as timestamp),
            interval 1 month
        )
    ) as months(month_start)
),

player_totals as (
    select
        snapshots.club,
        snapshots.club_name,
        snapshots.season,
        snapshots.as_of,
        ledger_lines.player,
        cast(sum(ledger_lines.line_sign) as bigint) as events,
        cast(sum(ledger_lines.line_sign * ledger_lines.matches_won) as bigint) as matches_won,
        cast(sum(ledger_lines.points) as decimal(14, 2)) as points,
        cast(
            coalesce(sum(ledger_lines.points) filter (where ledger_lines.event_date >= date_trunc('month', snapshots.as_of)), 0)
            as decimal(14, 2)
        ) as points_this_month
    from snapshots
    inner join ledger_lines
        on ledger_lines.club = snapshots.club
        and ledger_lines.season = snapshots.season
        and ledger_lines.event_date <= snapshots.as_of
    group by all
    having sum(ledger_lines.line_sign) > 0
),

ranked as (
    select
        *,
        rank() over (partition by club, season, as_of order by points desc) as rank,
        count(*) over (partition by club, season, as_of, points) > 1 as tied
    from player_totals
)

select
    club as organisation,
    season,
    as_of,
    rank,
    player as player_id,
    events,
    matches_won,
    points,
    cast(rank as varchar) || case when tied then '=' else '' end as rank_label,
    points_this_month,
    club_name
from ranked
