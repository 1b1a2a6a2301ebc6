-- bridge_sessions
-- Grain: one row per session of a bridge event (event_id, session), current file versions only:
-- the heading of a notice board (name, movement, scoring, entrants, boards, scales).
with

lake_bridge_sessions as (
    select * from internal.lake_bridge_sessions
),

current_sources as (
    -- the version standing at each path; a lake row is of it when it has its content and was
    -- written by its run or later (sources.sql says why)
    select organisation, source_file, sha256, run_id as since_run_id from sources where is_current
),

current_sessions as (
    select lake_bridge_sessions.*
    from lake_bridge_sessions
    inner join current_sources
        on current_sources.organisation = lake_bridge_sessions.organisation
        and current_sources.source_file = lake_bridge_sessions.source_file
        and current_sources.sha256 = lake_bridge_sessions.source_sha256
    and lake_bridge_sessions.run_id >= current_sources.since_run_id
)

select
    organisation,
    event_id,
    session,
    session_event_id,
    event_date,
    event_name,
    movement,
    scoring,
    winner_type,
    sections,
    entrants,
    boards,
    traveller_lines,
    adjusted_lines,
    mp_scale,
    vp_scale,
    source_file,
    source_sha256,
    run_id
from current_sessions
