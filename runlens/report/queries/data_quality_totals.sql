-- What the load read, over every file of the raw folder (for the index). Reads marts only.
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
from agg_data_quality_totals
