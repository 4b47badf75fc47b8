-- What the build that made the marts ran with. Reads marts only.
select
    raw_dir,
    as_of_at,
    as_of_source
from dim_build
