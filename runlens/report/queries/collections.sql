-- Every collection with at least one run, for the index, with its headline figures (a collection
-- named only in the seed has nothing to profile). Reads marts only.
select
    collections.collection,
    collections.title,
    collections.baseline_collection,
    runtime.runs_analyzed,
    runtime.runs_excluded,
    runtime.measurement_source,
    runtime.mean_wall_seconds / 3600 as mean_wall_hours,
    runtime.median_wall_seconds / 3600 as median_wall_hours,
    comparison.speedup
from dim_collections as collections
inner join agg_collection_runtime as runtime on collections.collection = runtime.collection
left join cmp_collections as comparison on collections.collection = comparison.collection
where collections.runs > 0
order by collections.collection
