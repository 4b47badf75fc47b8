-- What the load read, over every file of the raw folder. Reads marts only.
select
    count(*) as files,
    count(*) filter (where read_error is not null) as unreadable_files,
    coalesce(sum(physical_lines), 0) as physical_lines,
    coalesce(sum(blank_lines), 0) as blank_lines,
    coalesce(sum(lines_read), 0) as lines_read,
    coalesce(sum(accepted), 0) as accepted,
    coalesce(sum(duplicates), 0) as duplicates,
    coalesce(sum(other_events), 0) as other_events,
    coalesce(sum(rejected), 0) as rejected
from agg_file_data_quality
