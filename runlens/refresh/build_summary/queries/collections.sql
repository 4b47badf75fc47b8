-- The collections the logs or the traces on their own hold runs of (dim_collections also lists
-- the seed's collections).
select collection
from dim_collections
where runs > 0 or trace_runs > 0
order by collection asc
