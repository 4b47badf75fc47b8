"""Reading the raw log folder into the raw tables (raw_tables.py): which files are logs
(listing.py), what text each holds (reading.py, handover.py), and each engine's reader that
writes the tables (duckdb_reader.py, which the dbt-duckdb plugin duckdb_plugin.py runs;
postgres_reader.py; spark_reader.py)."""
