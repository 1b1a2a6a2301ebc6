-- board_results
-- Grain: one row per traveller line (event_id, session, section, round, board, ns_pair) of the
-- current version of its source file: the contract, its Law 77 score for North-South, and its
-- matchpoints (pairs; on the organisation's scale, Neuberg-factored where a board has fewer
-- results) or IMPs (IMP pairs: cross-IMP average or against the Butler datum; teams: against the
-- other room). mp_* and imp_ns are rounded half-up to 2 places for display; exact values are
-- mp_ns_x / mp_den (2/1/0 scale) and imp_ns_x / imp_den.
with

lake_bridge_board_results as (
    select * from internal.lake_bridge_board_results
),

current_sources as (
    -- the version standing at each path; a lake row is of it when it has its content and was
    -- written by its run or later (sources.sql says why)
    select organisation, source_file, sha256, run_id as since_run_id from sources where is_current
),

current_lines as (
    select lake_bridge_board_results.*
    from lake_bridge_board_results
    inner join current_sources
        on current_sources.organisation = lake_bridge_board_results.organisation
        and current_sources.source_file = lake_bridge_board_results.source_file
        and current_sources.sha256 = lake_bridge_board_results.source_sha256
    and lake_bridge_board_results.run_id >= current_sources.since_run_id
)

select
    event_id,
    session,
    section,
    board,
    ns_pair,
    ew_pair,
    contract,
    declarer,
    tricks,
    score_ns,
    mp_ns,
    mp_ew,
    imp_ns,
    organisation,
    event_date,
    round,
    level,
    strain,
    doubled,
    vulnerable,
    dealer,
    stated_score_ns,
    law77_score_ns,
    deal,
    par,
    adjusted,
    adj_ns_pct,
    adj_ew_pct,
    scoring,
    mp_top,
    results_on_board,
    neuberg,
    butler_datum,
    mp_den,
    mp_top_x,
    mp_ns_x,
    mp_ew_x,
    imp_den,
    imp_ns_x,
    location,
    source_file,
    source_sha256,
    run_id
from current_lines
