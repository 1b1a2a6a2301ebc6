-- audit: reversal_mismatch
-- Must return no rows. A reversal that names no posted award line, reverses a line twice, or
-- does not exactly negate the points of the line it reverses.
with

lake_awards as (
    select * from internal.lake_awards
),

reversals as (
    select * from lake_awards where entry_type = 'reversal'
),

originals as (
    select * from lake_awards where entry_type = 'award'
)

select
    reversals.award_id,
    reversals.reverses_award_id,
    case
        when originals.award_id is null then 'reverses a line that was never posted'
        when count(*) over (partition by reversals.reverses_award_id) > 1 then 'reverses the same line twice'
        else 'points do not negate the original line'
    end as problem
from reversals
left join originals
    on originals.award_id = reversals.reverses_award_id
qualify originals.award_id is null
    or count(*) over (partition by reversals.reverses_award_id) > 1
    or reversals.points <> -originals.points
