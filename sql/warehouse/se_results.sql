-- se_results
-- Grain: one row per entrant per competition (an event, or one Mitchell direction or division of
-- it) of the current version of each Swedish result list: place as published ("3=" for a tie),
-- field size, member numbers and names (from the member register), and the bp, sp and gp each of
-- its players received (mp = gp + sp / 10 + bp / 100), and the ranking points (rp) each got for it
-- (seed section 7, on the unrounded award; rp_basis shows how; null in results scored before).
-- Inputs: lake_se_results, sources, se_members, se_clubs. Parameters: none.
with

lake_results as (
    select * from internal.lake_se_results
),

current_sources as (
    -- the version standing at each path; a lake row is of it when it has its content and was
    -- written by its run or later (X -> Y -> X: the first X's rows are not the current X's; sources.sql)
    select organisation, source_file, sha256, run_id as since_run_id from sources where is_current
),

members as (
    select * from se_members
),

clubs as (
    select * from se_clubs
),

current_results as (
    select lake_results.*
    from lake_results
    inner join current_sources
        on current_sources.organisation = lake_results.organisation
        and current_sources.source_file = lake_results.source_file
        and current_sources.sha256 = lake_results.source_sha256
        and lake_results.run_id >= current_sources.since_run_id
),

exploded as (
    select
        event_id,
        organisation,
        competition,
        entrant,
        unnest(string_split(members, ' ')) as member,  -- the lake keeps the file's space-separated text
        generate_subscripts(string_split(members, ' '), 1) as position
    from current_results
),

named as (
    select
        exploded.event_id,
        exploded.competition,
        exploded.entrant,
        list(coalesce(members.name, exploded.member || ' (gäst)') order by exploded.position) as names
    from exploded
    left join members
        on members.member = exploded.member
        and members.organisation = exploded.organisation
    group by all
)

select
    current_results.event_id,
    current_results.organisation,
    current_results.event_date,
    current_results.club,
    clubs.name as club_name,
    current_results.event_name,
    current_results.level,
    current_results.form,
    current_results.competition,
    current_results.field_size,
    current_results.boards,
    current_results.place,
    current_results.place_label,
    current_results.entrant,
    string_split(current_results.members, ' ') as members,
    named.names,
    current_results.bp,
    current_results.sp,
    current_results.gp,
    cast(current_results.gp + current_results.sp / 10 + current_results.bp / 100 as decimal(14, 2)) as mp,
    current_results.rp,
    current_results.rp_basis,
    current_results.rp_players,
    current_results.rule_version,
    current_results.source_file,
    current_results.location
from current_results
left join named
    on named.event_id = current_results.event_id
    and named.competition = current_results.competition
    and named.entrant = current_results.entrant
left join clubs
    on clubs.club = current_results.club
    and clubs.organisation = current_results.organisation
