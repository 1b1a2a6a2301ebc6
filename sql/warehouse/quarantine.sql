-- quarantine
-- Grain: one rejected input record per run (run_id, source_file, location).
-- `is_open`: the problem still stands. For a file the run read, that is while the version it
-- quarantined is still the current version at its path (a corrected file resolves it; its own
-- new problems are rows of the run that read it). For a file refused unread (a link, a name,
-- an unknown organisation), it is while the latest run still reports it.
-- `resolved_by_run`: the run that read the later version of the file, when resolved.
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

versions as (
    select
        organisation,
        source_file,
        run_id,
        is_current,
        lead(run_id) over (partition by organisation, source_file order by run_id) as next_run_id
    from sources
)

select
    lake_quarantine.run_id,
    lake_quarantine.organisation,
    lake_quarantine.source_file,
    lake_quarantine.location,
    lake_quarantine.reason,
    lake_quarantine.record,
    case
        when versions.run_id is not null then versions.is_current
        else lake_quarantine.run_id = latest_run.run_id
    end as is_open,
    versions.next_run_id as resolved_by_run
from lake_quarantine
cross join latest_run
left join versions
    on versions.organisation = lake_quarantine.organisation
    and versions.source_file = lake_quarantine.source_file
    and versions.run_id = lake_quarantine.run_id
