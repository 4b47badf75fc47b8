-- Invariant: the collection rollup counts every run of the collection exactly once, as analysed
-- or excluded, its shares before and after the final epoch_end add up to 1, and the excluded runs
-- by reason (agg_collection_exclusion_reasons) add up to its excluded runs.
-- Returns the collections that break it.
with

runs as (
    select
        collection,
        count(*) as runs
    from {{ ref('fct_runs') }}
    where collection is not null
    group by collection
),

rollup as (
    select * from {{ ref('agg_collection_runtime') }}
),

excluded as (
    select
        collection,
        sum(runs) as runs
    from {{ ref('agg_collection_exclusion_reasons') }}
    group by collection
)

select
    rollup.collection,
    rollup.runs_analyzed,
    rollup.runs_excluded,
    runs.runs
from rollup
left join runs on rollup.collection = runs.collection
left join excluded on rollup.collection = excluded.collection
where
    rollup.runs_analyzed + rollup.runs_excluded != coalesce(runs.runs, 0)
    or rollup.runs_excluded
    != rollup.runs_failed + rollup.runs_incomplete + rollup.runs_clock_skew
    or rollup.runs_excluded != coalesce(excluded.runs, 0)
    or abs(rollup.mean_pre_tail_share + rollup.mean_tail_share - 1) > 0.000000001
