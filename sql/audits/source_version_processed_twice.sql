-- audit: source_version_processed_twice
-- Must return no rows. The same content at the same path was processed by two runs: a file
-- posted twice.
with

lake_sources as (
    select * from lake_sources
)

select organisation, source_file, sha256, count(*) as times_processed
from lake_sources
group by organisation, source_file, sha256
having count(*) > 1
