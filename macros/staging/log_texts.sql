{#- Reading the raw files: each engine turns the log files listed by the source
    `runlens_logs.log_files` into their text, each line that is not valid UTF-8 replaced by its
    escaped form (`\xNN` for every byte but the printable ASCII other than `"`, `'` and `\`, less
    one trailing `\x0D`) and listed by number. The line rules then take over (log_lines.sql).

    `log_files` has file_path, absolute_path, size_bytes, modified_at, is_gzip and
    file_fingerprint (and, on PostgreSQL and Spark, the text columns); the result has one row per
    chunk of a file's text (a file that holds nothing has none): file_path, file_fingerprint,
    text, first_line_number (of the chunk's first line) and invalid_line_numbers (of the chunk).
    read_log_files gives the files' own record, with the read error. -#}
{% macro read_log_texts(log_files) -%}
    {{ return(adapter.dispatch('read_log_texts', 'runlens')(log_files)) }}
{%- endmacro %}

{#- The files stg_log_lines reads in this build (its pre-hook on DuckDB reads the same). -#}
{% macro files_to_read() -%}
    select * from {{ source('runlens_logs', 'log_files') }}
    where {{ runlens.is_file_to_read('file_path', 'file_fingerprint') }}
{%- endmacro %}

{#- DuckDB: the pre-hook (stage_log_texts) had the dbt-duckdb plugin (runlens/raw_logs/handover.py)
    sort the files: those DuckDB reads itself, whole, with read_blob (plain files it may read, of at
    most a chunk's size), and the others, whose text the plugin wrote in chunk files that read_text
    reads (gzip, unreadable, large). A file read here whose bytes are valid UTF-8 is its text; any
    other goes to the plugin once more (runlens_escaped_log_text: its invalid lines escaped), on
    the bytes already read. Either way one file or chunk per thread at a time, whatever the size of
    the logs. A row of the source that carries its text already (a unit test's fixture) is one
    chunk as it is. -#}
{% macro duckdb__read_log_texts(log_files) -%}
    select
        log_files.file_path,
        log_files.file_fingerprint,
        chunk_texts.content as text,
        chunks.first_line_number,
        chunks.invalid_line_numbers
    from ({{ runlens.duckdb__staged_chunks() }}) as chunks
    inner join {{ log_files }} as log_files on chunks.absolute_path = log_files.absolute_path
    inner join read_text(coalesce(getvariable('runlens_staged_text_paths'), []::varchar[])) as chunk_texts
        on chunks.text_path = chunk_texts.filename
    where log_files.text is null and log_files.read_error is null
    union all
    select
        log_files.file_path,
        log_files.file_fingerprint,
        coalesce(native_texts.text, native_texts.escaped.text) as text,
        1 as first_line_number,
        coalesce(native_texts.escaped.invalid_line_numbers, []::bigint[]) as invalid_line_numbers
    from (
        select
            filename,
            text,
            -- a CASE, so that only the files that are not valid UTF-8 reach the plugin
            case when text is null then runlens_escaped_log_text(content) end as escaped
        from (
            select
                filename,
                content,
                try(decode(content)) as text
            from read_blob(coalesce(getvariable('runlens_native_text_paths'), []::varchar[]))
        ) as native_blobs
    ) as native_texts
    inner join {{ log_files }} as log_files on native_texts.filename = log_files.absolute_path
    where log_files.text is null and log_files.read_error is null
    union all
    select
        file_path,
        file_fingerprint,
        text,
        1 as first_line_number,
        invalid_line_numbers
    from {{ log_files }}
    where text is not null
{%- endmacro %}

{#- DuckDB: what the pre-hook staged, one row per chunk or natively read file (none outside a
    build: a unit test). -#}
{% macro duckdb__staged_chunks() -%}
    select staged.*
    from (
        select unnest(
            coalesce(getvariable('runlens_staged_log_texts'), cast([] as struct(absolute_path varchar, text_path varchar, first_line_number bigint, invalid_line_numbers bigint[], read_error varchar, is_native boolean)[]))
        ) as staged
    ) as staged_entries
{%- endmacro %}

{#- One row per file read: file_path, file_fingerprint, size_bytes, modified_at, is_gzip and
    read_error, for the file record. -#}
{% macro read_log_files(log_files) -%}
    {{ return(adapter.dispatch('read_log_files', 'runlens')(log_files)) }}
{%- endmacro %}

{% macro default__read_log_files(log_files) -%}
    select
        file_path,
        file_fingerprint,
        size_bytes,
        modified_at,
        is_gzip,
        read_error
    from {{ log_files }}
{%- endmacro %}

{#- DuckDB: the read error comes from the staging (its first chunk), or from the source row. -#}
{% macro duckdb__read_log_files(log_files) -%}
    select
        log_files.file_path,
        log_files.file_fingerprint,
        log_files.size_bytes,
        log_files.modified_at,
        log_files.is_gzip,
        coalesce(log_files.read_error, staged.read_error) as read_error
    from {{ log_files }} as log_files
    left join (
        select
            absolute_path,
            read_error
        from ({{ runlens.duckdb__staged_chunks() }}) as chunks
        where first_line_number = 1
    ) as staged
        on log_files.absolute_path = staged.absolute_path
{%- endmacro %}

{#- Pre-hooks of stg_log_lines on DuckDB: hand the files DuckDB does not read itself (the
    listing's reads_natively) over to the plugin (runlens_stage_log_texts: their text in chunk
    files) and keep, in session variables, what each chunk is, the chunks' paths for read_text and
    the paths of the files read natively for read_blob. Nothing on other engines. -#}
{% macro stage_log_texts() -%}
    {{ return(adapter.dispatch('stage_log_texts', 'runlens')()) }}
{%- endmacro %}

{% macro default__stage_log_texts() -%}
{%- endmacro %}

{% macro duckdb__stage_log_texts() -%}
    set variable runlens_staged_log_texts = (
        select coalesce(
            runlens_stage_log_texts(
                list(
                    {'absolute_path': absolute_path, 'file_fingerprint': file_fingerprint, 'size_bytes': size_bytes}
                    order by file_path
                )
            ),
            []
        )
        from ({{ runlens.files_to_read() }}) as files
        -- the listing has said which files DuckDB reads itself: only the others go to the plugin
        where text is null and read_error is null and not reads_natively
    )
{%- endmacro %}

{% macro list_staged_text_paths() -%}
    {{ return(adapter.dispatch('list_staged_text_paths', 'runlens')()) }}
{%- endmacro %}

{% macro default__list_staged_text_paths() -%}
{%- endmacro %}

{% macro duckdb__list_staged_text_paths() -%}
    set variable runlens_staged_text_paths = (
        select coalesce(list(chunk.text_path) filter (where chunk.text_path is not null), []::varchar[])
        from (select unnest(getvariable('runlens_staged_log_texts')) as chunk)
    );
    set variable runlens_native_text_paths = (
        select coalesce(list(absolute_path), []::varchar[])
        from (
            select absolute_path from ({{ runlens.files_to_read() }}) as files
            where text is null and read_error is null and reads_natively
            union all
            -- a file the listing sent to the plugin that DuckDB can read by now
            select chunk.absolute_path
            from (select unnest(getvariable('runlens_staged_log_texts')) as chunk)
            where chunk.is_native
        ) as native_files
    )
{%- endmacro %}

{#- Post-hook of stg_log_lines on DuckDB: delete the chunk files. -#}
{% macro remove_staged_log_texts() -%}
    {{ return(adapter.dispatch('remove_staged_log_texts', 'runlens')()) }}
{%- endmacro %}

{% macro default__remove_staged_log_texts() -%}
{%- endmacro %}

{% macro duckdb__remove_staged_log_texts() -%}
    select runlens_remove_staged_log_texts(getvariable('runlens_staged_text_paths'))
{%- endmacro %}

{#- Post-hook of stg_log_lines on DuckDB, after the removal: forget the chunks and the listing. -#}
{% macro forget_staged_log_texts() -%}
    {{ return(adapter.dispatch('forget_staged_log_texts', 'runlens')()) }}
{%- endmacro %}

{% macro default__forget_staged_log_texts() -%}
{%- endmacro %}

{% macro duckdb__forget_staged_log_texts() -%}
    reset variable runlens_staged_log_texts;
    reset variable runlens_staged_text_paths;
    reset variable runlens_native_text_paths;
    reset variable runlens_listed_log_files
{%- endmacro %}

{#- PostgreSQL: the loader (scripts/engines/raw_loader.py) has copied each file's text, read by the
    same Python code as on DuckDB, into the source table itself. -#}
{% macro postgres__read_log_texts(log_files) -%}
    select
        file_path,
        file_fingerprint,
        text,
        1 as first_line_number,
        invalid_line_numbers
    from {{ log_files }}
    where text is not null
{%- endmacro %}

{#- Spark: the source view (prepare_log_files below) carries each file's text too. -#}
{% macro spark__read_log_texts(log_files) -%}
    select
        file_path,
        file_fingerprint,
        text,
        1 as first_line_number,
        invalid_line_numbers
    from {{ log_files }}
    where text is not null
{%- endmacro %}

{#- Pre-hooks of stg_log_lines: what the source runlens_logs.log_files stands for on engines that
    do not read the folder with the plugin. Nothing on DuckDB (the plugin) and PostgreSQL (the
    loader). -#}
{% macro prepare_raw_file_list() -%}
    {{ return(adapter.dispatch('prepare_raw_file_list', 'runlens')()) }}
{%- endmacro %}

{% macro prepare_raw_file_text() -%}
    {{ return(adapter.dispatch('prepare_raw_file_text', 'runlens')()) }}
{%- endmacro %}

{% macro prepare_log_files() -%}
    {{ return(adapter.dispatch('prepare_log_files', 'runlens')()) }}
{%- endmacro %}

{% macro default__prepare_raw_file_list() -%}
{%- endmacro %}

{% macro default__prepare_raw_file_text() -%}
{%- endmacro %}

{% macro default__prepare_log_files() -%}
{%- endmacro %}

{#- Spark reads the raw folder itself (a local path, or an HDFS / object-store URI passed through
    unchanged): a temporary view over the files' bytes as text (wholetext: one row per file, one
    task per file, .gz decompressed), and, off the local file system only, one over the file list
    (binaryFile, whose content is never read). Both take `*.jsonl` and `*.jsonl.gz` recursively.
    A gzip file Spark cannot decompress is skipped by the text view (ignoreCorruptFiles) and gets
    a read_error. The source is then the global temporary view runlens_log_files: the listing
    (spark__log_file_list) with each file's text. A file whose bytes are valid UTF-8 is its text;
    any other is taken apart on its hex form (`0A` at an even offset is a line break), each line
    decoded on its own or, when it is not valid UTF-8, written as its escaped form. -#}
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

{% macro spark__prepare_log_files() -%}
    create or replace global temporary view runlens_log_files as
    with

    listed as (
        {{ runlens.spark__log_file_list() }}
    ),

    read_files as (
        select
            {{ runlens.spark__relative_path('input_file_name()') }} as file_path,
            value as content
        from runlens_raw_file_text
    ),

    contents as (
        select
            listed.*,
            read_files.content,
            is_valid_utf8(read_files.content) as is_valid_text,
            case
                when read_files.file_path is not null or listed.size_bytes = 0 then null
                when listed.is_gzip then 'corrupt_gzip: Spark could not decompress the file'
                else 'unreadable: Spark could not read the file'
            end as read_error
        from listed
        left join read_files on listed.file_path = read_files.file_path
    ),

    hex_lines as (
        select
            *,
            regexp_extract_all(hex(cast(content as binary)) || '0A', '((?:[0-9A-F]{2})*?)0A', 1) as hex_pieces
        from contents
        where content is not null and not is_valid_text
    ),

    decoded_hex as (
        select
            file_path,
            array_join(
                transform(
                    hex_pieces,
                    hex_piece -> case
                        when is_valid_utf8(cast(unhex(hex_piece) as string)) then cast(unhex(hex_piece) as string)
                        else {{ runlens.spark__escaped_hex_line('hex_piece') }}
                    end
                ),
                '\n'
            ) as text,
            filter(
                transform(
                    hex_pieces,
                    (hex_piece, piece_index) -> case
                        when not is_valid_utf8(cast(unhex(hex_piece) as string)) then cast(piece_index + 1 as bigint)
                    end
                ),
                number -> number is not null
            ) as invalid_line_numbers
        from hex_lines
    )

    select
        contents.file_path,
        contents.absolute_path,
        contents.size_bytes,
        contents.modified_at,
        contents.is_gzip,
        contents.file_fingerprint,
        case when contents.is_valid_text then contents.content else decoded_hex.text end as text,
        coalesce(decoded_hex.invalid_line_numbers, cast(array() as array<bigint>)) as invalid_line_numbers,
        contents.read_error
    from contents
    left join decoded_hex on contents.file_path = decoded_hex.file_path
{%- endmacro %}

{#- Spark: an invalid line (its bytes in hex) as its escaped form, less one trailing CR. -#}
{% macro spark__escaped_hex_line(hex_piece) -%}
    array_join(
        transform(
            regexp_extract_all(regexp_replace({{ hex_piece }}, '^((?:[0-9A-F]{2})*?)0D\\z', '$1'), '([0-9A-F]{2})', 1),
            byte_hex -> case
                when
                    cast(conv(byte_hex, 16, 10) as int) between 32 and 126
                    and byte_hex not in ('5C', '27', '22')
                    then char(cast(conv(byte_hex, 16, 10) as int))
                else concat('\\x', byte_hex)
            end
        ),
        ''
    )
{%- endmacro %}

{% macro spark__raw_dir() -%}
    {{- env_var('RUNLENS_RAW_DIR', 'data/sample') -}}
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
    followed, as os.walk in runlens/raw_logs/listing.py); the fingerprint then has nanoseconds as
    on DuckDB, and modified_at is Python's float st_mtime rounded half to even to the microsecond,
    reproduced here. Elsewhere (HDFS, object stores) the binaryFile listing gives the files (not
    the empty ones) with their size and millisecond time. -#}
{% macro spark__log_file_list() -%}
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
