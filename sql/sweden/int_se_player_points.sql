-- int_se_player_points
-- Grain: one row per player per entrant per denomination of each competition of the batch.
-- Inputs (registered by pipelines/sweden/awards.py):
--   se_entrant_awards(competition, entrant, denomination, points, basis, exact): the entrant's points
--     after sharing, minimums and the better of the two lists; exact: the unrounded award as a
--     fraction ("45/2"), which the national ranking counts;
--   se_players(competition, entrant, member, played, position): the members of each entrant with
--     what each played (rounds, boards or matches; null = all);
--   se_competitions(competition, event_id, reserve_rule, played_of): how reserves are counted.
-- Parameters: none.
-- The reserve share (played / played_of) is exact here; rounding up is the next, pandas, step.
with

awards as (
    select * from se_entrant_awards
),

players as (
    select * from se_players
),

competitions as (
    select * from se_competitions
)

select
    competitions.event_id,
    awards.competition,
    awards.entrant,
    players.member,
    players.position,
    awards.denomination,
    awards.points,
    awards.basis,
    awards.exact,
    competitions.reserve_rule,
    players.played,
    competitions.played_of
from awards
join players
    on players.competition = awards.competition
    and players.entrant = awards.entrant
join competitions
    on competitions.competition = awards.competition
order by awards.competition, awards.entrant, players.position, awards.denomination
