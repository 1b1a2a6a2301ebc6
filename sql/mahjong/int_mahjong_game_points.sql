-- int_mahjong_game_points
-- Grain: one row per player per game (row_id: one per player per game), for the games of this batch.
-- Inputs (registered by pipelines/mahjong/system.py): batch_results (valid games, `place` set,
--   `game_key` an integer per game, `row_id` an integer per row),
--   mahjong_rule_versions, mahjong_placing_points (data/rules/mahjong/).
-- Parameters: $ruleset.
-- The rule version in force on the game's date decides every component.
with

results as (
    select * from batch_results
),

rule_versions as (
    select * from mahjong_rule_versions where ruleset = $ruleset
),

placing_points as (
    select * from mahjong_placing_points where ruleset = $ruleset
),

versioned as (
    select
        results.*,
        rule_versions.rule_version,
        rule_versions.bust_below,
        rule_versions.bust_points,
        rule_versions.bust_applies_to,
        rule_versions.sankoro_second_below,
        rule_versions.sankoro_top_points,
        rule_versions.sankoro_second_points,
        rule_versions.yakuman_points
    from results
    asof join rule_versions
        on results.event_date >= rule_versions.effective_from
),

-- Aggregates joined back, not windows over every row: the second's score of each game, and the
-- players tied on a score in the games posted without ranks (a few; only there is a place shared).
-- Both read batch_results itself: DuckDB holds a CTE that is read more than once in memory whole
-- (the `results` import read three times cost 170 MB on 800,000 rows). For the same reason the
-- pool of a shared place stays a window: as a join it would read by_place twice.
seconds as (
    select game_key, max(score) as second_score
    from batch_results
    where place = 2
    group by game_key
),

ties as (
    select game_key, score, count(*) as tied_players
    from batch_results
    where game_key in (select game_key from batch_results where not rank_given)
    group by game_key, score
),

placed as (
    select
        versioned.*,
        placing_points.points as place_points,
        coalesce(ties.tied_players, 1) as tied_players,
        seconds.second_score
    from versioned
    inner join placing_points
        on placing_points.rule_version = versioned.rule_version
        and placing_points.place = versioned.place
    left join seconds
        on seconds.game_key = versioned.game_key
    left join ties
        on ties.game_key = versioned.game_key
        and ties.score = versioned.score
),

by_place as (
    -- every component that depends on the place (placing, 3-koro, a 4th-only bust)
    select
        *,
        case
            when second_score < sankoro_second_below and place = 1 then sankoro_top_points
            when second_score < sankoro_second_below and place = 2 then sankoro_second_points
            else 0
        end as sankoro,
        case
            when score < bust_below and (bust_applies_to = 'all' or place = 4) then bust_points
            else 0
        end as bust,
        yakuman * yakuman_points as yakuman_bonus
    from placed
),

shared as (
    -- Players tied on score where the post gives no rank share the place-dependent points of
    -- the places they occupy equally, half-up to 0.01 (pipelines/mahjong/rules.py ROUNDING).
    select
        *,
        not rank_given and tied_players > 1 as shares_places,
        sum(place_points + sankoro + bust) over (partition by game_key, score) as pooled
    from by_place
),

final as (
    select
        *,
        cast(
            case
                when shares_places
                    then cast(div_half_up(cast(pooled * 100 as bigint), tied_players) as decimal(18, 0)) * 0.01
                else place_points + sankoro + bust
            end
            + yakuman_bonus
            as decimal(12, 2)
        ) as points
    from shared
)

select
    row_id,
    rule_version,
    points,
    case
        when shares_places then
            ['1st', '2nd', '3rd', '4th'][place] || '= (tied on ' || score || ' with ' || (tied_players - 1)
            || ' other' || case when tied_players > 2 then 's' else '' end || ', no rank posted): shares '
            || fmt_points(pooled) || ' / ' || tied_players
        else concat_ws(
            ', ',
            ['1st', '2nd', '3rd', '4th'][place] || ' ' || fmt_points(place_points),
            case when second_score < sankoro_second_below and place = 1 then '3-koro top ' || fmt_signed(sankoro) end,
            case when second_score < sankoro_second_below and place = 2 and sankoro <> 0 then '3-koro 2nd ' || fmt_signed(sankoro) end,
            case when score < bust_below then 'bust (' || score || ') ' || fmt_signed(bust) end
        )
    end
    || case
        when yakuman > 0 then ', yakuman' || coalesce(' ' || nullif(yakuman_names, ''), '')
            || case when yakuman > 1 then ' ×' || yakuman else '' end || ' ' || fmt_signed(yakuman_bonus)
        else ''
    end
    || ' = ' || fmt_points(points) || ' [' || rule_version || ']' as basis
from final
