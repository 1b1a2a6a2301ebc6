-- team_matches
-- Grain: one row per team per match (event_id, session, round, team), current file versions
-- only. imps_for / imps_against: the IMPs each side won, converted per board and summed; vp on
-- the organisation's victory-point scale (vp_scale), winner and loser adding up to the maximum.
with

lake_bridge_team_matches as (
    select * from internal.lake_bridge_team_matches
),

current_sources as (
    -- the version standing at each path; a lake row is of it when it has its content and was
    -- written by its run or later (sources.sql says why)
    select organisation, source_file, sha256, run_id as since_run_id from sources where is_current
),

current_matches as (
    select lake_bridge_team_matches.*
    from lake_bridge_team_matches
    inner join current_sources
        on current_sources.organisation = lake_bridge_team_matches.organisation
        and current_sources.source_file = lake_bridge_team_matches.source_file
        and current_sources.sha256 = lake_bridge_team_matches.source_sha256
    and lake_bridge_team_matches.run_id >= current_sources.since_run_id
)

select
    event_id,
    round,
    team,
    opponent,
    imps_for,
    imps_against,
    vp,
    organisation,
    event_date,
    session,
    team_name,
    opponent_name,
    -- the lake keeps the files' joined text; analysts get lists
    list_filter(string_split(coalesce(player_ids, ''), ';'), lambda x: x <> '') as player_ids,
    list_filter(string_split(coalesce(player_names, ''), '; '), lambda x: x <> '') as player_names,
    boards,
    imp_margin,
    vp_scale,
    source_file,
    source_sha256,
    run_id
from current_matches
