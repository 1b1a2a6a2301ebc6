-- quarantine
-- Grain: one rejected input record per run (run_id, source_file, location).
with

lake_quarantine as (
    select * from lake_quarantine
)

select
    run_id,
    organisation,
    source_file,
    location,
    reason,
    record
from lake_quarantine
