-- Rejected lines per reason code, most frequent first. Reads marts only.
select
    reject_reason,
    rejected_lines,
    files,
    first_seen_at
from agg_reject_reasons
order by rejected_lines desc, reject_reason asc
