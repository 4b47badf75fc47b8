-- Rejected lines over every file per reason, most frequent first (for the index). Reads marts only.
select
    reject_reason,
    rejected_lines,
    files,
    first_seen_at
from agg_reject_reasons
order by rejected_lines desc, reject_reason asc
