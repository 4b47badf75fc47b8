-- The collection against its baseline: raw means and matched tasks (seconds; speedups are
-- baseline over collection). Reads marts only.
select
    comparison.baseline_collection,
    coalesce(baseline.title, comparison.baseline_collection) as baseline_title,
    comparison.runs_analyzed,
    comparison.baseline_runs_analyzed,
    comparison.mean_wall_seconds,
    comparison.baseline_mean_wall_seconds,
    comparison.delta_seconds,
    comparison.speedup,
    comparison.measurement_source,
    comparison.baseline_measurement_source,
    comparison.sources_match,
    comparison.regressed_tasks,
    comparison.matched_tasks,
    comparison.matched_runs,
    comparison.matched_mean_wall_seconds,
    comparison.matched_baseline_mean_wall_seconds,
    comparison.matched_speedup,
    comparison.has_different_task_mix
from cmp_collections as comparison
left join dim_collections as baseline on comparison.baseline_collection = baseline.collection
where comparison.collection = $collection
