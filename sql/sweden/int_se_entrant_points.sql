-- int_se_entrant_points
-- Grain: one row per entrant per list (scratch / handicap) per denomination of each competition
--   of the batch (a competition is an event, or one Mitchell direction or division of it).
-- Inputs (registered by pipelines/sweden/awards.py):
--   se_entrants(competition, list, entrant, place): the result lists, tied entrants share a place;
--   se_event_scale(competition, list, place, denomination, points): each competition's award
--   list, built from the rule tables of data/rules/sweden (printed rows and principle rows).
-- Parameters: none.
-- Tied entrants occupy the places place .. place + ties - 1 and share their points (the sharing
-- and rounding up is the next, pandas, step).
with

entrants as (
    select * from se_entrants
),

scale as (
    select * from se_event_scale
),

spans as (
    select
        competition,
        list,
        entrant,
        place,
        count(*) over (partition by competition, list, place) as sharing,
        place + count(*) over (partition by competition, list, place) - 1 as place_to
    from entrants
),

paid as (
    select
        spans.competition,
        spans.list,
        spans.entrant,
        spans.place,
        spans.place_to,
        spans.sharing,
        scale.denomination,
        sum(scale.points) as points_sum,
        count(*) as places_paid,
        string_agg(cast(scale.points as varchar), ' + ' order by scale.place) as terms
    from spans
    join scale
        on scale.competition = spans.competition
        and scale.list = spans.list
        and scale.place between spans.place and spans.place_to
    group by all
)

select * from paid
order by competition, list, place, entrant, denomination
