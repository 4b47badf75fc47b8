-- Time by kind of interval per collection, task, over analyzed event-log runs (def_interval_kinds):
-- the kind's seconds and their share of those runs' summed wall time.
-- Incremental by task: a refresh computes again the tasks whose runs changed (macros/run_groups.sql).
-- Grain: one row per collection, task and interval_kind that occurs.
-- depends_on: {{ ref('int_run_groups') }}
{{ config(**runlens.incremental_config('task')) }}
with

runs as (
    select * from {{ ref('fct_runs') }}
    where is_analyzed and measurement_source = 'event_log' and {{ runlens.is_group_to_compute('collection', 'task') }}
),

kinds as (
    select * from {{ ref('fct_run_interval_kinds') }}
),

wall_totals as (
    select
        runs.collection,
        runs.task,
        sum(runs.wall_seconds) as wall_seconds
    from runs
    group by runs.collection, runs.task
),

kind_totals as (
    select
        runs.collection,
        runs.task,
        kinds.interval_kind,
        count(*) as intervals,
        count(distinct kinds.run_id) as runs,
        count(*) filter (where kinds.seconds = 0) as zero_second_intervals,
        sum(kinds.seconds) as total_seconds
    from kinds
    inner join runs on kinds.run_id = runs.run_id
    group by runs.collection, runs.task, kinds.interval_kind
),

final as (
    select
        kind_totals.collection,
        kind_totals.task,
        kind_totals.interval_kind,
        kind_totals.intervals,
        kind_totals.runs,
        kind_totals.zero_second_intervals,
        kind_totals.total_seconds,
        case
            when wall_totals.wall_seconds > 0 then kind_totals.total_seconds / wall_totals.wall_seconds
        end as share_of_wall,
        {{ runlens.build_started_at() }} as computed_at
    from kind_totals
    inner join wall_totals
        on kind_totals.collection = wall_totals.collection
        and kind_totals.task = wall_totals.task
)

select * from final
