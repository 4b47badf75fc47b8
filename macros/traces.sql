{#- The intervals of `relation` (a CTE with the columns keys, start_us and end_us) merged per
    keys, as HTA merges kernels (def_gpu_time in models/marts/steps/_steps__docs.md): sorted by
    start, an interval that starts after every earlier one ended opens a new island. One row per
    keys: busy_us (the islands' total length), first_start_us, last_end_us. -#}
{% macro merged_busy_time(relation, keys) -%}
    {%- set partition = keys | join(', ') -%}
    select
        {{ partition }},
        sum(island_end_us - island_start_us) as busy_us,
        min(island_start_us) as first_start_us,
        max(island_end_us) as last_end_us
    from (
        select
            {{ partition }},
            island,
            min(start_us) as island_start_us,
            max(end_us) as island_end_us
        from (
            select
                {{ partition }},
                start_us,
                end_us,
                sum(case when start_us > prior_end_us then 1 else 0 end) over (
                    partition by {{ partition }} order by start_us, end_us rows unbounded preceding
                ) as island
            from (
                select
                    {{ partition }},
                    start_us,
                    end_us,
                    max(end_us) over (
                        partition by {{ partition }} order by start_us, end_us
                        rows between unbounded preceding and 1 preceding
                    ) as prior_end_us
                from {{ relation }}
            ) as ordered
        ) as numbered
        group by {{ partition }}, island
    ) as islands
    group by {{ partition }}
{%- endmacro %}

{#- The layers of GPU time (def_gpu_time): an event of work type computation counts in every
    layer from 1, communication from 2, memory from 3, any other from 4; the busy time of layer n
    less that of layer n - 1 is the time of that type that no earlier type overlaps. -#}
{% macro gpu_work_layer(work_type) -%}
    case {{ work_type }}
        when 'computation' then 1
        when 'communication' then 2
        when 'memory' then 3
        else 4
    end
{%- endmacro %}

{#- The layers an event of work layer own_layer is merged in (def_gpu_time): its own and every later
    one of layers_present, a relation of (file_path, layer) with the layers some GPU event of the
    trace has as its own (present_gpu_layers). A layer no event of a trace has holds what the one
    before it holds, so it is not merged again: gpu_time_split reads it so. -#}
{% macro present_gpu_layers(events) -%}
    select distinct
        file_path,
        {{ runlens.gpu_work_layer('gpu_work_type') }} as layer
    from {{ events }}
    where is_gpu_event
{%- endmacro %}

{#- The GPU time split of per-keys busy layers `layers` (merged_busy_time over keys and layer, of
    the layers present; each layer holds every event of the ones before it, so its busy time is
    at least theirs and a missing layer's busy time is that of the latest present one before it):
    columns span_us, busy_us, compute_us, communication_us, memory_us, other_gpu_us, idle_us. -#}
{% macro gpu_time_split(layers, keys) -%}
    select
        {{ keys | join(', ') }},
        max(last_end_us) - min(first_start_us) as span_us,
        max(busy_us) as busy_us,
        coalesce(max(case when layer = 1 then busy_us end), 0) as compute_us,
        coalesce(max(case when layer <= 2 then busy_us end), 0)
            - coalesce(max(case when layer = 1 then busy_us end), 0) as communication_us,
        coalesce(max(case when layer <= 3 then busy_us end), 0)
            - coalesce(max(case when layer <= 2 then busy_us end), 0) as memory_us,
        max(busy_us) - coalesce(max(case when layer <= 3 then busy_us end), 0) as other_gpu_us,
        max(last_end_us) - min(first_start_us) - max(busy_us) as idle_us
    from {{ layers }}
    group by {{ keys | join(', ') }}
{%- endmacro %}

{#- HTA's idle time category of a gap on a stream before a GPU event (def_idle_time). -#}
{% macro idle_category(start_us, previous_end_us, launch_start_us) -%}
    case
        when {{ launch_start_us }} > {{ previous_end_us }} then 'host_wait'
        when {{ start_us }} - {{ previous_end_us }} < {{ var('kernel_wait_threshold_us') }} then 'kernel_wait'
        else 'other'
    end
{%- endmacro %}

{#- The rollup of the profiled steps `steps` (fct_run_steps) by group_columns (def_step_summaries):
    fct_run_step_summaries, agg_task_steps and agg_collection_steps are this rollup and differ
    only in their group. Each share is of summed seconds, so every step weighs its time. -#}
{% macro step_rollup(steps, group_columns) -%}
    select
        {{ group_columns | join(',\n        ') }},
        count(distinct run_id) as runs,
        count(distinct run_id || '/' || cast(rank as {{ dbt.type_string() }})) as run_ranks,
        count(*) as steps,
        max(case when has_gpu_events then 1 else 0 end) = 1 as has_gpu_events,
        sum(wall_seconds) as wall_seconds,
        avg(wall_seconds) as mean_step_seconds,
        sum(data_loading_seconds) as data_loading_seconds,
        sum(data_loading_seconds) / nullif(sum(wall_seconds), 0) as data_loading_share,
        coalesce(sum(data_loading_seconds) > {{ var('input_bound_share') }} * sum(wall_seconds), false)
            as is_input_bound,
        sum(gpu_span_seconds) as gpu_span_seconds,
        sum(idle_seconds) / nullif(sum(gpu_span_seconds), 0) as idle_share,
        sum(compute_seconds) / nullif(sum(gpu_span_seconds), 0) as compute_share,
        sum(non_compute_seconds) / nullif(sum(gpu_span_seconds), 0) as non_compute_share,
        sum(communication_seconds) / nullif(sum(gpu_span_seconds), 0) as communication_share,
        sum(memory_seconds) / nullif(sum(gpu_span_seconds), 0) as memory_share,
        sum(host_wait_seconds) / nullif(sum(stream_idle_seconds), 0) as host_wait_share,
        sum(kernel_wait_seconds) / nullif(sum(stream_idle_seconds), 0) as kernel_wait_share,
        sum(other_idle_seconds) / nullif(sum(stream_idle_seconds), 0) as other_idle_share
    from {{ steps }}
    group by {{ group_columns | join(', ') }}
{%- endmacro %}
