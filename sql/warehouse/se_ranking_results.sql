-- se_ranking_results
-- Grain: one row per member and result with ranking points (a Swedish result list entry of the
-- member, rp > 0) dated on or before the as-of date: the national ranking's results (seed section 7)
-- as of the last run's date, each marked counted (one of the member's best `results` within the
-- window) or why not (expired: older than `months` months; beyond the best `results`). A result
-- exactly `months` months old still counts. Recomputed every night from the run date: results
-- expire without any new input.
-- A member counts a result only where the ledger holds silver or gold for the member from that
-- event (a reserve who played too little got nothing, and gets no ranking points either).
-- A finished team series (its final standings posted) is one result per player, dated at its last
-- match, on the points the player played (no bonus; lake se_series_ranking, current file version).
-- Inputs: se_result_rows, awards, lake_se_series_ranking, sources, se_members, runs,
-- se_ranking_parameters. Parameters: none (the as-of date is the last run's, the window and count
-- the rule version in effect on it).
with

results as (
    select * from se_result_rows
),

members as (
    select * from se_members
),

lake_series_ranking as (
    select * from internal.lake_se_series_ranking
),

current_sources as (
    select organisation, source_file, sha256, run_id as since_run_id from sources where is_current
),

awarded as (
    -- the members the ledger gives silver or gold from each event (reversals included)
    select organisation, event_id, player_id as member
    from awards
    where system = 'sweden' and denomination in ('sp', 'gp')
    group by organisation, event_id, player_id
    having sum(points) > 0
),

runs as (
    select * from runs
),

ranking_parameters as (
    select
        rule_version,
        cast(effective_from as date) as effective_from,
        cast(months as integer) as months,
        cast(results as integer) as results
    from se_ranking_parameters
),

as_of as (
    select cast(arg_max(as_of, run_id) as date) as as_of from runs
),

window_rule as (
    select as_of.as_of, ranking_parameters.rule_version, ranking_parameters.months, ranking_parameters.results
    from as_of
    inner join ranking_parameters
        on ranking_parameters.effective_from <= as_of.as_of
    qualify row_number() over (order by ranking_parameters.effective_from desc) = 1
),

member_results as (
    select
        results.organisation,
        results.event_id,
        results.event_date,
        results.event_name,
        results.level,
        results.club as event_club,
        results.competition,
        results.place_label,
        results.sp,
        results.gp,
        results.rp,
        results.rp_basis,
        results.entrant,
        unnest(results.members) as member
    from results
    where results.rp > 0
),

part_time as (
    -- a barometer player paid for part of the matches: the rp of that part ("member=rp" pairs)
    select organisation, event_id, competition, entrant, split_part(pair, '=', 1) as member,
           cast(split_part(pair, '=', 2) as decimal(14, 2)) as rp
    from (
        select organisation, event_id, competition, entrant, unnest(string_split(rp_players, ' ')) as pair
        from results
        where coalesce(rp_players, '') <> ''
    )
),

list_results as (
    select member_results.* exclude (entrant) replace (coalesce(part_time.rp, member_results.rp) as rp)
    from member_results
    inner join awarded
        on awarded.member = member_results.member
        and awarded.event_id = member_results.event_id
        and awarded.organisation = member_results.organisation
    left join part_time
        on part_time.organisation = member_results.organisation
        and part_time.event_id = member_results.event_id
        and part_time.competition = member_results.competition
        and part_time.entrant = member_results.entrant
        and part_time.member = member_results.member
),

series_results as (
    -- the current version of each final standings file: a corrected final replaces its rows
    select
        lake_series_ranking.organisation,
        lake_series_ranking.series as event_id,
        lake_series_ranking.event_date,
        lake_series_ranking.series_id as event_name,
        'serie ' || lake_series_ranking."table" as level,
        lake_series_ranking.club as event_club,
        lake_series_ranking.series as competition,
        cast(lake_series_ranking.place as varchar) as place_label,
        lake_series_ranking.sp,
        lake_series_ranking.gp,
        lake_series_ranking.rp,
        lake_series_ranking.rp_basis,
        lake_series_ranking.member
    from lake_series_ranking
    inner join current_sources
        on current_sources.organisation = lake_series_ranking.organisation
        and current_sources.source_file = lake_series_ranking.source_file
        and current_sources.sha256 = lake_series_ranking.source_sha256
        and lake_series_ranking.run_id >= current_sources.since_run_id
    where lake_series_ranking.rp > 0
    qualify row_number() over (partition by lake_series_ranking.series, lake_series_ranking.member
                               order by lake_series_ranking.run_id desc) = 1
),

all_results as (
    select * from list_results
    union all by name
    select * from series_results
),

dated as (
    select
        all_results.*,
        window_rule.as_of,
        window_rule.results as best_of,
        all_results.event_date >= cast(window_rule.as_of - to_months(window_rule.months) as date) as in_window
    from all_results
    cross join window_rule
    inner join members
        on members.member = all_results.member
        and members.organisation = all_results.organisation
    where all_results.event_date <= window_rule.as_of
),

ordered as (
    select
        *,
        case when in_window
            then row_number() over (partition by organisation, member, in_window
                                    order by rp desc, event_date desc, event_id, competition)
        end as best_position
    from dated
)

select
    as_of,
    organisation,
    member,
    event_id,
    event_date,
    event_name,
    level,
    event_club,
    competition,
    place_label,
    sp,
    gp,
    rp,
    rp_basis,
    in_window and best_position <= best_of as counted,
    case
        when not in_window then 'äldre än fönstret'
        when best_position > best_of then 'utanför de ' || best_of || ' bästa'
    end as not_counted_reason,
    best_position
from ordered
