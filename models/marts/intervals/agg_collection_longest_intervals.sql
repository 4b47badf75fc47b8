-- How often each interval is a run's longest, over analyzed event-log runs
-- (def_longest_interval). Grain: one row per collection and longest_interval_label.
with

runs as (
    select * from {{ ref('fct_runs') }}
    where is_analyzed and measurement_source = 'event_log' and longest_interval_label is not null
),

intervals as (
    select * from {{ ref('fct_run_intervals') }}
),

label_means as (
    -- the mean of every interval with that label, whether or not it was the longest
    select
        runs.collection,
        intervals.label,
        avg(intervals.seconds) as mean_seconds
    from intervals
    inner join runs on intervals.run_id = runs.run_id
    group by runs.collection, intervals.label
),

collection_runs as (
    select
        collection,
        count(*) as runs_with_intervals
    from runs
    group by collection
),

longest_counts as (
    select
        collection,
        longest_interval_label,
        count(*) as runs,
        avg(longest_interval_seconds) as mean_seconds_when_longest
    from runs
    group by collection, longest_interval_label
),

final as (
    select
        longest_counts.collection,
        longest_counts.longest_interval_label,
        longest_counts.runs,
        collection_runs.runs_with_intervals,
        longest_counts.mean_seconds_when_longest,
        label_means.mean_seconds
    from longest_counts
    inner join collection_runs on longest_counts.collection = collection_runs.collection
    left join label_means
        on longest_counts.collection = label_means.collection
        and longest_counts.longest_interval_label = label_means.label
)

select * from final
