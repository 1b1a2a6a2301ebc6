-- se_series_matches
-- Grain: one row per match of a Swedish team series, current version of each match file only
-- (a corrected match replaces its row; X -> Y -> X as in se_results): round, date, teams, VP after
-- penalties, the home team's result (won / drawn / lost / walkover), the team points of each side
-- (exact to 2 decimals; a walkover has none) in the series' denomination, and the members of each
-- side who played at least one half (the club fee's players; none in a walkover).
-- Inputs: lake_se_series_matches, sources. Parameters: none.
with

lake_matches as (
    select * from internal.lake_se_series_matches
),

current_sources as (
    select organisation, source_file, sha256, run_id as since_run_id from sources where is_current
),

current_matches as (
    -- a match file is posted again when its series file arrives late: its latest row stands
    select lake_matches.*
    from lake_matches
    inner join current_sources
        on current_sources.organisation = lake_matches.organisation
        and current_sources.source_file = lake_matches.source_file
        and current_sources.sha256 = lake_matches.source_sha256
        and lake_matches.run_id >= current_sources.since_run_id
    qualify row_number() over (partition by lake_matches.match_id order by lake_matches.run_id desc) = 1
)

select
    series,
    series_id,
    organisation,
    match_id,
    round,
    event_date as date,
    "table",
    division,
    boards,
    home,
    away,
    home_vp,
    away_vp,
    result,
    away_result,
    home_points,
    away_points,
    denomination,
    home_players,
    away_players,
    source_file
from current_matches
