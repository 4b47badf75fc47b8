"""Engine-portability tools: reading and comparing the marts that DuckDB, PostgreSQL and Spark build."""
