-- depends_on: {{ ref('int_run_versions') }}
-- The GPUs of each run with GPU samples (def_utilization): the GPUs its samples name (a GPU index
-- per rank and host), and the count the utilization marts use: resources.gpus of its run_start
-- when it names them, else the sampled ones.
-- Grain: one row per run with at least one accepted GPU sample. Incremental by run.
with

samples as (
    select * from {{ ref('int_utilization_samples') }}
    where occurrence = 1 and gpu_index is not null and {{ runlens.is_run_to_compute('run_id') }}
),

resources as (
    select * from {{ ref('int_run_resources') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

devices as (
    select distinct
        run_id,
        rank,
        host,
        gpu_index
    from samples
),

sampled as (
    select
        run_id,
        count(*) as sampled_gpus
    from devices
    group by run_id
),

final as (
    select
        sampled.run_id,
        sampled.sampled_gpus,
        coalesce(resources.gpus, sampled.sampled_gpus) as gpus,
        case when resources.gpus is not null then 'resources' else 'samples' end as gpus_source,
        {{ runlens.build_started_at() }} as computed_at
    from sampled
    left join resources on sampled.run_id = resources.run_id
)

select * from final
