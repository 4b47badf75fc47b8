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
    - An invalid line has no line_text; its raw_text is the escaped form.

    `file_texts` has file_path, file_fingerprint, text and invalid_line_numbers; the result has one
    row per physical line: file_path, file_fingerprint, line_number (from 1), line_text, raw_text,
    is_invalid_utf8, is_blank. -#}
{% macro split_log_lines(file_texts) -%}
    select
        file_path,
        file_fingerprint,
        line_number,
        case when not is_invalid_utf8 then line_text end as line_text,
        case when is_invalid_utf8 then piece else line_text end as raw_text,
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
    line_number (from 1), piece_count, piece. -#}
{% macro text_pieces(file_texts) -%}
    {{ return(adapter.dispatch('text_pieces', 'runlens')(file_texts)) }}
{%- endmacro %}

{% macro duckdb__text_pieces(file_texts) -%}
    select
        file_path,
        file_fingerprint,
        invalid_line_numbers,
        generate_subscripts(pieces, 1)::bigint as line_number,
        len(pieces) as piece_count,
        unnest(pieces) as piece
    from (
        select
            file_path,
            file_fingerprint,
            invalid_line_numbers,
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
        pieces.line_number,
        pieces.piece_count,
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
        cast(piece_index + 1 as bigint) as line_number,
        piece_count,
        piece
    from (
        select
            file_path,
            file_fingerprint,
            invalid_line_numbers,
            size(pieces) as piece_count,
            posexplode(pieces) as (piece_index, piece)
        from (
            select
                file_path,
                file_fingerprint,
                invalid_line_numbers,
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
