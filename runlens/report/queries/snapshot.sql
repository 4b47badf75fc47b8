-- One collection's headline figures: every column of its dim_collections row and of its
-- agg_collection_runtime row (seconds, shares as fractions). Reads marts only.
select
    collections.*,
    runtime.* exclude (collection)
from dim_collections as collections
inner join agg_collection_runtime as runtime on collections.collection = runtime.collection
where collections.collection = $collection
