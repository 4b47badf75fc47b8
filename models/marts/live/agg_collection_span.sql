-- Each collection's span and concurrency (def_span_concurrency): from its first run_start to its
-- last end (the as-of time while a run is still going), the run time summed over its runs, how
-- many ran at once at the peak and on average, its longest run (a running run by its expected
-- total), and its GPU-hours (def_gpu_hours).
-- Incremental by collection: a refresh computes again the collections whose runs changed
-- (macros/run_groups.sql) and those that follow the clock, a run of theirs open now or when their
-- row was computed; the others keep their rows.
-- Grain: one row per collection with a run that started.
-- depends_on: {{ ref('int_run_groups') }}
{{ config(**runlens.incremental_config(
    'collection', pre_hook="{{ runlens.delete_rows_of_changed_or_open_collections(ref('fct_run_segments')) }}"
)) }}
with

segments as (
    select * from {{ ref('fct_run_segments') }}
    where {{ runlens.is_collection_without_row('collection') }}
),

run_gpu_hours as (
    select * from {{ ref('fct_run_gpu_hours') }}
    where {{ runlens.is_collection_without_row('collection') }}
),

live_runs as (
    select * from {{ ref('fct_run_live_status') }}
),

changes as (
    -- the sweep line: +1 where a segment starts, -1 where it ends, netted per instant, so a run
    -- that ends when another starts does not overlap it
    select
        collection,
        change_at,
        sum(change) as change
    from (
        select
            collection,
            started_at as change_at,
            1 as change
        from segments
        union all
        select
            collection,
            ended_at as change_at,
            -1 as change
        from segments
    ) as segment_edges
    group by collection, change_at
),

running_counts as (
    select
        collection,
        sum(change) over (partition by collection order by change_at) as running_runs
    from changes
),

peaks as (
    select
        collection,
        max(running_runs) as peak_concurrent_runs
    from running_counts
    group by collection
),

run_spans as (
    select
        run_id,
        collection,
        min(started_at) as started_at,
        max(ended_at) as ended_at,
        max(case when is_open then 1 else 0 end) = 1 as is_open,
        sum(seconds) as running_seconds
    from segments
    group by run_id, collection
),

run_lengths as (
    -- a running run's length is what it has run so far plus its estimated remaining time
    select
        run_spans.run_id,
        run_spans.collection,
        {{ runlens.seconds_between('run_spans.started_at', 'run_spans.ended_at') }}
        + case when run_spans.is_open then coalesce(live_runs.remaining_seconds, 0) else 0 end as length_seconds,
        run_spans.is_open as is_expected
    from run_spans
    left join live_runs on run_spans.run_id = live_runs.run_id
),

ranked_runs as (
    select
        run_id,
        collection,
        length_seconds,
        is_expected,
        row_number() over (partition by collection order by length_seconds desc, run_id asc) as length_rank
    from run_lengths
),

collection_spans as (
    select
        collection,
        min(started_at) as first_started_at,
        max(ended_at) as span_ended_at,
        max(case when is_open then 1 else 0 end) = 1 as is_open,
        count(*) as runs,
        sum(running_seconds) as active_seconds
    from run_spans
    group by collection
),

collection_gpu_hours as (
    select
        collection,
        count(gpus) as runs_with_gpus,
        case when count(gpus) = count(*) then sum(gpu_hours) end as gpu_hours
    from run_gpu_hours
    group by collection
),

final as (
    select
        collection_spans.collection,
        collection_spans.first_started_at,
        collection_spans.span_ended_at,
        collection_spans.is_open,
        {{ runlens.seconds_between('collection_spans.first_started_at', 'collection_spans.span_ended_at') }}
            as span_seconds,
        collection_spans.runs,
        collection_spans.active_seconds,
        cast(peaks.peak_concurrent_runs as {{ dbt.type_bigint() }}) as peak_concurrent_runs,
        case
            when collection_spans.first_started_at < collection_spans.span_ended_at
                then collection_spans.active_seconds / {{ runlens.seconds_between(
                    'collection_spans.first_started_at', 'collection_spans.span_ended_at'
                ) }}
        end as mean_concurrent_runs,
        ranked_runs.run_id as longest_run_id,
        ranked_runs.length_seconds as longest_run_seconds,
        ranked_runs.is_expected as is_longest_run_expected,
        coalesce(collection_gpu_hours.runs_with_gpus, 0) as runs_with_gpus,
        collection_gpu_hours.gpu_hours,
        {{ runlens.build_started_at() }} as computed_at
    from collection_spans
    inner join peaks on collection_spans.collection = peaks.collection
    inner join ranked_runs
        on collection_spans.collection = ranked_runs.collection
        and ranked_runs.length_rank = 1
    left join collection_gpu_hours on collection_spans.collection = collection_gpu_hours.collection
)

select * from final
