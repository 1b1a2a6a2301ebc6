-- se_level_changes
-- Grain: one row per member, track and run after which the member's level on that track differs
-- from the level after the member's previous run (se_levels): `change` is 'befordran' (a higher
-- level: a pin is due) or 'återgång' (a lower one, or none: holdings fell after a correction or a
-- recomputation; the pin was sent, the office decides). `first_time`: the level was never held
-- before (a level reached again after a reversal sends no second pin).
-- Inputs: se_levels, se_master_classes, se_members, se_clubs. Parameters: none.
with

levels as (
    select * from se_levels
),

master_classes as (
    select rule_version, level, class_name, cast(stars as integer) as stars, title from se_master_classes
),

members as (
    select * from se_members
),

clubs as (
    select * from se_clubs
),

sequenced as (
    select
        levels.*,
        lag(levels.rank) over nights as previous_rank,
        lag(levels.level) over nights as previous_level,
        max(levels.rank) over (partition by levels.organisation, levels.member, levels.track order by levels.run_id
                               rows between unbounded preceding and 1 preceding) as best_rank_before
    from levels
    window nights as (partition by levels.organisation, levels.member, levels.track order by levels.run_id)
),

changes as (
    select
        *,
        case when coalesce(rank, 0) > coalesce(previous_rank, 0) then 'befordran' else 'återgång' end as change
    from sequenced
    where coalesce(rank, 0) <> coalesce(previous_rank, 0)
)

select
    changes.organisation,
    changes.member,
    members.name,
    members.club,
    clubs.name as club_name,
    changes.track,
    changes.change,
    changes.level,
    master_classes.title,
    master_classes.class_name,
    master_classes.stars,
    changes.previous_level,
    changes.night as reached_on,
    changes.run_id,
    changes.change = 'befordran' and coalesce(changes.rank, 0) > coalesce(changes.best_rank_before, 0) as first_time,
    changes.bp,
    changes.sp,
    changes.gp,
    changes.rule_version
from changes
left join master_classes
    on master_classes.rule_version = changes.rule_version
    and master_classes.level = changes.level
left join members
    on members.member = changes.member
    and members.organisation = changes.organisation
left join clubs
    on clubs.club = members.club
    and clubs.organisation = changes.organisation
