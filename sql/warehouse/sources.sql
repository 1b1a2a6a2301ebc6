-- sources
-- Grain: one row per inbox file version the pipeline processed (organisation, source_file, sha256).
-- `is_current` marks the version that stands at its path now (the latest run that saw it): the
-- one definition of "current" every view of current file versions uses. A path's content can come
-- back (X -> Y -> X), so its lake rows of the same content may be from several runs: the current
-- ones are those of content `sha256` written by this record's run or later (a later run when a
-- JCBL standings file held back is posted the night its event file arrives). Views match lake rows
-- on (organisation, source_file, sha256) and `lake.run_id >= run_id`, never on the content alone.
-- A recomputation renews the record of each version it re-derives (its `award_lines` are the lines
-- that stand for it); it replaces no earlier content, so `supersedes_sha256` is null there (the
-- lake keeps the version's own content, which the audits read as "a recomputation").
with

lake_sources as (
    select * from internal.lake_sources
),

ranked as (
    select
        *,
        row_number() over (partition by organisation, source_file order by run_id desc) = 1 as is_current
    from lake_sources
)

select * replace (nullif(supersedes_sha256, sha256) as supersedes_sha256)
from ranked
