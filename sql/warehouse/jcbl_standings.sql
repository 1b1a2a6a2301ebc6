-- jcbl_standings
-- Grain: one row per entrant (event_id, unit, entrant) of the current version of each JCBL
-- standings file: its place as published ("3=" for a tie), its players, and the RP and BP each
-- of its players received for that entry (MP = RP + BP). A player who played in a team and in a
-- pair of one event (SRR&Pairs) has a row for each entry; the ledger line adds them up.
with

lake_jcbl_standings as (
    select * from internal.lake_jcbl_standings
),

current_sources as (
    -- the version standing at each path; a lake row is of it when it has its content and was
    -- written by its run or later (sources.sql says why)
    select organisation, source_file, sha256, run_id as since_run_id from sources where is_current
),

event_kinds as (
    select * from jcbl_event_kinds
),

current_standings as (
    select lake_jcbl_standings.*
    from lake_jcbl_standings
    inner join current_sources
        on current_sources.organisation = lake_jcbl_standings.organisation
        and current_sources.source_file = lake_jcbl_standings.source_file
        and current_sources.sha256 = lake_jcbl_standings.source_sha256
    and lake_jcbl_standings.run_id >= current_sources.since_run_id
),

ranked as (
    select
        *,
        count(*) over (partition by organisation, event_id, unit, flight, rank) > 1 as tied
    from current_standings
)

select
    ranked.event_id,
    ranked.organisation,
    ranked.event_date,
    ranked.event_name,
    ranked.kind,
    coalesce(event_kinds.label, ranked.kind) as kind_label,
    ranked.rule_version,
    ranked.unit,
    ranked.flight,
    ranked.field_size,
    ranked.entrant,
    ranked.rank,
    cast(ranked.rank as varchar) || case when ranked.tied then '=' else '' end as rank_label,
    list_filter(string_split(coalesce(ranked.players, ''), ' '), lambda x: x <> '') as players,  -- the lake keeps the file's text
    ranked.session_1_pct,
    ranked.session_2_pct,
    ranked.winning_vp,
    ranked.match_vps,
    ranked.rp,
    ranked.bp,
    cast(ranked.rp + ranked.bp as decimal(12, 2)) as mp,
    ranked.source_file,
    ranked.source_sha256,
    ranked.settings_file,
    ranked.settings_sha256,
    ranked.location,
    ranked.run_id
from ranked
left join event_kinds
    on event_kinds.rule_version = ranked.rule_version
    and event_kinds.kind = ranked.kind
