-- The collection against its baseline: every column of cmp_collection_runtime (raw means and matched
-- tasks, seconds; speedups are baseline over collection), with the baseline's title. Reads marts
-- only.
select
    comparison.*,
    coalesce(baseline.title, comparison.baseline_collection) as baseline_title
from cmp_collection_runtime as comparison
left join dim_collections as baseline on comparison.baseline_collection = baseline.collection
where comparison.collection = $collection
