-- Every collection with runs, for the index: raw and matched comparisons with the baseline
-- (seconds; speedups are baseline over collection) and the goodput. Reads marts only.
select
    collections.collection,
    collections.title,
    collections.baseline_collection,
    coalesce(baselines.title, collections.baseline_collection) as baseline_title,
    runtime.runs_analyzed,
    runtime.runs_excluded,
    runtime.measurement_source,
    runtime.mean_wall_seconds,
    runtime.median_wall_seconds,
    runtime.min_wall_seconds,
    runtime.max_wall_seconds,
    comparison.speedup,
    comparison.matched_speedup,
    comparison.has_different_task_mix,
    -- the goodput of the GPU-hours when every run names its GPUs, as the page's answer gives it
    coalesce(goodput.share_of_gpu_hours, goodput.share_of_wall) as goodput,
    goodput.runs_unmeasured > 0 as is_goodput_upper_bound
from dim_collections as collections
inner join agg_collection_runtime as runtime on collections.collection = runtime.collection
left join cmp_collection_runtime as comparison on collections.collection = comparison.collection
left join dim_collections as baselines on collections.baseline_collection = baselines.collection
left join agg_collection_goodput as goodput
    on collections.collection = goodput.collection and goodput.bucket = 'productive'
where collections.runs > 0 or collections.trace_runs > 0
order by collections.collection
