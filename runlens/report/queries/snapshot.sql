-- The collection's identity and runtime snapshot, in report units. Reads marts only.
select
    collections.collection,
    collections.title,
    collections.design_url,
    collections.results_url,
    collections.baseline_collection,
    runtime.runs_analyzed,
    runtime.runs_excluded,
    runtime.runs_failed,
    runtime.runs_incomplete,
    runtime.runs_clock_skew,
    runtime.measurement_source,
    runtime.mean_wall_seconds / 3600 as mean_wall_hours,
    runtime.median_wall_seconds / 3600 as median_wall_hours,
    runtime.min_wall_seconds / 3600 as min_wall_hours,
    runtime.max_wall_seconds / 3600 as max_wall_hours,
    runtime.mean_pre_tail_seconds / 3600 as mean_pre_tail_hours,
    runtime.mean_tail_seconds / 3600 as mean_tail_hours,
    runtime.mean_tail_seconds / 60 as mean_tail_minutes,
    runtime.max_tail_seconds / 60 as max_tail_minutes,
    runtime.mean_tail_share * 100 as mean_tail_share_percent,
    runtime.mean_pre_tail_share * 100 as mean_pre_tail_share_percent
from dim_collections as collections
inner join agg_collection_runtime as runtime on collections.collection = runtime.collection
where collections.collection = $collection
