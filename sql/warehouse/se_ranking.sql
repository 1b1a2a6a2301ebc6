-- se_ranking
-- Grain: one row per member with at least one counted ranking result (se_ranking_results) as of
-- the last run's date: the national ranking (seed section 7): the sum of the member's counted
-- results (best 18 of the last 24 months), how many were counted, the oldest counted result's
-- date; rank 1 is the highest, members with equal ranking points share a rank (rank()).
-- Inputs: se_ranking_results, se_members, se_clubs. Parameters: none.
with

ranking_results as (
    select * from se_ranking_results
),

members as (
    select * from se_members
),

clubs as (
    select * from se_clubs
),

totals as (
    select
        as_of,
        organisation,
        member,
        cast(sum(rp) as decimal(14, 2)) as ranking_points,
        count(*) as results_counted,
        min(event_date) as oldest_counted
    from ranking_results
    where counted
    group by as_of, organisation, member
)

select
    totals.as_of,
    rank() over (partition by totals.organisation order by totals.ranking_points desc) as rank,
    totals.member,
    members.name,
    members.club,
    totals.ranking_points,
    totals.results_counted,
    totals.oldest_counted,
    totals.organisation,
    clubs.name as club_name
from totals
left join members
    on members.member = totals.member
    and members.organisation = totals.organisation
left join clubs
    on clubs.club = members.club
    and clubs.organisation = totals.organisation
