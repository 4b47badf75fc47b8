{#- A line's text without a trailing carriage return (CRLF files) and, on a file's first
    line, without the UTF-8 byte order mark. -#}
{% macro strip_line_decorations(line_text, line_number) -%}
    regexp_replace(
        case
            when {{ line_number }} = 1 then ltrim({{ line_text }}, chr(65279))
            else {{ line_text }}
        end,
        '\r$',
        ''
    )
{%- endmacro %}
