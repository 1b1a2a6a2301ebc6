-- balances
-- Grain: one row per (organisation, player_id, season, denomination): the sum of the ledger.
with

awards as (
    select * from awards
)

select
    organisation,
    player_id,
    season,
    denomination,
    cast(sum(points) as decimal(14, 2)) as points,
    count(*) filter (where entry_type = 'award') - count(*) filter (where entry_type = 'reversal') as award_lines
from awards
group by organisation, player_id, season, denomination
