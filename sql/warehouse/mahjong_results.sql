-- mahjong_results
-- Grain: one row per player per game (event_id, player_id), current file versions only.
with

lake_mahjong_results as (
    select * from internal.lake_mahjong_results
),

current_sources as (
    -- the version standing at each path; a lake row is of it when it has its content and was
    -- written by its run or later (sources.sql says why)
    select organisation, source_file, sha256, run_id as since_run_id from sources where is_current
)

select lake_mahjong_results.*
from lake_mahjong_results
inner join current_sources
    on current_sources.organisation = lake_mahjong_results.organisation
    and current_sources.source_file = lake_mahjong_results.source_file
    and current_sources.sha256 = lake_mahjong_results.source_sha256
    and lake_mahjong_results.run_id >= current_sources.since_run_id
