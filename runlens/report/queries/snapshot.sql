-- One collection's headline figures (seconds, shares as fractions). Reads marts only.
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
    runtime.mean_wall_seconds,
    runtime.median_wall_seconds,
    runtime.p90_wall_seconds,
    runtime.min_wall_seconds,
    runtime.max_wall_seconds,
    runtime.mean_pre_tail_seconds,
    runtime.mean_tail_seconds,
    runtime.max_tail_seconds,
    runtime.mean_tail_share,
    runtime.mean_pre_tail_share,
    runtime.slowest_to_fastest_task_ratio
from dim_collections as collections
inner join agg_collection_runtime as runtime on collections.collection = runtime.collection
where collections.collection = $collection
