{#- A rollup of fct_run_interval_sections by group_columns (def_interval_section_rollups): per group,
    part (the columns `by`: the part of the wall time, the interval kind, the position) and section,
    the section's seconds over the analyzed runs with interval sections, its share of the part's
    seconds, and its mean per such run. Sums are rounded to whole microseconds, so that two builds
    of the same logs give the same bytes. -#}
{% macro interval_section_rollup(group_columns, by=['wall_time_part']) -%}
    {%- set double = var('runlens_types')[target.type].double -%}
    {%- set groups = group_columns | join(', ') -%}
    {%- set parts = by | join(', ') -%}
    with

    runs as (
        select * from {{ ref('fct_runs') }}
        where is_analyzed
    ),

    sections as (
        select interval_sections.*
        from {{ ref('fct_run_interval_sections') }} as interval_sections
        inner join runs on interval_sections.run_id = runs.run_id
    ),

    group_runs as (
        select
            {{ groups }},
            count(distinct run_id) as runs
        from sections
        group by {{ groups }}
    ),

    part_totals as (
        select
            {{ groups }},
            {{ parts }},
            count(distinct run_id) as runs_with_part,
            {{ runlens.whole_microseconds('sum(seconds)') }} as part_seconds
        from sections
        group by {{ groups }}, {{ parts }}
    ),

    section_totals as (
        select
            {{ groups }},
            {{ parts }},
            section,
            max(bucket) as bucket,
            {{ runlens.whole_microseconds('sum(seconds)') }} as seconds
        from sections
        group by {{ groups }}, {{ parts }}, section
    ),

    final as (
        select
            {% for column in group_columns + by %}section_totals.{{ column }},
            {% endfor -%}
            section_totals.section,
            section_totals.bucket,
            cast(group_runs.runs as {{ dbt.type_bigint() }}) as runs,
            cast(part_totals.runs_with_part as {{ dbt.type_bigint() }}) as runs_with_part,
            cast(section_totals.seconds as {{ double }}) as seconds,
            cast(part_totals.part_seconds as {{ double }}) as part_seconds,
            case
                when part_totals.part_seconds > 0 then section_totals.seconds / part_totals.part_seconds
            end as share_of_part,
            section_totals.seconds / group_runs.runs as mean_seconds_per_run
        from section_totals
        inner join part_totals
            on {% for column in group_columns + by %}section_totals.{{ column }} = part_totals.{{ column }}{{ ' and ' if not loop.last }}{% endfor %}
        inner join group_runs
            on {% for column in group_columns %}section_totals.{{ column }} = group_runs.{{ column }}{{ ' and ' if not loop.last }}{% endfor %}
    )

    select * from final
{%- endmacro %}
