-- mahjong_leaderboard
-- Grain: one row per (league, period, as_of, player_id): a month-end snapshot of a ranking period.
-- Games and points come from the ledger (award lines count +1 game, reversals −1), so a
-- corrected post changes the leaderboard exactly as it changes the ledger.
-- Bonus: +bonus_points_per_step for every full bonus_games_step games above min_games, under the
-- rule version in force at the period start. Average = (points + bonus) / games, half-up to 3
-- decimals (at most 3) in exact integer arithmetic (div_half_up). Ties on the average share a rank.
with

awards as (
    select * from awards where system = 'mahjong' and denomination = 'league'
),

snapshots as (
    select * from mahjong_snapshots
),

rule_versions as (
    select * from mahjong_rule_versions
),

standing_games as (
    -- games with lines in force: a game whose every line was reversed (its post corrected away)
    -- opens no snapshot
    select organisation, event_id, min(event_date) as event_date
    from awards
    group by organisation, event_id
    having sum(case entry_type when 'award' then 1 else -1 end) > 0
),

league_span as (
    select organisation, min(event_date) as first_game, max(event_date) as last_game
    from standing_games
    group by organisation
),

open_snapshots as (
    -- month-ends of periods the league has played in, up to the month of its latest game
    select snapshots.*
    from snapshots
    inner join league_span
        on league_span.organisation = snapshots.organisation
    where snapshots.period_end >= league_span.first_game
        and date_trunc('month', snapshots.as_of) <= league_span.last_game
),

player_totals as (
    select
        open_snapshots.organisation,
        open_snapshots.league,
        open_snapshots.period,
        open_snapshots.period_name,
        open_snapshots.period_start,
        open_snapshots.period_end,
        open_snapshots.as_of,
        awards.player_id as player,
        cast(sum(case awards.entry_type when 'award' then 1 else -1 end) as bigint) as games,
        cast(sum(awards.points) as decimal(14, 2)) as points
    from open_snapshots
    inner join awards
        on awards.organisation = open_snapshots.organisation
        and awards.event_date between open_snapshots.period_start and open_snapshots.as_of
    group by all
    having sum(case awards.entry_type when 'award' then 1 else -1 end) > 0
),

versioned as (
    select
        player_totals.*,
        rule_versions.rule_version,
        rule_versions.min_games,
        rule_versions.bonus_games_step,
        rule_versions.bonus_points_per_step,
        rule_versions.average_decimals
    from player_totals
    asof join rule_versions
        on player_totals.period_start >= rule_versions.effective_from
),

scored as (
    select
        *,
        games >= min_games as eligible,
        cast(
            case
                when bonus_games_step > 0 and games >= min_games
                    then ((games - min_games) // bonus_games_step) * bonus_points_per_step
                else 0
            end as decimal(14, 2)
        ) as bonus
    from versioned
),

averaged as (
    select
        *,
        cast(points + bonus as decimal(14, 2)) as total,
        -- (total / games) rounded half-up to `average_decimals` (≤ 3) in integer thousandths:
        -- total is in hundredths, one unit of rounding is 10^(3 − d) thousandths
        cast(
            cast(
                div_half_up(cast((points + bonus) * 100 as bigint) * 10, games * cast(pow(10, 3 - average_decimals) as bigint))
                * cast(pow(10, 3 - average_decimals) as bigint)
                as decimal(18, 0)
            ) * 0.001
            as decimal(12, 3)
        ) as average
    from scored
)

select
    organisation,
    league,
    period,
    period_name,
    period_start,
    period_end,
    as_of,
    case when eligible then rank() over (partition by organisation, period, as_of, eligible order by average desc) end as rank,
    player as player_id,
    games,
    points,
    bonus,
    total,
    average,
    eligible,
    greatest(min_games - games, 0) as games_needed,
    min_games,
    rule_version
from averaged
