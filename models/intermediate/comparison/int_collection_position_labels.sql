-- Each collection's pre-epoch interval positions by label (def_interval_position_comparison), what
-- cmp_collection_interval_positions lays against the baseline's: the analyzed runs that hold the
-- label (a label a run holds twice counts once, with its seconds summed), their mean seconds at it
-- and the median of the position where each first holds it; and the collection's runs with any
-- pre-epoch position. A restart's downtime is no position (def_interval_positions).
-- Incremental by collection: a refresh computes again the collections whose runs changed
-- (macros/run_groups.sql), so a comparison reads a row per label, never every interval.
-- Grain: one row per collection and label.
-- depends_on: {{ ref('int_run_groups') }}
{{ config(**runlens.incremental_config('collection')) }}
with

runs as (
    select * from {{ ref('fct_runs') }}
    where is_analyzed and collection is not null and {{ runlens.is_group_to_compute('collection') }}
),

intervals as (
    select * from {{ ref('fct_run_intervals') }}
    where is_pre_epoch and not is_downtime
),

run_labels as (
    select
        runs.collection,
        intervals.run_id,
        intervals.position_label as label,
        min(intervals.position_index) as interval_index,
        sum(intervals.seconds) as seconds
    from intervals
    inner join runs on intervals.run_id = runs.run_id
    group by runs.collection, intervals.run_id, intervals.position_label
),

collection_runs as (
    select
        collection,
        count(distinct run_id) as runs_with_markers
    from run_labels
    group by collection
),

labels as (
    select
        collection,
        label,
        count(*) as runs,
        avg(seconds) as mean_seconds,
        {{ runlens.median('interval_index') }} as typical_index
    from run_labels
    group by collection, label
),

final as (
    select
        labels.collection,
        labels.label,
        labels.runs,
        labels.mean_seconds,
        labels.typical_index,
        collection_runs.runs_with_markers,
        {{ runlens.build_started_at() }} as computed_at
    from labels
    inner join collection_runs on labels.collection = collection_runs.collection
)

select * from final
