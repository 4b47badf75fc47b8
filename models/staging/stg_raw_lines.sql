-- One row per physical line of every raw log file, decoded as UTF-8 where it can be.
-- A file whose bytes are valid UTF-8 is split as text; any other file is split on its
-- escaped byte form (`\xNN` for every non-printable byte, so `\x0A` is always a newline)
-- and each line is decoded on its own, so one bad byte spoils one line, never a file.
with

raw_files as (
    select
        file_path,
        content,
        try(decode(content)) as content_text
    from {{ ref('stg_raw_files') }}
    where content is not null
),

text_files as (
    select
        file_path,
        string_split(content_text, chr(10)) as pieces
    from raw_files
    where content_text is not null
),

text_lines as (
    select
        file_path,
        generate_subscripts(pieces, 1) as line_number,
        len(pieces) as piece_count,
        unnest(pieces) as line_text,
        unnest(pieces) as raw_text
    from text_files
),

byte_files as (
    select
        file_path,
        string_split(content::varchar, '\x0A') as pieces
    from raw_files
    where content_text is null
),

byte_pieces as (
    select
        file_path,
        generate_subscripts(pieces, 1) as line_number,
        len(pieces) as piece_count,
        unnest(pieces) as escaped_line
    from byte_files
),

byte_lines as (
    select
        file_path,
        line_number,
        piece_count,
        try(decode(escaped_line::blob)) as line_text,
        regexp_replace(escaped_line, '\\x0D$', '') as raw_text
    from byte_pieces
),

all_lines as (
    select * from text_lines
    union all
    select * from byte_lines
),

physical_lines as (
    -- the empty piece after a final newline is not a line
    select * from all_lines
    where not (line_number = piece_count and raw_text = '')
),

cleaned as (
    select
        file_path,
        line_number,
        {{ runlens.strip_line_decorations('line_text', 'line_number') }} as line_text,
        raw_text
    from physical_lines
),

final as (
    select
        file_path,
        line_number::bigint as line_number,
        line_text,
        coalesce(line_text, raw_text) as raw_text,
        line_text is null as is_invalid_utf8,
        coalesce(trim(line_text, ' ' || chr(9) || chr(13) || chr(11) || chr(12)) = '', false) as is_blank
    from cleaned
)

select * from final
