-- session_standings
-- Grain: one row per entrant of a pairs session (event_id, session, section, direction, entrant),
-- current file versions only. score: matchpoints (scoring MP; max_score and percentage =
-- score / max_score, half-up to 2 places from the exact totals) or IMPs (XIMP, BUTLER; no
-- maximum). rank: competition ranking (1, 2, 2, 4) within the section, NS and EW separately in a
-- two-winner movement (direction '' in a one-winner movement); rank_label marks shared places
-- ('2='). player_ids, player_names: the pair's national ids and names, as lists.
with

lake_bridge_session_standings as (
    select * from internal.lake_bridge_session_standings
),

current_sources as (
    -- the version standing at each path; a lake row is of it when it has its content and was
    -- written by its run or later (sources.sql says why)
    select organisation, source_file, sha256, run_id as since_run_id from sources where is_current
),

current_standings as (
    select lake_bridge_session_standings.*
    from lake_bridge_session_standings
    inner join current_sources
        on current_sources.organisation = lake_bridge_session_standings.organisation
        and current_sources.source_file = lake_bridge_session_standings.source_file
        and current_sources.sha256 = lake_bridge_session_standings.source_sha256
    and lake_bridge_session_standings.run_id >= current_sources.since_run_id
)

select
    event_id,
    session,
    section,
    direction,
    entrant,
    -- the lake keeps the files' joined text; analysts get lists
    list_filter(string_split(coalesce(player_ids, ''), ';'), lambda x: x <> '') as player_ids,
    score,
    max_score,
    percentage,
    rank,
    rank_label,
    organisation,
    event_date,
    list_filter(string_split(coalesce(player_names, ''), '; '), lambda x: x <> '') as player_names,
    ranked_entrants,
    boards,
    scoring,
    score_x,
    max_x,
    score_den,
    handicap,
    handicap_percentage,
    handicap_rank,
    handicap_rank_label,
    scorer_master_points,
    source_file,
    source_sha256,
    run_id
from current_standings
