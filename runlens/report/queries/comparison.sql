-- The collection against its baseline. Reads marts only.
select
    comparison.baseline_collection,
    baseline.title as baseline_title,
    comparison.runs_analyzed,
    comparison.baseline_runs_analyzed,
    comparison.mean_wall_seconds / 3600 as mean_wall_hours,
    comparison.baseline_mean_wall_seconds / 3600 as baseline_mean_wall_hours,
    comparison.delta_seconds / 3600 as delta_hours,
    comparison.speedup,
    comparison.measurement_source,
    comparison.baseline_measurement_source,
    comparison.sources_match
from cmp_collections as comparison
left join dim_collections as baseline on comparison.baseline_collection = baseline.collection
where comparison.collection = $collection
