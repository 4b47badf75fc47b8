{#- Helper functions an engine needs before the models run (on-run-start in dbt_project.yml).
    PostgreSQL has no try_cast: a cast that fails raises an error and would stop the build, so
    each conversion a bad line could break is wrapped in a function that gives NULL instead.
    An EXCEPTION block starts a subtransaction, which a parallel worker cannot do, so the functions
    are parallel unsafe (marked safe, a parallel plan failed with "cannot start subtransactions
    during a parallel operation"). -#}
{% macro create_engine_functions() -%}
    {{ return(adapter.dispatch('create_engine_functions', 'runlens')()) }}
{%- endmacro %}

{% macro default__create_engine_functions() -%}
    select 1
{%- endmacro %}

{% macro postgres__create_engine_functions() -%}
    {%- set schema = target.schema -%}
    create schema if not exists {{ schema }};

    create or replace function {{ schema }}.runlens_try_jsonb(line text) returns jsonb
    language plpgsql immutable parallel unsafe as $$
    begin
        return line::jsonb;
    exception when others then
        return null;
    end $$;

    create or replace function {{ schema }}.runlens_try_bigint(value text) returns bigint
    language plpgsql immutable parallel unsafe as $$
    begin
        return value::bigint;
    exception when others then
        return null;
    end $$;

    create or replace function {{ schema }}.runlens_try_double(value text) returns double precision
    language plpgsql immutable parallel unsafe as $$
    begin
        return value::double precision;
    exception when others then
        return null;
    end $$;

    -- RFC 3339 text that passed the pattern check, ending in Z or an offset, to UTC. The offset
    -- is applied by hand: timestamptz input stops at +-15:59, RFC 3339 allows up to +-23:59.
    create or replace function {{ schema }}.runlens_try_utc_timestamp(value text) returns timestamp
    language plpgsql immutable parallel unsafe as $$
    declare
        zone text := substring(value from '(Z|[+-][0-9]{2}:[0-9]{2})$');
        local_time timestamp;
    begin
        local_time := left(value, length(value) - length(zone))::timestamp;
        if zone = 'Z' then
            return local_time;
        end if;
        return local_time - (case when left(zone, 1) = '-' then -1 else 1 end)
            * (substr(zone, 2, 2)::int * interval '1 hour' + substr(zone, 5, 2)::int * interval '1 minute');
    exception when others then
        return null;
    end $$;

    -- Unix epoch seconds to UTC, rounded to the microsecond (halves away from zero, as DuckDB)
    create or replace function {{ schema }}.runlens_try_epoch_timestamp(value text) returns timestamp
    language plpgsql immutable parallel unsafe as $$
    declare
        micros double precision := value::double precision * 1000000;
    begin
        return timestamp '1970-01-01' + (sign(micros) * floor(abs(micros) + 0.5))::bigint * interval '1 microsecond';
    exception when others then
        return null;
    end $$;

    -- Levenshtein distance (edit_distance in macros/staging/event_types.sql): fuzzystrmatch is an
    -- extension a server may not have
    create or replace function {{ schema }}.runlens_levenshtein(a text, b text) returns int
    language plpgsql immutable parallel safe as $$
    declare
        previous int[];
        current_row int[];
        i int;
        j int;
    begin
        if a is null or b is null then
            return null;
        end if;
        previous := array(select generate_series(0, length(b)));
        for i in 1..length(a) loop
            current_row := array[i];
            for j in 1..length(b) loop
                current_row := current_row || least(
                    previous[j + 1] + 1,
                    current_row[j] + 1,
                    previous[j] + case when substr(a, i, 1) = substr(b, j, 1) then 0 else 1 end
                );
            end loop;
            previous := current_row;
        end loop;
        return previous[length(b) + 1];
    end $$;
{%- endmacro %}
