-- quarantine
-- Grain: one rejected input record per run (run_id, source_file, location).
-- `is_open`: the problem still stands. For a file the run read, that is while the version it
-- quarantined is still the current version at its path (a corrected file resolves it; its own
-- new problems are rows of the run that read it). For a file refused unread (a link, a name,
-- an unknown organisation), it is while the latest run still reports it.
-- A file version held back whole (status quarantined: e.g. a match waiting for a member register
-- or its series file, an event file waiting for its result list) is resolved by the later run that
-- posted it unchanged (read again from the inbox) or posted the event it belongs to (the event id
-- is its path without the suffix): its problem no longer stands though the version is current.
-- A file held back because its event file is wrong ("held back until the event file X is
-- corrected", JCBL and Sweden) is resolved by the later run that read a version of X with no
-- problem of its own (none, or only "waiting for" its partner): then the file's own problems, if
-- any, are the ones that stand, as in a fresh run on the same inbox.
-- `resolved_by_run`: the run that read the later version of the file (or posted the held one, or
-- read its event file corrected).
with

lake_quarantine as (
    select * from internal.lake_quarantine
),

sources as (
    select * from sources
),

latest_run as (
    select max(run_id) as run_id from runs
),

later_posts as (
    -- the runs that posted each event, and the file version it came from
    select organisation, event_id, source_file, source_sha256, run_id
    from internal.lake_events
    group by all
),

versions as (
    select
        organisation,
        source_file,
        run_id,
        is_current,
        sha256,
        status,
        lead(run_id) over (partition by organisation, source_file order by run_id) as next_run_id
    from sources
),

held_back as (
    -- file versions a run quarantined whole
    select distinct
        lake_quarantine.organisation,
        lake_quarantine.source_file,
        lake_quarantine.run_id,
        versions.sha256
    from lake_quarantine
    inner join versions
        on versions.organisation = lake_quarantine.organisation
        and versions.source_file = lake_quarantine.source_file
        and versions.run_id = lake_quarantine.run_id
    where versions.status = 'quarantined'
),

held_then_posted as (
    -- the first later run that posted the held version itself (read again from the inbox), or
    -- the event the file belongs to (its path is the event id and a suffix: an event file that
    -- waited for its result list, posted the night the list arrived)
    select
        held_back.organisation,
        held_back.source_file,
        held_back.run_id as quarantined_in,
        min(later_posts.run_id) as run_id
    from held_back
    inner join later_posts
        on later_posts.organisation = held_back.organisation
        and later_posts.run_id > held_back.run_id
        and (
            (later_posts.source_file = held_back.source_file and later_posts.source_sha256 = held_back.sha256)
            or starts_with(held_back.source_file, later_posts.event_id || '.')
        )
    group by all
)

,

held_for_event_file as (
    -- whole-file rows of a file held back until its event file is corrected; the reason names it
    -- (its wording: pipelines/core/processing.py `held_for_event_file`)
    select
        run_id,
        organisation,
        source_file,
        reason,
        regexp_extract(reason, '^held back until the event (?:settings )?file (.+?) is corrected \(', 1) as event_file
    from lake_quarantine
    where location = 'whole file'
        and reason like 'held back until the event %'
),

own_problems as (
    -- the runs that found a problem of a file's own (not only waiting for its partner file)
    select distinct organisation, source_file, run_id
    from lake_quarantine
    where not starts_with(reason, 'waiting for ')
),

event_file_corrected as (
    -- the first later run that read a version of that event file with no problem of its own
    select
        held_for_event_file.run_id as quarantined_in,
        held_for_event_file.organisation,
        held_for_event_file.source_file,
        held_for_event_file.reason,
        min(versions.run_id) as run_id
    from held_for_event_file
    inner join versions
        on versions.organisation = held_for_event_file.organisation
        and versions.source_file = held_for_event_file.event_file
        and versions.run_id > held_for_event_file.run_id
    left join own_problems
        on own_problems.organisation = versions.organisation
        and own_problems.source_file = versions.source_file
        and own_problems.run_id = versions.run_id
    where own_problems.run_id is null
    group by all
)

select
    lake_quarantine.run_id,
    lake_quarantine.organisation,
    lake_quarantine.source_file,
    lake_quarantine.location,
    lake_quarantine.reason,
    lake_quarantine.record,
    case
        when versions.run_id is not null
            then versions.is_current and held_then_posted.run_id is null and event_file_corrected.run_id is null
        else lake_quarantine.run_id = latest_run.run_id
    end as is_open,
    coalesce(versions.next_run_id, held_then_posted.run_id, event_file_corrected.run_id) as resolved_by_run
from lake_quarantine
cross join latest_run
left join versions
    on versions.organisation = lake_quarantine.organisation
    and versions.source_file = lake_quarantine.source_file
    and versions.run_id = lake_quarantine.run_id
left join held_then_posted
    on held_then_posted.organisation = lake_quarantine.organisation
    and held_then_posted.source_file = lake_quarantine.source_file
    and held_then_posted.quarantined_in = lake_quarantine.run_id
left join event_file_corrected
    on event_file_corrected.organisation = lake_quarantine.organisation
    and event_file_corrected.source_file = lake_quarantine.source_file
    and event_file_corrected.quarantined_in = lake_quarantine.run_id
    and event_file_corrected.reason = lake_quarantine.reason
