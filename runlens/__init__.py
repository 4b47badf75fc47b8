"""runlens: where the wall time of ML training sweeps goes.

The package holds the code beside the dbt project: raw_logs (which files are logs and their text,
the dbt-duckdb plugin), importers (other trackers' logs -> the input contract), report (the
Markdown pages from the marts), and the small helpers they share.
"""

__version__ = "0.1.0"
