-- se_series_standings
-- Grain: one row per Swedish team series per night (each date a match of the series was played)
-- per team that has played by that night: matches, won / drawn / lost, VP after penalties and the
-- team's masterpoints to date (walkovers count as matches with their VP, no points).
-- Inputs: se_series_matches (current match versions). Parameters: none.
-- Place by VP (highest first); equal VP share a place here (the organiser's tie-break is not in
-- the match files; the final standings file gives the final places).
with

matches as (
    select * from se_series_matches
),

team_rows as (
    select series, date, home as team, home_vp as vp, result, home_points as points, denomination from matches
    union all
    select series, date, away as team, away_vp as vp, away_result as result, away_points as points, denomination from matches
),

nights as (
    select distinct series, date as night from team_rows
),

to_date as (
    select
        nights.series,
        nights.night,
        team_rows.team,
        any_value(team_rows.denomination) as denomination,
        count(*) as matches,
        count(*) filter (where team_rows.result = 'won') as won,
        count(*) filter (where team_rows.result = 'drawn') as drawn,
        count(*) filter (where team_rows.result = 'lost') as lost,
        sum(team_rows.vp) as vp,
        sum(team_rows.points) as points
    from nights
    inner join team_rows
        on team_rows.series = nights.series
        and team_rows.date <= nights.night
    group by nights.series, nights.night, team_rows.team
)

select
    series,
    night,
    rank() over (partition by series, night order by vp desc) as place,
    team,
    matches,
    won,
    drawn,
    lost,
    vp,
    points,
    denomination
from to_date
order by series, night, place, team
