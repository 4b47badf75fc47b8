-- depends_on: {{ ref('stg_raw_files') }}
-- Every physical line of every raw log file, on engines that read them in SQL
-- (macros/engine/raw_files.sql): the same grain and columns as raw_duckdb/stg_raw_lines.py.
{{ runlens.select_raw_lines() }}
