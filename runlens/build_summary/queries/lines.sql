-- What the load read over every file (agg_data_quality_totals: one row).
select
    files,
    unreadable_files,
    lines_read,
    accepted,
    duplicates,
    other_events,
    rejected
from agg_data_quality_totals
