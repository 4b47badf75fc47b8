-- Where the difference in mean wall time between a collection and its baseline comes from, part by
-- part (def_wall_time_parts, def_difference_shares), over all tasks (scope `all_tasks`, task NULL)
-- and per task present on both sides (scope `task`). Grain: one row per collection, task and part.
with

collections as (
    select * from {{ ref('dim_collections') }}
    where baseline_collection is not null
),

run_parts as (
    select * from {{ ref('fct_run_wall_time_parts') }}
),

runs_in_scopes as (
    -- every run twice: in its collection's `all_tasks` scope and in its task's
    select
        collection,
        'all_tasks' as scope,
        cast(null as {{ dbt.type_string() }}) as task,
        run_id,
        wall_seconds,
        opening_block_seconds,
        later_windows_seconds,
        final_tail_seconds,
        other_seconds,
        has_pre_epoch_markers
    from run_parts
    union all
    select
        collection,
        'task' as scope,
        task,
        run_id,
        wall_seconds,
        opening_block_seconds,
        later_windows_seconds,
        final_tail_seconds,
        other_seconds,
        has_pre_epoch_markers
    from run_parts
    where task is not null
),

side_means as (
    select
        collection,
        scope,
        task,
        count(*) as runs,
        count(case when has_pre_epoch_markers then 1 end) as runs_with_markers,
        avg(wall_seconds) as mean_wall_seconds,
        avg(opening_block_seconds) as opening_block,
        avg(later_windows_seconds) as later_windows,
        avg(final_tail_seconds) as final_tail,
        avg(other_seconds) as other
    from runs_in_scopes
    group by collection, scope, task
),

paired as (
    select
        collections.collection,
        collections.baseline_collection,
        current_side.scope,
        current_side.task,
        current_side.runs,
        baseline_side.runs as baseline_runs,
        current_side.runs_with_markers = current_side.runs
        and baseline_side.runs_with_markers = baseline_side.runs as both_sides_have_markers,
        current_side.mean_wall_seconds - baseline_side.mean_wall_seconds as wall_delta_seconds,
        current_side.opening_block,
        baseline_side.opening_block as baseline_opening_block,
        current_side.later_windows,
        baseline_side.later_windows as baseline_later_windows,
        current_side.final_tail,
        baseline_side.final_tail as baseline_final_tail,
        current_side.other,
        baseline_side.other as baseline_other
    from collections
    inner join side_means as current_side on collections.collection = current_side.collection
    inner join side_means as baseline_side
        on collections.baseline_collection = baseline_side.collection
        and current_side.scope = baseline_side.scope
        and (current_side.task = baseline_side.task or current_side.scope = 'all_tasks')
),

parts as (
    {% for part in ['opening_block', 'later_windows', 'final_tail', 'other'] %}
        select
            collection,
            baseline_collection,
            scope,
            task,
            '{{ part }}' as part,
            cast({{ loop.index }} as {{ dbt.type_bigint() }}) as part_order,
            runs,
            baseline_runs,
            both_sides_have_markers,
            wall_delta_seconds,
            {{ part }} as mean_seconds,
            baseline_{{ part }} as baseline_mean_seconds
        from paired
        {% if not loop.last %}union all{% endif %}
    {% endfor %}
),

final as (
    select
        collection,
        baseline_collection,
        scope,
        task,
        part,
        part_order,
        runs,
        baseline_runs,
        both_sides_have_markers,
        mean_seconds,
        baseline_mean_seconds,
        mean_seconds - baseline_mean_seconds as delta_seconds,
        case when mean_seconds > 0 then baseline_mean_seconds / mean_seconds end as speedup,
        case
            when wall_delta_seconds != 0 then (mean_seconds - baseline_mean_seconds) / wall_delta_seconds
        end as share_of_difference
    from parts
)

select * from final
