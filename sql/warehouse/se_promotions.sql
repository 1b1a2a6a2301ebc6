-- se_promotions
-- Grain: one row per member, track and run after which the member held a higher level than after
-- the member's previous run (se_level_changes, change = 'befordran'). first_time: a level never held
-- before, the pin and certificate the office sends ("Mästarnål och mästarbevis skickas till spelarens
-- klubb per automatik"); a level regained after a reversal is listed with first_time false (no second
-- pin). reached_on is the night (the run's date) the holdings met the level. A level skipped in one
-- night (two classes at once) is not listed: the pin is the level reached. Reversals are in
-- se_level_reversals, never dropped.
-- Inputs: se_level_changes. Parameters: none.
with

level_changes as (
    select * from se_level_changes
)

select
    member,
    name,
    club,
    level,
    reached_on,
    run_id,
    first_time,
    organisation,
    club_name,
    track,
    title,
    class_name,
    stars,
    previous_level,
    bp,
    sp,
    gp,
    rule_version
from level_changes
where change = 'befordran'
