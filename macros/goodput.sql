{#- The goodput breakdown's buckets (def_goodput in models/marts/goodput/_goodput__docs.md), in the
    order a page lists them: productive training first, then what took the rest. Each is a column
    `<bucket>_seconds` of fct_run_goodput and a row of the rollups. -#}
{% macro goodput_buckets() -%}
    {{ return([
        'productive', 'start_up', 'checkpoint_restore', 'checkpoint_save', 'evaluation', 'data_loading',
        'rank_waiting', 'down', 'redone', 'final_tail', 'unattributed'
    ]) }}
{%- endmacro %}

{#- The buckets a profiler section can count in (the seed goodput_section_buckets). -#}
{% macro goodput_section_bucket_names() -%}
    {{ return(['training', 'data_loading', 'checkpoint_save', 'checkpoint_restore', 'evaluation']) }}
{%- endmacro %}

{#- A query of (section, bucket, source_rank): the seed goodput_section_buckets (source_rank 1),
    with the dbt var `goodput_section_buckets` (a mapping section -> bucket, source_rank 0) before
    it. A section is a name or a pattern in which `*` stands for any characters. A bucket the var
    names that is not a section bucket stops the build with one line. -#}
{% macro goodput_section_buckets() -%}
    {%- set extra = var('goodput_section_buckets', {}) -%}
    {%- if extra is not mapping -%}
        {{ exceptions.raise_compiler_error("runlens: the var goodput_section_buckets must be a mapping of section names to buckets, such as {h2d_copy: data_loading}") }}
    {%- endif -%}
    {%- for section, bucket in extra.items() if bucket not in runlens.goodput_section_bucket_names() -%}
        {{ exceptions.raise_compiler_error("runlens: goodput_section_buckets maps '" ~ section ~ "' to '" ~ bucket ~ "': use one of " ~ runlens.goodput_section_bucket_names() | join(', ')) }}
    {%- endfor -%}
    select
        section,
        bucket,
        1 as source_rank
    from {{ ref('goodput_section_buckets') }}
    {%- for section, bucket in extra.items() %}
    union all
    select
        {{ runlens.string_literal(section | string) }} as section,
        {{ runlens.string_literal(bucket) }} as bucket,
        0 as source_rank
    {%- endfor %}
{%- endmacro %}

{#- The LIKE pattern (escape character `!`) of a section name or pattern: `*` stands for any
    characters, every other character for itself. -#}
{% macro section_like_pattern(section) -%}
    replace(replace(replace(replace({{ section }}, '!', '!!'), '%', '!%'), '_', '!_'), '*', '%')
{%- endmacro %}

{#- A rollup of fct_run_goodput by group_columns: one row per group and bucket, with the bucket's
    seconds, its share of the group's wall time, and its GPU-hours when every run of the group names
    its GPUs (def_goodput_rollups). -#}
{% macro goodput_rollup(group_columns) -%}
    {%- set double = var('runlens_types')[target.type].double -%}
    with

    runs as (
        select * from {{ ref('fct_run_goodput') }}
    ),

    totals as (
        select
            {{ group_columns | join(', ') }},
            count(*) as runs,
            count(gpus) as runs_with_gpus,
            sum(wall_seconds) as wall_seconds,
            sum(wall_seconds * gpus) / 3600 as gpu_hours
        from runs
        group by {{ group_columns | join(', ') }}
    ),

    buckets as (
        {%- for bucket in runlens.goodput_buckets() %}
        select
            {{ group_columns | join(', ') }},
            '{{ bucket }}' as bucket,
            cast({{ loop.index }} as {{ dbt.type_bigint() }}) as bucket_order,
            sum({{ bucket }}_seconds) as seconds,
            sum({{ bucket }}_seconds * gpus) / 3600 as gpu_hours,
            {%- if bucket == 'start_up' %}
            count(case when unmeasured_start_ups > 0 then 1 end) as runs_unmeasured,
            sum(unmeasured_start_up_seconds) as unmeasured_seconds
            {%- elif bucket in ['productive'] + runlens.goodput_section_bucket_names() %}
            count(case when not has_training_sections then 1 end) as runs_unmeasured,
            sum(case when has_training_sections then 0 else productive_seconds end) as unmeasured_seconds
            {%- else %}
            0 as runs_unmeasured,
            0 as unmeasured_seconds
            {%- endif %}
        from runs
        group by {{ group_columns | join(', ') }}
        {%- if not loop.last %}
        union all
        {%- endif %}
        {%- endfor %}
    ),

    final as (
        select
            {% for column in group_columns %}buckets.{{ column }},
            {% endfor -%}
            buckets.bucket,
            buckets.bucket_order,
            totals.runs,
            totals.runs_with_gpus,
            cast(buckets.runs_unmeasured as {{ dbt.type_bigint() }}) as runs_unmeasured,
            cast(buckets.unmeasured_seconds as {{ double }}) as unmeasured_seconds,
            buckets.seconds,
            case when totals.wall_seconds > 0 then buckets.seconds / totals.wall_seconds end as share_of_wall,
            case when totals.runs_with_gpus = totals.runs then buckets.gpu_hours end as gpu_hours,
            case
                when totals.runs_with_gpus = totals.runs and totals.gpu_hours > 0
                    then buckets.gpu_hours / totals.gpu_hours
            end as share_of_gpu_hours,
            case when totals.runs_with_gpus = totals.runs then totals.gpu_hours end as total_gpu_hours,
            cast(totals.wall_seconds as {{ double }}) as wall_seconds
        from buckets
        inner join totals
            on {% for column in group_columns %}buckets.{{ column }} = totals.{{ column }}{{ ' and ' if not loop.last }}{% endfor %}
    )

    select * from final
{%- endmacro %}
