-- events
-- Grain: one row per scored event (a mahjong game, a bridge session...) of the current version
-- of its source file. Events of superseded file versions stay in the lake, not here.
with

lake_events as (
    select * from internal.lake_events
),

current_sources as (
    -- the version standing at each path; a lake row is of it when it has its content and was
    -- written by its run or later (sources.sql says why)
    select organisation, source_file, sha256, run_id as since_run_id from sources where is_current
)

select
    lake_events.event_id,
    lake_events.organisation,
    lake_events.system,
    lake_events.event_date,
    lake_events.kind,
    lake_events.source_file,
    lake_events.location,
    lake_events.source_sha256,
    lake_events.run_id
from lake_events
inner join current_sources
    on current_sources.organisation = lake_events.organisation
    and current_sources.source_file = lake_events.source_file
    and current_sources.sha256 = lake_events.source_sha256
    and lake_events.run_id >= current_sources.since_run_id
