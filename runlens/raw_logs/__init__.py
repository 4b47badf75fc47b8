"""Reading the raw log folder: which files are logs (listing.py) and what text each holds
(reading.py). The rules for what a line is live in SQL, in macros/staging/log_lines.sql; this
package only turns files into text. DuckDB calls it through a dbt-duckdb plugin
(duckdb_plugin.py); the PostgreSQL loader (scripts/engines/raw_loader.py) calls it directly."""
