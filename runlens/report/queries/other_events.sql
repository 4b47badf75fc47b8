-- Other events (types runlens does not use) per type over every file, most frequent first (for
-- the index). Reads marts only.
select
    event_type,
    other_event_lines,
    runs
from agg_other_events
order by other_event_lines desc, event_type asc
