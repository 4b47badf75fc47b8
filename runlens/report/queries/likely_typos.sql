-- Event names in the collection's files that look like a misspelt runlens type, most frequent
-- first. Reads marts only.
select
    event_name,
    resembles_event_type,
    rejected_lines,
    first_seen_at
from agg_collection_likely_typos
where collection = $collection
order by rejected_lines desc, event_name asc
