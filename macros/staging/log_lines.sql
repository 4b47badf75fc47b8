{#- What a line is: the rules that turn a log file's text into its physical lines, the same on
    every engine. The text comes from the engine's reader (read_log_texts, macros/staging/
    log_texts.sql), with each line that is not valid UTF-8 already replaced by its escaped form
    and its number listed in invalid_line_numbers.

    - Lines are split on `\n` (LF); the empty piece after a final newline is not a line, so a
      missing newline after the last line changes nothing.
    - On a valid line, one trailing `\r` (CRLF endings) is removed, and on line 1 any UTF-8 byte
      order marks.
    - A line that holds only blanks (space, tab, vertical tab, form feed, CR) is blank: counted,
      never an event.
    - An invalid line's text is its escaped form (is_invalid_utf8 says so).

    `file_texts` has file_path, file_fingerprint, text (a file's text, or a chunk of it that ends
    after a line break), first_line_number (the number of its first line in the file) and
    invalid_line_numbers; the result has one row per physical line: file_path, file_fingerprint,
    line_number (from 1), text, is_invalid_utf8, is_blank. -#}
{#- Every physical line of the files stg_log_lines reads in this build (files_to_read,
    read_log_texts: macros/staging/log_texts.sql), and one file record per file (line_number 0,
    with size_bytes, modified_at, is_gzip and read_error). -#}
{% macro physical_log_lines() -%}
    with

    files_to_read as (
        {{ runlens.files_to_read() }}
    ),

    file_texts as (
        {{ runlens.read_log_texts('files_to_read') }}
    ),

    read_files as (
        {{ runlens.read_log_files('files_to_read') }}
    )

    select
        file_path,
        file_fingerprint,
        line_number,
        text,
        is_invalid_utf8,
        is_blank,
        cast(null as {{ dbt.type_bigint() }}) as size_bytes,
        cast(null as {{ dbt.type_timestamp() }}) as modified_at,
        cast(null as {{ dbt.type_boolean() }}) as is_gzip,
        cast(null as {{ dbt.type_string() }}) as read_error
    from ({{ runlens.split_log_lines('file_texts') }}) as split_lines
    union all
    select
        file_path,
        file_fingerprint,
        0 as line_number,
        cast(null as {{ dbt.type_string() }}) as text,
        false as is_invalid_utf8,
        false as is_blank,
        size_bytes,
        modified_at,
        is_gzip,
        read_error
    from read_files
{%- endmacro %}

{#- The lines stg_log_lines parses (physical_log_lines), as the engine reads them best. -#}
{% macro lines_to_parse() -%}
    {{ return(adapter.dispatch('lines_to_parse', 'runlens')()) }}
{%- endmacro %}

{% macro default__lines_to_parse() -%}
    {{ runlens.physical_log_lines() }}
{%- endmacro %}

{#- DuckDB parses on one thread what comes out of a few large texts. So the lines are sorted
    first, which ends the pipeline there and lets every thread parse them, when they fit in memory;
    a larger read (reads_in_bulk) was written by the pre-hook to a scratch table on disk, which
    every thread reads. Either way the table comes out sorted by file and line. -#}
{% macro duckdb__lines_to_parse() -%}
    {%- do runlens.take_log_file_listing() -%}
    {%- if runlens.reads_in_bulk() -%}
        select * from {{ runlens.scratch_lines_relation() }}
    {%- else -%}
        select * from ({{ runlens.physical_log_lines() }}) as physical_lines
        order by file_path, line_number
    {%- endif -%}
{%- endmacro %}

{#- DuckDB: the raw folder is listed once a build, when stg_log_lines compiles (on the connection
    its hooks and its body then run on), into a session variable that the source
    runlens_logs.log_files reads (_runlens_logs__sources.yml); without it, the source lists the
    folder itself. So every statement of the model sees the same files, and a folder of many files
    is not listed once per statement. The post-hook forgets it (forget_staged_log_texts). -#}
{% macro take_log_file_listing() -%}
    {%- if execute and model.resource_type != 'unit_test' -%}
        {%- do run_query("set variable runlens_listed_log_files = runlens_list_log_files()") -%}
    {%- endif -%}
{%- endmacro %}

{#- DuckDB: true when the files to read hold more than parallel_scan_max_bytes on disk (a gzip
    file counted four times), too many lines to sort in memory. -#}
{% macro reads_in_bulk() -%}
    {#- a unit test reads fixtures, not files -#}
    {%- if not execute or model.resource_type == 'unit_test' -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set sizes = run_query(
        "select coalesce(sum(case when is_gzip then 4 else 1 end * size_bytes), 0) from ("
        ~ runlens.files_to_read() ~ ") as files"
    ) -%}
    {{ return(sizes.columns[0].values()[0] > var('parallel_scan_max_bytes')) }}
{%- endmacro %}

{% macro scratch_lines_relation() -%}
    {{ this.schema }}.stg_log_lines__scratch_lines
{%- endmacro %}

{#- Pre-hook of stg_log_lines on DuckDB, after the texts are staged: a large read's lines in a
    scratch table (compressed on disk, read by every thread); the post-hook drops it. -#}
{% macro write_scratch_lines() -%}
    {{ return(adapter.dispatch('write_scratch_lines', 'runlens')()) }}
{%- endmacro %}

{% macro default__write_scratch_lines() -%}
{%- endmacro %}

{% macro duckdb__write_scratch_lines() -%}
    {%- if runlens.reads_in_bulk() -%}
        create or replace table {{ runlens.scratch_lines_relation() }} as {{ runlens.physical_log_lines() }}
    {%- endif -%}
{%- endmacro %}

{% macro drop_scratch_lines() -%}
    {{ return(adapter.dispatch('drop_scratch_lines', 'runlens')()) }}
{%- endmacro %}

{% macro default__drop_scratch_lines() -%}
{%- endmacro %}

{% macro duckdb__drop_scratch_lines() -%}
    drop table if exists {{ runlens.scratch_lines_relation() }}
{%- endmacro %}

{% macro split_log_lines(file_texts) -%}
    select
        file_path,
        file_fingerprint,
        line_number,
        case when is_invalid_utf8 then piece else line_text end as text,
        is_invalid_utf8,
        not is_invalid_utf8 and {{ runlens.is_blank_text('line_text') }} as is_blank
    from (
        select
            file_path,
            file_fingerprint,
            line_number,
            piece,
            is_invalid_utf8,
            {{ runlens.without_trailing_cr(
                "case when line_number = 1 then " ~ runlens.without_leading_bom('piece') ~ " else piece end"
            ) }} as line_text
        from (
            select
                file_path,
                file_fingerprint,
                line_number,
                piece,
                {{ runlens.list_has('invalid_line_numbers', 'line_number') }} as is_invalid_utf8
            from ({{ runlens.text_pieces(file_texts) }}) as pieces
            where not (line_number = piece_count and piece = '')
        ) as physical_lines
    ) as cleaned_lines
{%- endmacro %}

{#- One row per piece of each text split on LF: file_path, file_fingerprint, invalid_line_numbers,
    line_number (the text's first_line_number for its first piece), piece_count (the number of the
    text's last piece), piece. -#}
{% macro text_pieces(file_texts) -%}
    {{ return(adapter.dispatch('text_pieces', 'runlens')(file_texts)) }}
{%- endmacro %}

{% macro duckdb__text_pieces(file_texts) -%}
    select
        file_path,
        file_fingerprint,
        invalid_line_numbers,
        first_line_number - 1 + generate_subscripts(pieces, 1)::bigint as line_number,
        first_line_number - 1 + len(pieces) as piece_count,
        unnest(pieces) as piece
    from (
        select
            file_path,
            file_fingerprint,
            invalid_line_numbers,
            first_line_number,
            string_split(text, chr(10)) as pieces
        from {{ file_texts }}
        where text is not null
    ) as split_texts
{%- endmacro %}

{% macro postgres__text_pieces(file_texts) -%}
    select
        texts.file_path,
        texts.file_fingerprint,
        texts.invalid_line_numbers,
        texts.first_line_number - 1 + pieces.line_number as line_number,
        texts.first_line_number - 1 + pieces.piece_count as piece_count,
        pieces.piece
    from {{ file_texts }} as texts
    cross join lateral (
        select
            ordinality as line_number,
            count(*) over () as piece_count,
            piece
        from string_to_table(texts.text, chr(10)) with ordinality as split (piece, ordinality)
    ) as pieces
    where texts.text is not null
{%- endmacro %}

{% macro spark__text_pieces(file_texts) -%}
    select
        file_path,
        file_fingerprint,
        invalid_line_numbers,
        cast(first_line_number + piece_index as bigint) as line_number,
        first_line_number - 1 + piece_count as piece_count,
        piece
    from (
        select
            file_path,
            file_fingerprint,
            invalid_line_numbers,
            first_line_number,
            size(pieces) as piece_count,
            posexplode(pieces) as (piece_index, piece)
        from (
            select
                file_path,
                file_fingerprint,
                invalid_line_numbers,
                first_line_number,
                split(text, '\n', -1) as pieces
            from {{ file_texts }}
            where text is not null
        ) as split_texts
    ) as exploded
{%- endmacro %}

{#- True when the list holds the number. -#}
{% macro list_has(list, number) -%}
    {{ return(adapter.dispatch('list_has', 'runlens')(list, number)) }}
{%- endmacro %}

{% macro duckdb__list_has(list, number) -%}
    coalesce(list_contains({{ list }}, {{ number }}), false)
{%- endmacro %}

{% macro postgres__list_has(list, number) -%}
    coalesce({{ number }} = any({{ list }}), false)
{%- endmacro %}

{% macro spark__list_has(list, number) -%}
    coalesce(array_contains({{ list }}, {{ number }}), false)
{%- endmacro %}

{#- The text without the UTF-8 byte order marks at its start. -#}
{% macro without_leading_bom(text) -%}
    {{ return(adapter.dispatch('without_leading_bom', 'runlens')(text)) }}
{%- endmacro %}

{% macro duckdb__without_leading_bom(text) -%}
    ltrim({{ text }}, chr(65279))
{%- endmacro %}

{% macro postgres__without_leading_bom(text) -%}
    ltrim({{ text }}, chr(65279))
{%- endmacro %}

{% macro spark__without_leading_bom(text) -%}
    trim(leading '\uFEFF' from {{ text }})
{%- endmacro %}

{#- The text without one trailing CR. -#}
{% macro without_trailing_cr(text) -%}
    {{ return(adapter.dispatch('without_trailing_cr', 'runlens')(text)) }}
{%- endmacro %}

{% macro duckdb__without_trailing_cr(text) -%}
    case when suffix({{ text }}, chr(13)) then left({{ text }}, -1) else {{ text }} end
{%- endmacro %}

{% macro postgres__without_trailing_cr(text) -%}
    regexp_replace({{ text }}, '\r$', '')
{%- endmacro %}

{#- Spark: Java's `$` also matches before a final line break, so the pattern ends in `\z`. -#}
{% macro spark__without_trailing_cr(text) -%}
    regexp_replace({{ text }}, '\r\\z', '')
{%- endmacro %}

{#- True when the text holds only space, tab, vertical tab, form feed and CR (or nothing). -#}
{% macro is_blank_text(text) -%}
    {{ return(adapter.dispatch('is_blank_text', 'runlens')(text)) }}
{%- endmacro %}

{#- DuckDB: a log line starts with `{` almost always, so the pattern runs only on the rest (in a
    CASE: DuckDB would evaluate both sides of an AND in a select list). -#}
{% macro duckdb__is_blank_text(text) -%}
    case
        when {{ text }} = '' then true
        when left({{ text }}, 1) in (' ', chr(9), chr(11), chr(12), chr(13))
            then regexp_full_match({{ text }}, '[ \t\x0B\x0C\r]*')
        else false
    end
{%- endmacro %}

{% macro postgres__is_blank_text(text) -%}
    ({{ text }} ~ '^[ \t\x0B\x0C\r]*$')
{%- endmacro %}

{% macro spark__is_blank_text(text) -%}
    coalesce(trim(both ' \t\u000B\u000C\r' from {{ text }}) = '', false)
{%- endmacro %}
