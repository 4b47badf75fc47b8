-- What the load read from the collection's own files. Reads marts only.
select
    files,
    unreadable_files,
    physical_lines,
    blank_lines,
    lines_read,
    accepted,
    duplicates,
    other_events,
    rejected
from agg_collection_data_quality
where collection = $collection
