-- se_result_rows
-- Grain: one row per entrant per competition (an event, or one Mitchell direction or division of
-- it) of the current version of each Swedish result list: se_results without the names and the
-- club's name. What reads results by the thousand (the club fees, the national ranking, the
-- events that stand) reads these rows: naming the members of a whole history (se_results) costs
-- more than the rest of such a query.
-- Inputs: lake_se_results, sources. Parameters: none.
with

lake_results as (
    select * from internal.lake_se_results
),

current_sources as (
    -- the version standing at each path; a lake row is of it when it has its content and was
    -- written by its run or later (X -> Y -> X: the first X's rows are not the current X's; sources.sql)
    select organisation, source_file, sha256, run_id as since_run_id from sources where is_current
),

current_results as (
    select lake_results.*
    from lake_results
    inner join current_sources
        on current_sources.organisation = lake_results.organisation
        and current_sources.source_file = lake_results.source_file
        and current_sources.sha256 = lake_results.source_sha256
        and lake_results.run_id >= current_sources.since_run_id
)

select
    event_id,
    organisation,
    event_date,
    club,
    event_name,
    level,
    form,
    competition,
    field_size,
    boards,
    place,
    place_label,
    entrant,
    string_split(members, ' ') as members,  -- the lake keeps the file's space-separated text
    bp,
    sp,
    gp,
    cast(gp + sp / 10 + bp / 100 as decimal(14, 2)) as mp,
    rp,
    rp_basis,
    rp_players,
    bridge_week,
    final,
    overall_first_place,
    rule_version,
    source_file,
    location
from current_results
