-- Rejected event names that look like a runlens event type, over every file, most frequent
-- first (for the index). Reads marts only.
select
    event_name,
    resembles_event_type,
    rejected_lines,
    first_seen_at
from agg_unknown_event_names
where resembles_event_type is not null
order by rejected_lines desc, event_name asc
