{#- The dbt vars fct_run_stragglers computes with (def_stragglers): each row keeps their values
    (computed_with), and a build with other values computes every task again (macros/run_groups.sql). -#}
{% macro straggler_vars() -%}
    {{ return([
        'straggler_mad_floor_seconds',
        'straggler_mad_floor_share',
        'straggler_min_excess_seconds',
        'straggler_min_excess_share',
        'straggler_min_task_runs',
        'straggler_robust_z',
        'straggler_wall_multiple',
    ]) }}
{%- endmacro %}
