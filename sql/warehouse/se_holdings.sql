-- se_holdings
-- Grain: one row per member with Swedish ledger lines (holdings are national: one balance per
-- member across all clubs), as of the last run: bp, sp, gp (reversals included) and
-- mp = gp + sp / 10 + bp / 100; name and home club from the member register.
-- Inputs: awards, se_members, se_clubs. Parameters: none.
with

awards as (
    select * from awards where system = 'sweden'
),

members as (
    select * from se_members
),

clubs as (
    select * from se_clubs
),

totals as (
    select
        organisation,
        player_id as member,
        cast(coalesce(sum(points) filter (where denomination = 'bp'), 0) as decimal(14, 2)) as bp,
        cast(coalesce(sum(points) filter (where denomination = 'sp'), 0) as decimal(14, 2)) as sp,
        cast(coalesce(sum(points) filter (where denomination = 'gp'), 0) as decimal(14, 2)) as gp
    from awards
    group by organisation, player_id
    -- a member whose every line was reversed (a list corrected away) holds nothing: no row, as in
    -- a fresh run on the current files
    having count(*) filter (where entry_type = 'award') > count(*) filter (where entry_type = 'reversal')
)

select
    totals.organisation,
    totals.member,
    members.name,
    members.club,
    clubs.name as club_name,
    totals.bp,
    totals.sp,
    totals.gp,
    cast(totals.gp + totals.sp / 10 + totals.bp / 100 as decimal(14, 2)) as mp
from totals
left join members
    on members.member = totals.member
    and members.organisation = totals.organisation
left join clubs
    on clubs.club = members.club
    and clubs.organisation = totals.organisation
