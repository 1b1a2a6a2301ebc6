-- awards
-- Grain: one ledger line (award_id). Append-only: a correction adds `reversal` lines with negated
-- points that name the line they reverse; nothing is ever edited or deleted.
with

lake_awards as (
    select * from internal.lake_awards
)

select
    award_id,
    run_id,
    organisation,
    system,
    event_id,
    event_date,
    player_id,
    denomination,
    points,
    rule_version,
    basis,
    season,
    entry_type,
    reverses_award_id,
    source_file,
    source_sha256,
    location,
    posted_on
from lake_awards
