-- Runs left out of the statistics per collection and reason (def_statistics), with up to five
-- run ids as examples. Grain: one row per collection and exclusion_reason that occurred.
with

excluded_runs as (
    select * from {{ ref('fct_runs') }}
    where collection is not null and not is_analyzed
),

ranked as (
    select
        collection,
        exclusion_reason,
        run_id,
        row_number() over (partition by collection, exclusion_reason order by run_id) as run_rank
    from excluded_runs
),

counts as (
    select
        collection,
        exclusion_reason,
        count(*) as runs
    from ranked
    group by collection, exclusion_reason
),

examples as (
    select
        collection,
        exclusion_reason,
        {{ dbt.listagg('run_id', "', '", 'order by run_id') }} as example_run_ids
    from ranked
    where run_rank <= 5
    group by collection, exclusion_reason
),

final as (
    select
        counts.collection,
        counts.exclusion_reason,
        counts.runs,
        examples.example_run_ids
    from counts
    inner join examples
        on counts.collection = examples.collection
        and counts.exclusion_reason = examples.exclusion_reason
)

select * from final
