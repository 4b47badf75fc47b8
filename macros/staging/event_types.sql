{#- The event types runlens reads, the aliases a user's logger may use for them, and what a line
    of another type is: an other event, kept apart (a sensible name, not like a runlens type), or
    an unknown_event reject (a name of no sensible form, or one that resembles a runlens type: a
    likely typo). The rules are documented in models/staging/input_contract.md, "Event types". -#}

{#- The six event types of the input contract that describe a run's progress (the likely-typo
    rule compares names with these). -#}
{% macro runlens_event_types() -%}
    {{ return(['run_start', 'train_start', 'checkpoint', 'epoch_end', 'run_end', 'profile']) }}
{%- endmacro %}

{#- Every event type runlens reads: the six, and `sample` (a utilization sample, input_contract.md
    "Utilization samples"), which the likely-typo rule leaves out: a name that merely holds `sample`
    (`eval_sample`, `samples_seen`) stays an other event, as it was before samples were read. -#}
{% macro read_event_types() -%}
    {{ return(runlens.runlens_event_types() + ['sample']) }}
{%- endmacro %}

{#- The aliases: the dbt var `event_aliases`, else the environment variable RUNLENS_EVENT_ALIASES,
    each a comma-separated list of `alias=type` (`train_begin=run_start,save=checkpoint`) or, for
    the var, a mapping. Returns a dict alias -> type; a malformed entry stops the build with one
    line that says what to write. -#}
{% macro event_aliases() -%}
    {%- set setting = var('event_aliases', env_var('RUNLENS_EVENT_ALIASES', '')) -%}
    {%- set pairs = [] -%}
    {%- if setting is mapping -%}
        {%- for alias, event_type in setting.items() -%}
            {%- do pairs.append([alias | string, event_type | string]) -%}
        {%- endfor -%}
    {%- else -%}
        {%- for entry in ((setting or '') | string).split(',') if entry.strip() -%}
            {%- set parts = entry.split('=') -%}
            {%- if parts | length != 2 -%}
                {{ exceptions.raise_compiler_error("runlens: event alias '" ~ entry.strip() ~ "' is not of the form alias=type (for example RUNLENS_EVENT_ALIASES=train_begin=run_start,save=checkpoint)") }}
            {%- endif -%}
            {%- do pairs.append([parts[0].strip(), parts[1].strip()]) -%}
        {%- endfor -%}
    {%- endif -%}
    {%- set aliases = {} -%}
    {%- for alias, event_type in pairs -%}
        {%- if event_type not in runlens.read_event_types() -%}
            {{ exceptions.raise_compiler_error("runlens: event alias '" ~ alias ~ "=" ~ event_type ~ "' names no runlens event type: use one of " ~ runlens.read_event_types() | join(', ')) }}
        {%- endif -%}
        {%- if alias in runlens.read_event_types() or alias == '' -%}
            {{ exceptions.raise_compiler_error("runlens: event alias '" ~ alias ~ "=" ~ event_type ~ "': the alias must be a name other than the runlens event types") }}
        {%- endif -%}
        {%- if alias in aliases and aliases[alias] != event_type -%}
            {{ exceptions.raise_compiler_error("runlens: event alias '" ~ alias ~ "' is given for both " ~ aliases[alias] ~ " and " ~ event_type ~ ": keep one") }}
        {%- endif -%}
        {%- do aliases.update({alias: event_type}) -%}
    {%- endfor -%}
    {{ return(aliases) }}
{%- endmacro %}

{#- The aliases as one text, sorted (`save=checkpoint,train_begin=run_start`): kept on each file
    record so that a change of aliases reads every file again. -#}
{% macro event_aliases_text() -%}
    {%- set aliases = runlens.event_aliases() -%}
    {%- set entries = [] -%}
    {%- for alias in aliases | sort -%}
        {%- do entries.append(alias ~ '=' ~ aliases[alias]) -%}
    {%- endfor -%}
    {{ return(entries | join(',')) }}
{%- endmacro %}

{#- The event type of a line whose `event` is the string `name`: the runlens type its alias
    stands for, else the name itself. -#}
{% macro canonical_event_type(name) -%}
    {%- set aliases = runlens.event_aliases() -%}
    {%- if aliases -%}
        case {{ name }}
            {%- for alias in aliases | sort %}
            when {{ runlens.string_literal(alias) }} then '{{ aliases[alias] }}'
            {%- endfor %}
            else {{ name }}
        end
    {%- else -%}
        {{ name }}
    {%- endif -%}
{%- endmacro %}

{#- True when the event type is one runlens reads (read_event_types). -#}
{% macro is_runlens_event_type(event_type) -%}
    {{ event_type }} in ('{{ runlens.read_event_types() | join("', '") }}')
{%- endmacro %}

{#- True for an event name of a sensible form: a letter, then at most 63 letters, digits or
    `_ . : / -`. -#}
{% macro is_sensible_event_name(name) -%}
    {{ return(adapter.dispatch('is_sensible_event_name', 'runlens')(name)) }}
{%- endmacro %}

{% macro duckdb__is_sensible_event_name(name) -%}
    regexp_full_match({{ name }}, '[A-Za-z][A-Za-z0-9_.:/-]{0,63}')
{%- endmacro %}

{% macro postgres__is_sensible_event_name(name) -%}
    ({{ name }} ~ '^[A-Za-z][A-Za-z0-9_.:/-]{0,63}$')
{%- endmacro %}

{% macro spark__is_sensible_event_name(name) -%}
    ({{ name }} rlike '^[A-Za-z][A-Za-z0-9_.:/-]{0,63}\\z')
{%- endmacro %}

{#- The runlens event type that the name resembles, else NULL. Compared in lower case with every
    character but letters and digits removed (`Run_Start`, `run-end`, `EPOCH END` become
    `runstart`, `runend`, `epochend`), the name resembles a type when it is within edit distance 1
    of the type's so-written name, or 2 for a type of 8 letters or more (`checkpint`,
    `runstarted`); else when it holds the type's name (`run_ended`, `on_epoch_end`,
    `checkpoint_saved`); else when it holds the type's subject with another word for its verb
    (`run_finished`, `on_train_begin`, `epoch_done`: verb_words). The first type that the name
    resembles, in this order of the rules and of runlens_event_types, is the one named. -#}
{% macro resembled_event_type(name) -%}
    {%- set letters = runlens.letters_and_digits_lower(name) -%}
    case
        {%- for event_type in runlens.runlens_event_types() %}
        {%- set written = event_type | replace('_', '') %}
        when {{ runlens.edit_distance(letters, "'" ~ written ~ "'") }} <= {{ 2 if written | length >= 8 else 1 }}
            then '{{ event_type }}'
        {%- endfor %}
        {%- for event_type in runlens.runlens_event_types() %}
        when {{ letters }} like '%{{ event_type | replace('_', '') }}%' then '{{ event_type }}'
        {%- endfor %}
        {%- for event_type in runlens.runlens_event_types() if '_' in event_type %}
        {%- set subject, verb = event_type.split('_') %}
        {%- for word in runlens.verb_words().get(verb, []) %}
        when {{ letters }} like '%{{ subject ~ word }}%' then '{{ event_type }}'
        {%- endfor %}
        {%- endfor %}
    end
{%- endmacro %}

{#- Other words a logger writes for the verb of a type's name (run_start, train_start: start;
    epoch_end, run_end: end), in the forms it writes them; `started`, `ended` hold the verb itself. -#}
{% macro verb_words() -%}
    {{ return({
        'start': ['begin', 'began', 'begun'],
        'end': ['finish', 'done', 'complete', 'stop'],
    }) }}
{%- endmacro %}

{% macro letters_and_digits_lower(text) -%}
    {{ return(adapter.dispatch('letters_and_digits_lower', 'runlens')(text)) }}
{%- endmacro %}

{% macro default__letters_and_digits_lower(text) -%}
    lower(regexp_replace({{ text }}, '[^A-Za-z0-9]', '', 'g'))
{%- endmacro %}

{% macro spark__letters_and_digits_lower(text) -%}
    lower(regexp_replace({{ text }}, '[^A-Za-z0-9]', ''))
{%- endmacro %}

{#- Levenshtein distance: DuckDB's and Spark's built-in; on PostgreSQL the function that
    create_engine_functions makes (fuzzystrmatch is an extension a server may not have). -#}
{% macro edit_distance(left, right) -%}
    {{ return(adapter.dispatch('edit_distance', 'runlens')(left, right)) }}
{%- endmacro %}

{% macro default__edit_distance(left, right) -%}
    levenshtein({{ left }}, {{ right }})
{%- endmacro %}

{% macro postgres__edit_distance(left, right) -%}
    {{ target.schema }}.runlens_levenshtein({{ left }}, {{ right }})
{%- endmacro %}
