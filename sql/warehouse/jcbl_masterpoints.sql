-- jcbl_masterpoints
-- Grain: one row per (organisation, player_id, season) in which the player has JCBL award lines
-- standing (not reversed).
-- rp and bp are the season's net ledger (reversal lines included), mp = rp + bp, and
-- lifetime_mp = the mp of every season of the organisation up to and including this one.
-- Seasons are the labels the award lines carry ("2024-25": April 2024 – March 2025 by default,
-- the organisation's season_start_month), which sort in time order.
with

awards as (
    select * from awards where system = 'jcbl'
),

seasons as (
    select
        organisation,
        player_id,
        season,
        cast(coalesce(sum(points) filter (where denomination = 'RP'), 0) as decimal(14, 2)) as rp,
        cast(coalesce(sum(points) filter (where denomination = 'BP'), 0) as decimal(14, 2)) as bp
    from awards
    group by organisation, player_id, season
    -- a season whose every line was reversed (its files corrected away) has no row
    having count(*) filter (where entry_type = 'award') > count(*) filter (where entry_type = 'reversal')
)

select
    organisation,
    player_id,
    season,
    rp,
    bp,
    cast(rp + bp as decimal(14, 2)) as mp,
    cast(
        sum(rp + bp) over (
            partition by organisation, player_id order by season
            rows between unbounded preceding and current row
        ) as decimal(14, 2)
    ) as lifetime_mp
from seasons
