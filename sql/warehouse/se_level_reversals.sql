-- se_level_reversals
-- Grain: one row per member, track and run after which the member's holdings no longer met the
-- level held after the previous run (a corrected or withdrawn list, a recomputation): the level
-- lost, the level now held (null: none), the night and the run. A pin already sent is not taken
-- back by the pipeline; the office decides. (Reaching the level again is a row of se_promotions
-- with first_time false.)
-- Inputs: se_level_changes. Parameters: none.
with

level_changes as (
    select * from se_level_changes
)

select
    member,
    name,
    club,
    previous_level as level_lost,
    level as level_now,
    reached_on as changed_on,
    run_id,
    organisation,
    club_name,
    track,
    bp,
    sp,
    gp,
    rule_version
from level_changes
where change = 'återgång'
