-- se_conversion_fees
-- Grain: one row per registration of converted foreign points (a conversion file, or the
-- `registrering` its rows name): the events converted by level and the fee (seed section 8): the
-- sum of conversion_fees.csv's fee per event by level, at most the maximum and at least the minimum
-- per registration (parameters.csv).
-- Inputs: events, se_conversion_fee_rates, se_conversion_fee_limits. Parameters: none.
with

events as (
    select * from events where kind like 'se_konvertering_%'
),

fee_rates as (
    select rule_version, level, cast(sek_per_event as decimal(10, 2)) as sek_per_event from se_conversion_fee_rates
),

fee_limits as (
    select
        rule_version,
        cast(effective_from as date) as effective_from,
        cast(max_per_registration as decimal(10, 2)) as max_per_registration,
        cast(min_fee as decimal(10, 2)) as min_fee
    from se_conversion_fee_limits
),

registered as (
    select
        organisation,
        source_file,
        event_id,
        event_date,
        replace(substr(kind, length('se_konvertering_') + 1), '_', ' ') as level,
        coalesce(nullif(split_part(location, '; registrering ', 2), ''), source_file) as registration
    from events
),

versioned as (
    select registered.*, fee_limits.rule_version, fee_limits.max_per_registration, fee_limits.min_fee
    from registered
    inner join fee_limits
        on fee_limits.effective_from <= registered.event_date
    qualify row_number() over (partition by registered.event_id order by fee_limits.effective_from desc) = 1
),

priced as (
    select versioned.*, fee_rates.sek_per_event
    from versioned
    inner join fee_rates
        on fee_rates.rule_version = versioned.rule_version
        and fee_rates.level = versioned.level
)

select
    organisation,
    registration,
    count(*) as events,
    count(*) filter (where level = 'brons') as bronze_events,
    count(*) filter (where level = 'silver') as silver_events,
    count(*) filter (where level in ('guld', 'förhöjt guld')) as gold_events,
    cast(sum(sek_per_event) as decimal(10, 2)) as sum_sek,
    cast(least(max(max_per_registration), greatest(max(min_fee), sum(sek_per_event))) as decimal(10, 2)) as fee_sek
from priced
group by organisation, registration
