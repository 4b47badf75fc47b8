{#- The rules of where the live runs are (def_live_runs in models/marts/live/_live__docs.md),
    written once for fct_run_live_status and int_marker_peer_statistics: the summaries of the peers are
    made exactly at the live runs' last markers, where fct_run_live_status looks for them. -#}

{#- Filter on fct_runs (given as `runs`): the live runs, incomplete runs with a collection. -#}
{% macro is_live_run(runs) -%}
    {{ runs }}.status = 'incomplete' and {{ runs }}.collection is not null
{%- endmacro %}

{#- Filter on fct_runs (given as `runs`): the peers, the runs whose whole length and progress at
    each marker the live runs are measured against (def_live_eta): analyzed runs of a collection,
    measured by their event log. -#}
{% macro is_peer_run(runs) -%}
    {{ runs }}.is_analyzed and {{ runs }}.measurement_source = 'event_log' and {{ runs }}.collection is not null
{%- endmacro %}

{#- The order of a run's markers (int_run_marker_progress, given as `progress`) from the last it
    reached: a restart's run_start is no progress, so it is the last marker reached only when the
    run has no other. -#}
{% macro last_reached_first(progress) -%}
    case when {{ progress }}.event_type = 'run_start' and {{ progress }}.marker_index > 1 then 1 else 0 end,
    {{ progress }}.marker_index desc
{%- endmacro %}

{#- The dbt vars int_run_eta_replays computes with (def_eta_replays): each row keeps their values
    (computed_with), and a build with other values replays every collection again (macros/run_groups.sql). -#}
{% macro eta_replay_vars() -%}
    {{ return(['eta_calibration_max_runs', 'eta_min_task_peers']) }}
{%- endmacro %}
