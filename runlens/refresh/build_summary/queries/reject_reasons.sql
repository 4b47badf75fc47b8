-- The most frequent reject reasons, each with the first line it rejected, and how many reasons
-- there are.
select
    reject_reason,
    rejected_lines,
    first_seen_at,
    count(*) over () as reasons
from agg_build_reject_reasons
order by rejected_lines desc, reject_reason asc
limit $top
