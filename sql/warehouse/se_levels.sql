-- se_levels
-- Grain: one row per member, run that posted Swedish ledger lines for the member, and track of the
-- master classes (master_classes.csv: `klass`, the ladder; `klöverstjärna`, the bronze-only Klöver
-- stars): the member's holdings after that run (the ledger summed in run order, reversals
-- included: the balance as it stood that night) and the highest level met on the track (null below
-- the first). The rule version is the one in effect on the night (posted_on).
-- A level is met (pipelines/sweden/classes.py says the same in Python): mp >= min_mp, bp >= min_bp,
-- and sp >= min_sp or gp >= min_gp, bp counted as sp (bp_to_sp) and sp as gp (sp_to_gp) in whole
-- units, exchanged points at their new value. Everything is in bronze units (1 mp = bp_per_mp bp):
-- multiplications only, exact decimals (value_bp: the holdings in bp, mp × bp_per_mp).
-- Inputs: awards, se_rule_versions, se_master_classes, se_class_rates. Parameters: none.
with

awards as (
    select * from awards where system = 'sweden'
),

rule_versions as (
    select rule_version, cast(effective_from as date) as effective_from from se_rule_versions
),

master_classes as (
    select
        rule_version,
        track,
        cast(rank as integer) as rank,
        level,
        class_name,
        cast(stars as integer) as stars,
        title,
        cast(nullif(min_mp, '') as decimal(12, 2)) as min_mp,
        cast(nullif(min_bp, '') as decimal(12, 2)) as min_bp,
        cast(nullif(min_sp, '') as decimal(12, 2)) as min_sp,
        cast(nullif(min_gp, '') as decimal(12, 2)) as min_gp,
        bp_to_sp = 'ja' as bp_to_sp,
        sp_to_gp = 'ja' as sp_to_gp
    from se_master_classes
),

class_rates as (
    select
        rule_version,
        cast(bp_per_mp as decimal(12, 2)) as bp_per_mp,
        cast(bp_value_of_sp as decimal(12, 2)) as bp_value_of_sp,
        cast(bp_value_of_gp as decimal(12, 2)) as bp_value_of_gp,
        cast(bp_per_sp as decimal(12, 2)) as bp_per_sp,
        cast(sp_per_gp as decimal(12, 2)) as sp_per_gp
    from se_class_rates
),

per_run as (
    select
        organisation,
        player_id as member,
        run_id,
        max(posted_on) as night,
        coalesce(sum(points) filter (where denomination = 'bp'), 0) as bp,
        coalesce(sum(points) filter (where denomination = 'sp'), 0) as sp,
        coalesce(sum(points) filter (where denomination = 'gp'), 0) as gp
    from awards
    group by organisation, player_id, run_id
),

holdings as (
    select
        organisation,
        member,
        run_id,
        night,
        cast(sum(bp) over nights as decimal(14, 2)) as bp,
        cast(sum(sp) over nights as decimal(14, 2)) as sp,
        cast(sum(gp) over nights as decimal(14, 2)) as gp
    from per_run
    window nights as (partition by organisation, member order by run_id rows between unbounded preceding and current row)
),

versioned as (
    select holdings.*, rule_versions.rule_version
    from holdings
    inner join rule_versions
        on rule_versions.effective_from <= holdings.night
    qualify row_number() over (partition by holdings.organisation, holdings.member, holdings.run_id
                               order by rule_versions.effective_from desc) = 1
),

valued as (
    select
        versioned.*,
        class_rates.bp_value_of_sp,
        class_rates.bp_value_of_gp,
        class_rates.bp_per_sp,
        class_rates.sp_per_gp,
        class_rates.bp_per_mp,
        versioned.bp + versioned.sp * class_rates.bp_value_of_sp + versioned.gp * class_rates.bp_value_of_gp as value_bp
    from versioned
    inner join class_rates
        on class_rates.rule_version = versioned.rule_version
),

exchanges as (
    -- x: sp bought with bp toward min_sp; y: gp bought with sp toward min_gp; z: sp for y bought with bp
    select
        valued.*,
        master_classes.track,
        master_classes.rank,
        master_classes.level,
        master_classes.min_mp,
        master_classes.min_bp,
        master_classes.min_sp,
        master_classes.min_gp,
        master_classes.bp_to_sp,
        master_classes.sp_to_gp,
        greatest(0, ceil(master_classes.min_sp - valued.sp)) as x,
        greatest(0, ceil(master_classes.min_gp - valued.gp)) as y,
        greatest(0, ceil(greatest(0, ceil(master_classes.min_gp - valued.gp)) * valued.sp_per_gp - valued.sp)) as z
    from valued
    inner join master_classes
        on master_classes.rule_version = valued.rule_version
),

tested as (
    select
        *,
        coalesce(min_mp, 0) * bp_per_mp as min_value_bp,
        bp_per_sp - bp_value_of_sp as loss_per_sp,
        sp_per_gp * bp_value_of_sp - bp_value_of_gp as loss_per_gp
    from exchanges
),

met as (
    select
        *,
        (min_bp is null or bp >= min_bp)
        and (
            (min_sp is null and min_gp is null and value_bp >= min_value_bp)
            or (min_sp is not null
                and (x = 0 or (bp_to_sp and x * bp_per_sp <= bp))
                and value_bp - x * loss_per_sp >= min_value_bp)
            or (min_gp is not null
                and (y = 0 or (sp_to_gp and (z = 0 or (bp_to_sp and z * bp_per_sp <= bp))))
                and value_bp - y * loss_per_gp - z * loss_per_sp >= min_value_bp)
        ) as is_met
    from tested
)

select
    organisation,
    member,
    run_id,
    night,
    rule_version,
    track,
    bp,
    sp,
    gp,
    value_bp,
    max(rank) filter (where is_met) as rank,
    arg_max(level, rank) filter (where is_met) as level
from met
group by organisation, member, run_id, night, rule_version, track, bp, sp, gp, value_bp
