-- The later pre-epoch windows of each collection (def_later_windows): how many there are and the
-- range and sum of their mean durations. Grain: one row per collection that has a later window.
with

later_windows as (
    select * from {{ ref('agg_collection_interval_positions') }}
    where is_later_window
),

final as (
    select
        collection,
        count(*) as later_window_count,
        min(mean_seconds) as min_mean_seconds,
        max(mean_seconds) as max_mean_seconds,
        sum(mean_seconds) as summed_mean_seconds
    from later_windows
    group by collection
)

select * from final
