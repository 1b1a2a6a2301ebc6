-- se_results
-- Grain: one row per entrant per competition (an event, or one Mitchell direction or division of
-- it) of the current version of each Swedish result list: place as published ("3=" for a tie),
-- field size, member numbers and names (from the member register), and the bp, sp and gp each of
-- its players received (mp = gp + sp / 10 + bp / 100), and the ranking points (rp) each got for it
-- (seed section 7, on the unrounded award; rp_basis shows how; null in results scored before).
-- Inputs: se_result_rows, se_members, se_clubs. Parameters: none.
with

result_rows as (
    select * from se_result_rows
),

members as (
    select * from se_members
),

clubs as (
    select * from se_clubs
),

exploded as (
    select
        event_id,
        organisation,
        competition,
        entrant,
        unnest(members) as member,
        generate_subscripts(members, 1) as position
    from result_rows
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
    result_rows.event_id,
    result_rows.organisation,
    result_rows.event_date,
    result_rows.club,
    clubs.name as club_name,
    result_rows.event_name,
    result_rows.level,
    result_rows.form,
    result_rows.competition,
    result_rows.field_size,
    result_rows.boards,
    result_rows.place,
    result_rows.place_label,
    result_rows.entrant,
    result_rows.members,
    named.names,
    result_rows.bp,
    result_rows.sp,
    result_rows.gp,
    result_rows.mp,
    result_rows.rp,
    result_rows.rp_basis,
    result_rows.rp_players,
    result_rows.bridge_week,
    result_rows.final,
    result_rows.overall_first_place,
    result_rows.rule_version,
    result_rows.source_file,
    result_rows.location
from result_rows
left join named
    on named.event_id = result_rows.event_id
    and named.competition = result_rows.competition
    and named.entrant = result_rows.entrant
left join clubs
    on clubs.club = result_rows.club
    and clubs.organisation = result_rows.organisation
