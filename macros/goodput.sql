{#- The goodput breakdown's buckets (def_goodput in models/marts/goodput/_goodput__docs.md), in the
    order a page lists them: productive training first, then what took the rest. Each is a column
    `<bucket>_seconds` of fct_run_goodput and a row of the rollups. -#}
{% macro goodput_buckets() -%}
    {{ return([
        'productive', 'start_up', 'checkpoint_restore', 'checkpoint_save', 'evaluation', 'data_loading',
        'rank_waiting', 'down', 'redone', 'lost', 'silent', 'final_tail', 'unattributed'
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
    its GPUs (def_goodput_rollups). The sums are rounded to whole microseconds (the runs' seconds
    are): a sum of doubles depends on the order the engine adds them in, and two builds of the same
    logs must give the same bytes. -#}
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
            {{ runlens.whole_microseconds('sum(wall_seconds)') }} as wall_seconds,
            {{ runlens.whole_microseconds('sum(wall_seconds * gpus)') }} / 3600 as gpu_hours
        from runs
        group by {{ group_columns | join(', ') }}
    ),

    buckets as (
        {%- for bucket in runlens.goodput_buckets() %}
        select
            {{ group_columns | join(', ') }},
            '{{ bucket }}' as bucket,
            cast({{ loop.index }} as {{ dbt.type_bigint() }}) as bucket_order,
            {{ runlens.whole_microseconds('sum(' ~ bucket ~ '_seconds)') }} as seconds,
            {{ runlens.whole_microseconds('sum(' ~ bucket ~ '_seconds * gpus)') }} / 3600 as gpu_hours,
            {%- if bucket == 'start_up' %}
            count(case when unmeasured_start_ups > 0 then 1 end) as runs_unmeasured,
            {{ runlens.whole_microseconds('sum(unmeasured_start_up_seconds)') }} as unmeasured_seconds
            {%- elif bucket == 'redone' %}
            count(case when inferred_restores > 0 then 1 end) as runs_unmeasured,
            cast(null as {{ double }}) as unmeasured_seconds
            {%- elif bucket == 'final_tail' %}
            count(case when not is_final_tail_measured then 1 end) as runs_unmeasured,
            cast(null as {{ double }}) as unmeasured_seconds
            {%- elif bucket in ['productive', 'unattributed'] + runlens.goodput_section_bucket_names() %}
            count(case when not has_training_sections then 1 end) as runs_unmeasured,
            {{ runlens.whole_microseconds('sum(case when has_training_sections then 0 else productive_seconds end)') }}
                as unmeasured_seconds
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

{#- The CTEs that give each section of `profile_sections` (a relation with a `section` column) its
    goodput bucket: `section_bucket_of` (section, bucket), one row per section that maps to a
    bucket. A section takes the var's entry before the seed's, a name before a pattern, the longest
    pattern first; a section no entry matches, and `unattributed`, have no row. -#}
{% macro goodput_section_bucket_ctes(profile_sections) -%}
section_buckets as (
    {{ runlens.goodput_section_buckets() }}
),

section_names as (
    select distinct section from {{ profile_sections }}
    where section != 'unattributed'
),

section_matches as (
    select
        section_names.section,
        section_buckets.bucket,
        row_number() over (
            partition by section_names.section
            order by
                section_buckets.source_rank asc,
                case when section_buckets.section = section_names.section then 0 else 1 end asc,
                length(section_buckets.section) desc,
                section_buckets.section asc
        ) as preference
    from section_names
    inner join section_buckets
        on section_names.section like {{ runlens.section_like_pattern('section_buckets.section') }} escape '!'
),

section_bucket_of as (
    select
        section,
        bucket
    from section_matches
    where preference = 1
)
{%- endmacro %}

{#- The CTEs that give each key's profiler seconds per goodput bucket (def_goodput): `sections`,
    one row per key (key_columns) with training_seconds (NULL without a training section),
    checkpoint_restore_seconds, checkpoint_save_seconds, evaluation_seconds and
    data_loading_seconds, from `profile_sections` (key_columns, section, seconds). A section takes
    the var's entry before the seed's, a name before a pattern, the longest pattern first;
    `unattributed` (the profile's time in no section) is no bucket's. Sums are rounded to whole
    microseconds, so that they do not depend on the order the engine adds the sections in. -#}
{% macro goodput_section_ctes(profile_sections, key_columns) -%}
{{ runlens.goodput_section_bucket_ctes(profile_sections) }},

sections as (
    select
        {% for column in key_columns %}{{ profile_sections }}.{{ column }},
        {% endfor -%}
        {{ runlens.whole_microseconds(
            'sum(case when section_bucket_of.bucket = \'training\' then ' ~ profile_sections ~ '.seconds end)'
        ) }} as training_seconds,
        {%- for bucket in ['checkpoint_restore', 'checkpoint_save', 'evaluation', 'data_loading'] %}
        {{ runlens.whole_microseconds(
            'sum(case when section_bucket_of.bucket = \'' ~ bucket ~ '\' then ' ~ profile_sections ~ '.seconds else 0 end)'
        ) }} as {{ bucket }}_seconds{{ ',' if not loop.last }}
        {%- endfor %}
    from {{ profile_sections }}
    left join section_bucket_of on {{ profile_sections }}.section = section_bucket_of.section
    group by {% for column in key_columns %}{{ profile_sections }}.{{ column }}{{ ', ' if not loop.last }}{% endfor %}
)
{%- endmacro %}

{#- The CTEs that carve the sections and the wait for the slowest rank from what the timeline
    leaves (def_goodput), ending in `carved_to_productive`: `measured` gives wall_seconds,
    start_up_total_seconds, redone_seconds, lost_seconds, silent_seconds, down_seconds,
    final_tail_seconds, the sections'
    seconds (restore_section_seconds, save_section_seconds, evaluation_section_seconds,
    data_loading_section_seconds, training_section_seconds), has_training_sections and
    rank_waiting_measured_seconds; each carved bucket takes at most what is left, in this order. -#}
{% macro goodput_carving_ctes(measured) -%}
training_time as (
    -- what the timeline leaves: the sessions' training time, less redone and lost progress, a
    -- stalled run's silence and the tail;
    -- a restore timed as a section happened before training began: it is start-up time
    select
        *,
        least(restore_section_seconds, start_up_total_seconds) as checkpoint_restore_seconds,
        {{ runlens.whole_microseconds(
            'wall_seconds - start_up_total_seconds - redone_seconds - lost_seconds - silent_seconds'
            ~ ' - down_seconds - final_tail_seconds'
        ) }} as training_time_seconds
    from {{ measured }}
),

carved as (
    select
        *,
        least(save_section_seconds, training_time_seconds) as checkpoint_save_seconds,
        least(evaluation_section_seconds, greatest(training_time_seconds - save_section_seconds, 0))
            as evaluation_seconds,
        least(
            data_loading_section_seconds,
            greatest(training_time_seconds - save_section_seconds - evaluation_section_seconds, 0)
        ) as data_loading_seconds,
        least(
            rank_waiting_measured_seconds,
            greatest(
                training_time_seconds - save_section_seconds - evaluation_section_seconds
                - data_loading_section_seconds,
                0
            )
        ) as rank_waiting_seconds
    from training_time
),

left_over as (
    select
        *,
        {{ runlens.whole_microseconds(
            'training_time_seconds - checkpoint_save_seconds - evaluation_seconds - data_loading_seconds'
            ~ ' - rank_waiting_seconds'
        ) }} as left_seconds
    from carved
),

carved_to_productive as (
    -- the training sections' seconds, up to what is left; without them, all that is left
    select
        *,
        case
            when has_training_sections and training_section_seconds < left_seconds then training_section_seconds
            else left_seconds
        end as productive_seconds
    from left_over
)
{%- endmacro %}

{#- The bucket columns of a goodput mart, in the buckets' order, and its goodput, from the CTE
    goodput_carving_ctes ends in (carved_to_productive). -#}
{% macro goodput_bucket_columns() -%}
productive_seconds,
        {{ runlens.whole_microseconds('start_up_total_seconds - checkpoint_restore_seconds') }} as start_up_seconds,
        checkpoint_restore_seconds,
        checkpoint_save_seconds,
        evaluation_seconds,
        data_loading_seconds,
        rank_waiting_seconds,
        down_seconds,
        redone_seconds,
        lost_seconds,
        silent_seconds,
        final_tail_seconds,
        {{ runlens.whole_microseconds('left_seconds - productive_seconds') }} as unattributed_seconds,
        case when wall_seconds > 0 then productive_seconds / wall_seconds end as goodput
{%- endmacro %}
