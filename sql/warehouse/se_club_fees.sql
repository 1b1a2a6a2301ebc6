-- se_club_fees
-- Grain: one row per club, month, level and form: the club fee charged per player and session
-- (speltillfälle) as the seed's table says (fees.csv), sessions weighted by boards
-- (session_weights.csv: a bronze event of fewer than 18 boards is half a session). Team-series
-- matches are charged too, form 'lag', to the organising club (the club folder of the series) in
-- the month of the match: each match played (not a walkover) is a session by its boards
-- (team_session_weights.csv: at least 24 boards 1, 12-23 a half, 6-11 a quarter), for each member
-- who played at least one half; a gold series (G1, G3: "En guldtävling är ett speltillfälle") is one
-- session per player of the series, in the month of its final standings. The level of a series
-- is its table's (series_levels.csv).
-- Inputs: se_result_rows, se_series_matches, se_series_final_places, se_clubs, se_rule_versions,
-- se_fee_rates, se_session_weights, se_series_levels, se_team_session_weights. Parameters: none.
with

results as (
    select * from se_result_rows
),

series_matches as (
    select * from se_series_matches
),

series_finals as (
    select * from se_series_final_places
),

clubs as (
    select * from se_clubs
),

rule_versions as (
    select rule_version, cast(effective_from as date) as effective_from from se_rule_versions
),

fee_rates as (
    select * from se_fee_rates
),

session_weights as (
    select * from se_session_weights
),

series_levels as (
    select * from se_series_levels
),

team_session_weights as (
    select * from se_team_session_weights
),

events as (
    select
        organisation,
        club,
        event_id,
        strftime(event_date, '%Y-%m') as month,
        level,
        form,
        rule_version,
        max(boards) as boards,
        sum(len(members)) as players
    from results
    group by all
),

event_rows as (
    -- each result list's sessions by its boards (session_weights.csv)
    select
        events.organisation,
        events.club,
        events.month,
        events.level,
        events.form,
        session_weights.sessions,
        events.players,
        events.rule_version
    from events
    join session_weights
        on session_weights.rule_version = events.rule_version
        and session_weights.level = events.level
        and events.boards >= cast(session_weights.boards_from as integer)
        and (session_weights.boards_to = '' or events.boards <= cast(session_weights.boards_to as integer))
),

played_matches as (
    -- a walkover is not played: no session, no players
    select
        series_matches.organisation,
        coalesce(clubs.club, split_part(series_matches.series, '/', 2)) as club,
        strftime(series_matches.date, '%Y-%m') as month,
        series_matches."table",
        series_matches.boards,
        series_matches.home_players + series_matches.away_players as players,
        rule_versions.rule_version
    from series_matches
    asof join rule_versions
        on series_matches.date >= rule_versions.effective_from
    left join clubs
        on clubs.organisation = series_matches.organisation
        and clubs.slug = split_part(series_matches.series, '/', 2)
    where series_matches.result <> 'walkover'
),

finished_series as (
    -- a gold series is one session per player, charged when its final standings are posted
    select
        series_finals.series,
        series_finals.organisation,
        coalesce(clubs.club, split_part(series_finals.series, '/', 2)) as club,
        strftime(series_finals.final_date, '%Y-%m') as month,
        series_finals."table",
        sum(series_finals.players) as players,
        rule_versions.rule_version
    from series_finals
    asof join rule_versions
        on series_finals.final_date >= rule_versions.effective_from
    left join clubs
        on clubs.organisation = series_finals.organisation
        and clubs.slug = split_part(series_finals.series, '/', 2)
    group by all
),

team_rows as (
    select
        played_matches.organisation,
        played_matches.club,
        played_matches.month,
        series_levels.level,
        'lag' as form,
        played_matches.players,
        team_session_weights.sessions,
        played_matches.rule_version
    from played_matches
    join series_levels
        on series_levels.rule_version = played_matches.rule_version
        and series_levels."table" = played_matches."table"
    join team_session_weights
        on team_session_weights.rule_version = played_matches.rule_version
        and team_session_weights.level = series_levels.level
        and team_session_weights.per = 'match'
        and played_matches.boards >= cast(team_session_weights.boards_from as integer)
        and (team_session_weights.boards_to = '' or played_matches.boards <= cast(team_session_weights.boards_to as integer))
    union all
    select
        finished_series.organisation,
        finished_series.club,
        finished_series.month,
        series_levels.level,
        'lag' as form,
        finished_series.players,
        team_session_weights.sessions,
        finished_series.rule_version
    from finished_series
    join series_levels
        on series_levels.rule_version = finished_series.rule_version
        and series_levels."table" = finished_series."table"
    join team_session_weights
        on team_session_weights.rule_version = finished_series.rule_version
        and team_session_weights.level = series_levels.level
        and team_session_weights.per = 'competition'
),

charged as (
    -- the sessions ('1', '1/2', '1/4' in the tables) as a number, at the fee of the level and form
    select
        sessions_of.organisation,
        sessions_of.club,
        sessions_of.month,
        sessions_of.level,
        sessions_of.form,
        cast(split_part(sessions_of.sessions, '/', 1) as decimal(10, 4))
            / cast(coalesce(nullif(split_part(sessions_of.sessions, '/', 2), ''), '1') as decimal(10, 4)) as sessions,
        sessions_of.players,
        cast(fee_rates.sek_per_player_session as decimal(10, 2)) as rate
    from (select * from event_rows union all by name select * from team_rows) as sessions_of
    join fee_rates
        on fee_rates.rule_version = sessions_of.rule_version
        and fee_rates.level = sessions_of.level
        and fee_rates.form = sessions_of.form
)

select
    organisation,
    club,
    month,
    level,
    form,
    cast(sum(sessions) as decimal(10, 2)) as sessions,
    cast(sum(players * sessions) as decimal(12, 2)) as player_sessions,
    cast(sum(players * sessions * rate) as decimal(14, 2)) as amount_sek
from charged
group by organisation, club, month, level, form
