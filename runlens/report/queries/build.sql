-- What the build that made the marts ran with. Reads marts only.
select
    raw_dir,
    as_of_at,
    as_of_source,
    regression_threshold,
    regression_min_runs,
    stall_multiple,
    stall_min_seconds
from dim_build
