-- Config keys whose values differ from the baseline's. Reads marts only.
select
    config_key,
    "values",  -- noqa: RF06
    baseline_values
from cmp_config_differences
where collection = $collection
order by config_key
