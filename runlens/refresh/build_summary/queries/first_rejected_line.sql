-- The first rejected line, by file and line number: where to start reading.
select file_path || ':' || cast(line_number as varchar) as first_rejected_at
from fct_rejected_lines
order by file_path asc, line_number asc
limit 1
