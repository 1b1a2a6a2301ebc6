-- audit: source_version_processed_twice
-- Must return no rows. A path whose content was processed again while unchanged (two consecutive
-- records of the path with the same content): a file posted twice. Putting back an earlier
-- version (X → Y → X) is a correction, not a repeat, and is allowed; so is a recomputation.
with

lake_sources as (
    select * from internal.lake_sources
),

sequenced as (
    select
        organisation,
        source_file,
        sha256,
        run_id,
        supersedes_sha256,
        lag(sha256) over (partition by organisation, source_file order by run_id) as previous_sha256,
        lag(status) over (partition by organisation, source_file order by run_id) as previous_status
    from lake_sources
)

select organisation, source_file, sha256, run_id
from sequenced
where sha256 = previous_sha256
    -- a duplicate read again because the content it duplicated no longer stands is not a repeat
    and previous_status <> 'duplicate'
    -- a recomputation re-derives a version under new rule data: it names its own content as the
    -- one it replaces (and posts only the difference)
    and supersedes_sha256 is distinct from sha256
