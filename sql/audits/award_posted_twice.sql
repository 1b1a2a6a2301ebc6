-- audit: award_posted_twice
-- Must return no rows. A ledger line id appears more than once (a line posted twice).
with

lake_awards as (
    select * from internal.lake_awards
)

select award_id, count(*) as times_posted
from lake_awards
group by award_id
having count(*) > 1
