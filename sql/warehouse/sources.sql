-- sources
-- Grain: one row per inbox file version the pipeline processed (organisation, source_file, sha256).
-- `is_current` marks the version that stands at its path now (the latest run that saw it).
with

lake_sources as (
    select * from lake_sources
),

ranked as (
    select
        *,
        row_number() over (partition by organisation, source_file order by run_id desc) = 1 as is_current
    from lake_sources
)

select * from ranked
