-- Mean duration of the pre-epoch interval at each position, over analysed event-log runs
-- (def_pre_epoch). Grain: one row per collection and interval_index.
with

runs as (
    select * from {{ ref('fct_runs') }}
    where is_analyzed and measurement_source = 'event_log'
),

intervals as (
    select * from {{ ref('fct_run_intervals') }}
    where is_pre_epoch
),

positioned as (
    select
        runs.collection,
        intervals.interval_index,
        intervals.label,
        intervals.seconds
    from intervals
    inner join runs on intervals.run_id = runs.run_id
),

label_ranks as (
    -- the label seen most often at a position; ties go to the alphabetically first
    select
        collection,
        interval_index,
        label,
        row_number() over (
            partition by collection, interval_index
            order by count(*) desc, label
        ) as label_rank
    from positioned
    group by collection, interval_index, label
),

position_stats as (
    select
        collection,
        interval_index,
        count(*) as runs,
        avg(seconds) as mean_seconds,
        min(seconds) as min_seconds,
        max(seconds) as max_seconds
    from positioned
    group by collection, interval_index
),

final as (
    select
        position_stats.*,
        label_ranks.label as most_common_label
    from position_stats
    inner join label_ranks
        on position_stats.collection = label_ranks.collection
        and position_stats.interval_index = label_ranks.interval_index
        and label_ranks.label_rank = 1
)

select * from final
