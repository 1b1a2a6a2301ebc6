-- recomputations
-- Grain: one row per recomputation and organisation (`pointledger recompute`): why it ran (reason),
-- the date range it covered (null: all history), how many current file versions it re-derived,
-- the rule versions of the lines it reversed and of the lines it posted, the fingerprints of the
-- rule data before and after, and its line counts. Its lines are in `awards` under its run_id.
-- Inputs: lake_recomputations. Parameters: none.
with

lake_recomputations as (
    select * from internal.lake_recomputations
)

select
    recomputation_id,
    run_id,
    organisation,
    system,
    reason,
    date_from,
    date_to,
    files,
    rule_versions_before,
    rule_versions_after,
    rule_data_before,
    rule_data_after,
    lines_reversed,
    lines_posted
from lake_recomputations
