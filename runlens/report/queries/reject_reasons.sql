-- Rejected lines in the collection's files per reason, most frequent first. Reads marts only.
select
    reject_reason,
    rejected_lines,
    files,
    first_seen_at
from agg_collection_reject_reasons
where collection = $collection
order by rejected_lines desc, reject_reason asc
