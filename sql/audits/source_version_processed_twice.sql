-- audit: source_version_processed_twice
-- Must return no rows. A path whose content was processed again while unchanged (two consecutive
-- records of the path with the same content): a file posted twice. Putting back an earlier
-- version (X → Y → X) is a correction, not a repeat, and is allowed.
with

lake_sources as (
    select * from lake_sources
),

sequenced as (
    select
        organisation,
        source_file,
        sha256,
        run_id,
        lag(sha256) over (partition by organisation, source_file order by run_id) as previous_sha256,
        lag(status) over (partition by organisation, source_file order by run_id) as previous_status
    from lake_sources
)

select organisation, source_file, sha256, run_id
from sequenced
where sha256 = previous_sha256
    -- a duplicate read again because the content it duplicated no longer stands is not a repeat
    and previous_status <> 'duplicate'
