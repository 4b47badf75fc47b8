{#- Where the raw files and lines come from, chosen by adapter.dispatch. DuckDB reads the files in
    Python models (models/staging/raw_duckdb); these macros serve the SQL models in
    models/staging/raw_sql, which have the same columns:
      stg_raw_files: file_path, absolute_path, size_bytes, modified_at, is_gzip, file_fingerprint
      stg_raw_lines: file_path, file_fingerprint, line_number, line_text, raw_text,
                     is_invalid_utf8, is_blank, read_error -#}

{% macro select_raw_files() -%}
    {{ return(adapter.dispatch('select_raw_files', 'runlens')()) }}
{%- endmacro %}

{% macro select_raw_lines() -%}
    {{ return(adapter.dispatch('select_raw_lines', 'runlens')()) }}
{%- endmacro %}

{#- An engine without its own implementation cannot read the logs yet. (Parsing renders this even
    where the model is disabled, so it only raises when the model really runs.) -#}
{% macro default__select_raw_files() -%}
    {% if execute %}{{ exceptions.raise_compiler_error("runlens cannot read raw logs on " ~ target.type ~ " yet") }}{% endif %}
{%- endmacro %}

{% macro default__select_raw_lines() -%}
    {% if execute %}{{ exceptions.raise_compiler_error("runlens cannot read raw logs on " ~ target.type ~ " yet") }}{% endif %}
{%- endmacro %}

{#- PostgreSQL: scripts/load_raw.py has copied the files' lines from the client (COPY), split and
    decoded exactly as on DuckDB, and keeps them in step with the raw folder by fingerprint. -#}
{% macro postgres__select_raw_files() -%}
    select
        file_path,
        absolute_path,
        size_bytes,
        modified_at,
        is_gzip,
        file_fingerprint
    from {{ source('runlens_raw', 'raw_files') }}
{%- endmacro %}

{% macro postgres__select_raw_lines() -%}
    select
        file_path,
        file_fingerprint,
        line_number,
        line_text,
        raw_text,
        is_invalid_utf8,
        is_blank,
        read_error
    from {{ source('runlens_raw', 'raw_lines') }}
{%- endmacro %}

{#- Spark reads the raw folder itself (a local path, or an HDFS / object-store URI passed through
    unchanged). Its file sources take no options in a plain `from text.\`path\``, so pre-hooks on
    the two raw_sql models (dbt_project.yml; Spark builds them as tables, as a view cannot read a
    temporary view) declare temporary views over the folder: the files' text (wholetext: one row
    per file, one task per file, .gz decompressed, the raw bytes kept) and, off the local file
    system only, the file list (binaryFile, whose content column is never read). Both take
    `*.jsonl` and `*.jsonl.gz` recursively; Spark's listing skips names starting with `_` or `.`,
    and the models drop them again (Spark keeps `_x=y` folders). A gzip file Spark cannot
    decompress is skipped by the text view (ignoreCorruptFiles) and keeps its file record with a
    read_error. -#}
{% macro prepare_raw_file_list() -%}
    {{ return(adapter.dispatch('prepare_raw_file_list', 'runlens')()) }}
{%- endmacro %}

{% macro prepare_raw_file_text() -%}
    {{ return(adapter.dispatch('prepare_raw_file_text', 'runlens')()) }}
{%- endmacro %}

{#- Other engines read the raw folder without a hook. -#}
{% macro default__prepare_raw_file_list() -%}
{%- endmacro %}

{% macro default__prepare_raw_file_text() -%}
{%- endmacro %}

{% macro spark__prepare_raw_file_list() -%}
    {% if not runlens.spark__raw_dir_is_local() -%}
    create or replace temporary view runlens_raw_file_list
    using binaryFile
    options (
        path '{{ runlens.spark__raw_dir() | replace("\\", "\\\\") | replace("'", "\\'") }}',
        recursiveFileLookup 'true',
        pathGlobFilter '*.{jsonl,jsonl.gz}'
    )
    {%- endif %}
{%- endmacro %}

{% macro spark__prepare_raw_file_text() -%}
    create or replace temporary view runlens_raw_file_text
    using text
    options (
        path '{{ runlens.spark__raw_dir() | replace("\\", "\\\\") | replace("'", "\\'") }}',
        recursiveFileLookup 'true',
        pathGlobFilter '*.{jsonl,jsonl.gz}',
        wholetext 'true',
        ignoreCorruptFiles 'true'
    )
{%- endmacro %}

{% macro spark__raw_dir() -%}
    {{- var('raw_dir', env_var('RUNLENS_RAW_DIR', 'data/sample')) -}}
{%- endmacro %}

{#- Spark: whether the raw folder is on the local file system (no URI scheme, or file:). -#}
{% macro spark__raw_dir_is_local() -%}
    {%- set scheme = modules.re.match('^([A-Za-z][A-Za-z0-9+.-]*):', runlens.spark__raw_dir()) -%}
    {{- return(scheme is none or scheme.group(1) | lower == 'file') -}}
{%- endmacro %}

{#- Spark: the path part of a file URI as Spark lists it (scheme and authority dropped, percent
    escapes decoded; `+` is literal in a URI path, so it is kept). -#}
{% macro spark__uri_path(uri) -%}
    url_decode(replace(regexp_replace({{ uri }}, '^[A-Za-z][A-Za-z0-9+.-]*:(//[^/]*)?', ''), '+', '%2B'))
{%- endmacro %}

{#- Spark: the raw folder's path, as an expression, the way Spark qualifies it: a relative local
    path is taken from the JVM's working directory (dbt's), `.` and `..` are resolved, no `/` at
    the end. -#}
{% macro spark__raw_root_path() -%}
    {%- set raw_dir = runlens.spark__raw_dir() -%}
    {%- set path = modules.re.sub('^[A-Za-z][A-Za-z0-9+.-]*:(//[^/]*)?', '', raw_dir) -%}
    {%- if path.startswith('/') -%}
        {%- set joined = "'" ~ path | replace("\\", "\\\\") | replace("'", "\\'") ~ "'" -%}
    {%- else -%}
        {%- set joined = "concat(reflect('java.lang.System', 'getProperty', 'user.dir'), '/', '" ~ path | replace("\\", "\\\\") | replace("'", "\\'") ~ "')" -%}
    {%- endif -%}
    {%- set normalised = namespace(sql="regexp_replace(regexp_replace(" ~ joined ~ ", '/(\\\\./)+', '/'), '/+', '/')") -%}
    {%- for _ in range(4) -%}
        {%- set normalised.sql = "regexp_replace(" ~ normalised.sql ~ ", '/(?!\\\\.\\\\.(/|$))[^/]+/\\\\.\\\\.(/|$)', '/')" -%}
    {%- endfor -%}
    regexp_replace(regexp_replace({{ normalised.sql }}, '/\\.$', ''), '(.)/$', '$1')
{%- endmacro %}

{#- Spark: a listed file's path relative to the raw folder, `/`-separated. -#}
{% macro spark__relative_path(uri) -%}
    substring({{ runlens.spark__uri_path(uri) }}, length({{ runlens.spark__raw_root_path() }}) + 2)
{%- endmacro %}

{#- Spark: the inventory. Spark's file sources drop empty files, and Hadoop lists modification
    times in milliseconds where DuckDB keeps microseconds, so a local folder is listed by find(1)
    and stat(1) run through TRANSFORM (names starting with `_` or `.` pruned, symlinked folders not
    followed, as os.walk in raw_duckdb/stg_raw_files.py); the fingerprint then has nanoseconds as
    on DuckDB, and modified_at is Python's float st_mtime rounded half to even to the microsecond,
    reproduced here. Elsewhere (HDFS, object stores) the binaryFile listing gives the files (not
    the empty ones) with their size and millisecond time. -#}
{% macro spark__select_raw_files() -%}
    {%- set stat_pattern = "'^(.*)[|]([0-9]+)[|](-?[0-9]+)[.]([0-9]{9})$'" -%}
    with

    {% if runlens.spark__raw_dir_is_local() -%}
    raw_root as (
        select {{ runlens.spark__raw_root_path() }} as root_path
    ),

    stat_lines as (
        select transform (root_path)
            using 'while IFS= read -r root; do find -H "$root" -mindepth 1 -name "[._]*" -prune -o "(" -type f -o -type l ")" "(" -name "*.jsonl" -o -name "*.jsonl.gz" ")" -print0 | xargs -0 -r stat -L -c "%n|%s|%.9Y" -- ; done; exit 0'
            as (stat_line string)
        from raw_root
    ),

    stats as (
        select
            regexp_extract(stat_lines.stat_line, {{ stat_pattern }}, 1) as absolute_path,
            cast(regexp_extract(stat_lines.stat_line, {{ stat_pattern }}, 2) as bigint) as size_bytes,
            cast(regexp_extract(stat_lines.stat_line, {{ stat_pattern }}, 3) as bigint) as mtime_seconds,
            cast(regexp_extract(stat_lines.stat_line, {{ stat_pattern }}, 4) as bigint) as mtime_nanos,
            raw_root.root_path
        from stat_lines
        cross join raw_root
        where stat_lines.stat_line rlike {{ stat_pattern }}
    ),

    stat_times as (
        select
            *,
            cast(mtime_seconds as double) + cast(mtime_nanos as double) * 1.0E-9D as mtime_float
        from stats
    ),

    logs as (
        select
            substring(absolute_path, length(root_path) + 2) as file_path,
            absolute_path,
            size_bytes,
            timestamp_micros(
                cast(floor(mtime_float) as bigint) * 1000000
                + cast(bround((mtime_float - floor(mtime_float)) * 1000000.0D, 0) as bigint)
            ) as modified_at,
            size_bytes || ':' || (mtime_seconds * 1000000000 + mtime_nanos) as file_fingerprint
        from stat_times
    ),
    {%- else -%}
    logs as (
        select
            {{ runlens.spark__relative_path('path') }} as file_path,
            path as absolute_path,
            length as size_bytes,
            modificationTime as modified_at,
            length || ':' || unix_millis(modificationTime) * 1000000 as file_fingerprint
        from runlens_raw_file_list
    ),
    {%- endif %}

    final as (
        select
            file_path,
            absolute_path,
            size_bytes,
            modified_at,
            file_path rlike '[.]gz$' as is_gzip,
            file_fingerprint
        from logs
        where
            file_path rlike '[.]jsonl([.]gz)?$'
            and not file_path rlike '(^|/)[_.]'
    )

    select * from final
{%- endmacro %}

{#- Spark: the lines, split and decoded as on DuckDB (raw_duckdb/stg_raw_lines.py). Spark's split
    works on decoded text, where invalid bytes would already be replaced, so a file whose bytes
    are valid UTF-8 (is_valid_utf8 on the raw string) is split as text, and any other file is
    split on its hex form (`0A` at an even offset), each line decoded on its own and its raw text
    written with `\xNN` for the bytes DuckDB escapes (not printable ASCII, `\`, `'`, `"`).
    Java's `$` also matches before a final line break, so the patterns end in `\z`. -#}
{% macro spark__select_raw_lines() -%}
    with

    files as (
        select
            file_path,
            file_fingerprint,
            size_bytes,
            is_gzip
        from {{ ref('stg_raw_files') }}
    ),

    read_files as (
        select
            {{ runlens.spark__relative_path('input_file_name()') }} as file_path,
            value as content
        from runlens_raw_file_text
    ),

    contents as (
        select
            files.file_path,
            files.file_fingerprint,
            read_files.content,
            is_valid_utf8(read_files.content) as is_valid_text,
            case
                when read_files.file_path is not null or files.size_bytes = 0 then null
                when files.is_gzip then 'corrupt_gzip: Spark could not decompress the file'
                else 'unreadable: Spark could not read the file'
            end as read_error
        from files
        left join read_files on files.file_path = read_files.file_path
    ),

    text_pieces as (
        select
            file_path,
            file_fingerprint,
            split(content, '\n', -1) as pieces
        from contents
        where is_valid_text
    ),

    text_lines as (
        select
            file_path,
            file_fingerprint,
            size(pieces) as piece_count,
            posexplode(pieces) as (piece_index, piece)
        from text_pieces
    ),

    byte_pieces as (
        select
            file_path,
            file_fingerprint,
            regexp_extract_all(hex(cast(content as binary)) || '0A', '((?:[0-9A-F]{2})*?)0A', 1) as pieces
        from contents
        where not is_valid_text
    ),

    byte_lines as (
        select
            file_path,
            file_fingerprint,
            size(pieces) as piece_count,
            posexplode(pieces) as (piece_index, hex_piece)
        from byte_pieces
    ),

    decoded_byte_lines as (
        select
            file_path,
            file_fingerprint,
            piece_count,
            piece_index,
            case
                when is_valid_utf8(cast(unhex(hex_piece) as string)) then cast(unhex(hex_piece) as string)
            end as piece,
            array_join(
                transform(
                    regexp_extract_all(regexp_replace(hex_piece, '^((?:[0-9A-F]{2})*?)0D\\z', '$1'), '([0-9A-F]{2})', 1),
                    byte_hex -> case
                        when
                            cast(conv(byte_hex, 16, 10) as int) between 32 and 126
                            and byte_hex not in ('5C', '27', '22')
                            then char(cast(conv(byte_hex, 16, 10) as int))
                        else concat('\\x', byte_hex)
                    end
                ),
                ''
            ) as escaped_line,
            hex_piece
        from byte_lines
    ),

    all_lines as (
        select
            file_path,
            file_fingerprint,
            piece_index,
            piece_count,
            piece,
            cast(null as string) as escaped_line,
            piece = '' as is_empty_piece
        from text_lines
        union all
        select
            file_path,
            file_fingerprint,
            piece_index,
            piece_count,
            piece,
            escaped_line,
            hex_piece = '' as is_empty_piece
        from decoded_byte_lines
    ),

    physical_lines as (
        select * from all_lines
        where not (piece_index = piece_count - 1 and is_empty_piece)
    ),

    cleaned as (
        select
            file_path,
            file_fingerprint,
            cast(piece_index + 1 as bigint) as line_number,
            regexp_replace(
                case when piece_index = 0 then trim(leading '\uFEFF' from piece) else piece end, '\r\\z', ''
            ) as line_text,
            escaped_line
        from physical_lines
    ),

    lines as (
        select
            file_path,
            file_fingerprint,
            line_number,
            line_text,
            coalesce(line_text, escaped_line) as raw_text,
            line_text is null as is_invalid_utf8,
            coalesce(trim(both ' \t\u000B\u000C\r' from line_text) = '', false) as is_blank,
            cast(null as string) as read_error
        from cleaned
    ),

    file_records as (
        select
            file_path,
            file_fingerprint,
            cast(0 as bigint) as line_number,
            cast(null as string) as line_text,
            cast(null as string) as raw_text,
            false as is_invalid_utf8,
            true as is_blank,
            read_error
        from contents
    )

    select * from lines
    union all
    select * from file_records
{%- endmacro %}
