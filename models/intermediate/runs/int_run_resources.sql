-- depends_on: {{ ref('int_run_versions') }}
-- The GPUs each run says it uses: `resources.gpus` of its run_starts (input_contract.md), an
-- integer >= 0; when a resumed run's run_starts differ, the latest that says counts.
-- Grain: one row per run whose run_start names its GPUs.
with

run_starts as (
    select * from {{ ref('int_event_occurrences') }}
    where
        occurrence = 1 and event_type = 'run_start' and resources is not null
        and {{ runlens.is_run_to_compute('run_id') }}
),

entries as (
    {{ runlens.json_object_entries_query(
        'run_starts', 'resources', ['run_id', 'event_at', 'file_path', 'line_number']
    ) }}
),

gpu_counts as (
    select
        run_id,
        event_at,
        file_path,
        line_number,
        {{ runlens.json_to_text('entry_value') }} as gpus_text
    from entries
    where entry_key = 'gpus'
),

ranked as (
    select
        run_id,
        {{ runlens.try_to_bigint('gpus_text') }} as gpus,
        row_number() over (
            partition by run_id
            order by event_at desc, file_path desc, line_number desc
        ) as recency_rank
    from gpu_counts
    -- an integer >= 0 (a string, a fraction or a negative number says nothing)
    where {{ runlens.try_to_bigint('gpus_text') }} >= 0
),

final as (
    select
        run_id,
        gpus,
        {{ runlens.build_started_at() }} as computed_at
    from ranked
    where recency_rank = 1
)

select * from final
