{#- The rules of waiting for the slowest rank (def_ranks in models/marts/ranks/_ranks__docs.md),
    written once for the rank marts. Two measures each see part of the waiting: the arrivals at
    the markers, and the gap in busy time (NULL without profiles, which never counts). -#}

{#- Which measure the time lost counts: `busy_time` when the busy-time measure is the larger,
    else `arrival`. -#}
{% macro lost_basis(arrival_seconds, busy_seconds) -%}
    case when {{ busy_seconds }} > {{ arrival_seconds }} then 'busy_time' else 'arrival' end
{%- endmacro %}

{#- The time lost waiting for the slowest rank: the larger of the two measures. -#}
{% macro lost_to_slowest(arrival_seconds, busy_seconds) -%}
    greatest({{ arrival_seconds }}, coalesce({{ busy_seconds }}, 0))
{%- endmacro %}

{#- The rollup of fct_run_rank_waiting by group_columns (its runs with a collection): its runs with
    ranks, those with a straggling rank or with ranks that stopped early, and the share of their
    wall time lost to the slowest rank. agg_task_rank_waiting and agg_collection_rank_waiting are
    this rollup and differ only in their group. -#}
{% macro rank_waiting_rollup(group_columns) -%}
    with

    distributed_runs as (
        select * from {{ ref('fct_run_rank_waiting') }}
        where collection is not null
    ),

    final as (
        select
            {{ group_columns | join(',\n            ') }},
            cast(count(*) as {{ dbt.type_bigint() }}) as distributed_runs,
            cast(count(*) filter (where straggling_rank is not null) as {{ dbt.type_bigint() }})
                as runs_with_straggling_rank,
            cast(count(*) filter (where stopped_ranks > 0) as {{ dbt.type_bigint() }}) as runs_with_stopped_ranks,
            sum(wall_seconds) filter (where wall_seconds is not null) as wall_seconds,
            sum(lost_to_slowest_seconds) filter (where wall_seconds is not null) as lost_to_slowest_seconds,
            sum(lost_to_slowest_seconds) filter (where wall_seconds is not null)
            / nullif(sum(wall_seconds) filter (where wall_seconds is not null), 0) as lost_share
        from distributed_runs
        group by {{ group_columns | join(', ') }}
    )

    select * from final
{%- endmacro %}
