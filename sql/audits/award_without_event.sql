-- audit: award_without_event
-- Must return no rows. An award line whose event (from the same file version) was never stored:
-- every point must be traceable to a result.
with

lake_awards as (
    select * from internal.lake_awards where entry_type = 'award'
),

lake_events as (
    select * from internal.lake_events
)

select lake_awards.award_id, lake_awards.event_id, lake_awards.source_file
from lake_awards
left join lake_events
    on lake_events.event_id = lake_awards.event_id
    and lake_events.source_sha256 = lake_awards.source_sha256
where lake_events.event_id is null
