-- Other events (types runlens does not use) per type, most frequent first. Reads marts only.
select
    event_type,
    other_event_lines,
    runs
from agg_other_events
order by other_event_lines desc, event_type asc
