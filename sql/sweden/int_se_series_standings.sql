-- int_se_series_standings
-- Grain: one row per series per night (each date a match of the series was played) per team that
--   has played by that night.
-- Inputs (registered by the caller from pipelines/sweden/series.team_points):
--   se_series_team_points(series_id, match_id, date, team, result, own_vp, points): one row per team
--   per match; own_vp (VP after penalties) and points (team masterpoints) as exact decimal text.
-- Parameters: $series_id (a series id, or null for every series).
-- Place by VP after penalties as of the night (highest first); equal VP share a place here: the
-- organiser's tie-break is not in the match files (the seed breaks team ties, it does not say how).
with

team_points as (
    select
        series_id,
        match_id,
        cast(date as date) as date,
        team,
        result,
        cast(own_vp as decimal(18, 4)) as own_vp,
        cast(points as decimal(18, 4)) as points
    from se_series_team_points
    where $series_id is null or series_id = $series_id
),

nights as (
    select distinct series_id, date as night from team_points
),

to_date as (
    select
        n.series_id,
        n.night,
        t.team,
        count(*) as matches,
        count(*) filter (where t.result = 'won') as won,
        count(*) filter (where t.result = 'drawn') as drawn,
        count(*) filter (where t.result = 'lost') as lost,
        sum(t.own_vp) as vp,
        sum(t.points) as points
    from nights as n
    inner join team_points as t
        on t.series_id = n.series_id and t.date <= n.night
    group by n.series_id, n.night, t.team
)

select
    series_id,
    night,
    rank() over (partition by series_id, night order by vp desc) as place,
    team,
    matches,
    won,
    drawn,
    lost,
    vp,
    points
from to_date
order by series_id, night, place, team
