-- balances
-- Grain: one row per (organisation, player_id, season, denomination) with award lines standing
-- (award_lines > 0): the sum of the ledger. A player whose every line was reversed (their file was
-- corrected away) has no balance, as in a fresh run on the corrected files.
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
having count(*) filter (where entry_type = 'award') > count(*) filter (where entry_type = 'reversal')
