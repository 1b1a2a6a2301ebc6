-- se_series_final_places
-- Grain: one row per team of each Swedish team series whose final standings file is posted
-- (current version of the file only; X -> Y -> X as in se_results): final place, the team's
-- record over the whole series (from se_series_standings on the series' last night) and the
-- final-place awards its players got (bonus by place B2/B3/Swiss, G1, G3 20 %, E7 to gold), summed
-- over the players, per denomination, and the team's members who played in the series (a gold
-- series' club fee).
-- Inputs: lake_se_series_finals, sources, se_series_standings. Parameters: none.
with

lake_finals as (
    select * from internal.lake_se_series_finals
),

current_sources as (
    select organisation, source_file, sha256, run_id as since_run_id from sources where is_current
),

standings as (
    select * from se_series_standings
),

current_finals as (
    -- a final standings file sent again (a correction) replaces its rows
    select lake_finals.*
    from lake_finals
    inner join current_sources
        on current_sources.organisation = lake_finals.organisation
        and current_sources.source_file = lake_finals.source_file
        and current_sources.sha256 = lake_finals.source_sha256
        and lake_finals.run_id >= current_sources.since_run_id
    qualify row_number() over (partition by lake_finals.series, lake_finals.team order by lake_finals.run_id desc) = 1
),

last_night as (
    select *
    from standings
    qualify night = max(night) over (partition by series)
)

select
    current_finals.series,
    current_finals.series_id,
    current_finals.organisation,
    current_finals.event_date as final_date,
    current_finals."table",
    current_finals.division,
    current_finals.place,
    current_finals.team,
    last_night.matches,
    last_night.won,
    last_night.drawn,
    last_night.lost,
    last_night.vp,
    last_night.points as match_points,
    last_night.denomination,
    current_finals.bonus_bp,
    current_finals.bonus_sp,
    current_finals.bonus_gp,
    current_finals.players,
    current_finals.source_file
from current_finals
left join last_night
    on last_night.series = current_finals.series
    and last_night.team = current_finals.team
order by current_finals.series, current_finals.place
