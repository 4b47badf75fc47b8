-- Each chain of versions, its steps from the first version to the newest, with each step's raw
-- and matched speedup over its baseline. Reads marts only.
select
    chains.chain_collection,
    chains.step,
    chains.step_collection,
    coalesce(collections.title, chains.step_collection) as step_title,
    chains.step_speedup,
    comparisons.matched_speedup as step_matched_speedup,
    coalesce(comparisons.has_different_task_mix, false) as step_has_different_task_mix,
    chains.step_regressed_tasks
from cmp_collection_version_chains as chains
left join dim_collections as collections on chains.step_collection = collections.collection
left join cmp_collection_runtime as comparisons on chains.step_collection = comparisons.collection
where chains.is_chain_end
order by chains.chain_collection asc, chains.step desc
