-- The chains of versions to show on the index (def_version_chains): the newest collection of each
-- line with at least one baseline, each step with its speedup and regressed tasks, first version
-- first. Reads marts only.
select
    chains.chain_collection,
    chains.step,
    chains.step_collection,
    coalesce(collections.title, chains.step_collection) as step_title,
    chains.step_speedup,
    chains.step_regressed_tasks
from cmp_version_chains as chains
left join dim_collections as collections on chains.step_collection = collections.collection
where chains.is_chain_end
order by chains.chain_collection asc, chains.step desc
