-- A collection's intervals before the final epoch end against its baseline's, aligned by label
-- (`step_200 -> step_400` against `step_200 -> step_400`), so two sides with other markers are
-- never compared position by position (def_interval_position_comparison). Grain: one row per
-- collection and label found on either side.
with

collections as (
    select * from {{ ref('dim_collections') }}
    where baseline_collection is not null
),

labels as (
    -- each collection's positions by label, summed once per collection (a label a run holds twice
    -- counts once, with its seconds summed; a restart's downtime is no position)
    select * from {{ ref('int_collection_position_labels') }}
),

side_runs as (
    select distinct
        collection,
        runs_with_markers
    from labels
),

paired as (
    -- the collection's labels, with the baseline's where it has them too
    select
        collections.collection,
        collections.baseline_collection,
        current_side.label,
        current_side.runs,
        coalesce(baseline_side.runs, 0) as baseline_runs,
        current_side.mean_seconds,
        baseline_side.mean_seconds as baseline_mean_seconds,
        case
            when baseline_side.typical_index < current_side.typical_index then baseline_side.typical_index
            else current_side.typical_index
        end as typical_index
    from collections
    inner join labels as current_side on collections.collection = current_side.collection
    left join labels as baseline_side
        on collections.baseline_collection = baseline_side.collection
        and current_side.label = baseline_side.label
),

one_sided as (
    -- the baseline's labels the collection never has
    select
        collections.collection,
        collections.baseline_collection,
        baseline_side.label,
        cast(0 as {{ dbt.type_bigint() }}) as runs,
        baseline_side.runs as baseline_runs,
        cast(null as {{ var('runlens_types')[target.type].double }}) as mean_seconds,
        baseline_side.mean_seconds as baseline_mean_seconds,
        baseline_side.typical_index
    from collections
    inner join labels as baseline_side on collections.baseline_collection = baseline_side.collection
    where not exists (
        select 1
        from labels as current_side
        where current_side.collection = collections.collection and current_side.label = baseline_side.label
    )
),

aligned as (
    select * from paired
    union all
    select * from one_sided
),

measured as (
    select
        aligned.*,
        coalesce(current_runs.runs_with_markers, 0) as runs_with_markers,
        coalesce(baseline_runs.runs_with_markers, 0) as baseline_runs_with_markers,
        aligned.mean_seconds - aligned.baseline_mean_seconds as delta_seconds,
        case
            when aligned.mean_seconds > 0 then aligned.baseline_mean_seconds / aligned.mean_seconds
        end as speedup,
        aligned.runs > 0 and aligned.baseline_runs > 0 as is_on_both_sides
    from aligned
    left join side_runs as current_runs on aligned.collection = current_runs.collection
    left join side_runs as baseline_runs on aligned.baseline_collection = baseline_runs.collection
),

final as (
    select
        collection,
        baseline_collection,
        label,
        cast(row_number() over (partition by collection order by typical_index, label) as {{ dbt.type_bigint() }})
            as position_order,
        runs,
        baseline_runs,
        runs_with_markers,
        baseline_runs_with_markers,
        mean_seconds,
        baseline_mean_seconds,
        delta_seconds,
        speedup,
        is_on_both_sides,
        runs * 2 < runs_with_markers or baseline_runs * 2 < baseline_runs_with_markers as is_held_by_few_runs,
        -- what moved most first, labels on both sides before those on one side only (which moved
        -- by all of their mean)
        cast(row_number() over (
            partition by collection
            order by
                case when is_on_both_sides then 0 else 1 end asc,
                abs(coalesce(mean_seconds, 0) - coalesce(baseline_mean_seconds, 0)) desc,
                typical_index asc,
                label asc
        ) as {{ dbt.type_bigint() }}) as difference_rank
    from measured
)

select * from final
