-- se_club_fees
-- Grain: one row per club, month, level and form: the club fee charged per player and session
-- (speltillfälle) as the seed's table says (fees.csv), sessions weighted by boards
-- (session_weights.csv: a bronze event of fewer than 18 boards is half a session).
-- Inputs: se_result_rows, se_fee_rates, se_session_weights. Parameters: none.
with

results as (
    select * from se_result_rows
),

fee_rates as (
    select * from se_fee_rates
),

session_weights as (
    select * from se_session_weights
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

weighted as (
    select
        events.*,
        cast(split_part(session_weights.sessions, '/', 1) as decimal(10, 4))
            / cast(coalesce(nullif(split_part(session_weights.sessions, '/', 2), ''), '1') as decimal(10, 4)) as sessions,
        cast(fee_rates.sek_per_player_session as decimal(10, 2)) as rate
    from events
    join session_weights
        on session_weights.rule_version = events.rule_version
        and session_weights.level = events.level
        and events.boards >= cast(session_weights.boards_from as integer)
        and (session_weights.boards_to = '' or events.boards <= cast(session_weights.boards_to as integer))
    join fee_rates
        on fee_rates.rule_version = events.rule_version
        and fee_rates.level = events.level
        and fee_rates.form = events.form
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
from weighted
group by organisation, club, month, level, form
