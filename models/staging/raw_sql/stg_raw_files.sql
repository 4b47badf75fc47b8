-- Inventory of the raw log files, on engines that read them in SQL (macros/engine/raw_files.sql):
-- the same columns as the DuckDB model raw_duckdb/stg_raw_files.py.
{{ runlens.select_raw_files() }}
