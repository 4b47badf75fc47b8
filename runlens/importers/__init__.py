"""Importers: existing training logs (TensorBoard, MLflow, text) -> runlens event-log JSONL.

`runner.run_import` is the entry point; `scripts/import_logs.py` is its command line. Each module
does one job: `tensorboard` (event files), `mlflow_files` and `mlflow_sqlite` (the two MLflow
stores) with `mlflow_runs` (an MLflow run -> events), `text_log` (line-oriented logs),
`scalars` (markers from logged scalars), `checkpoints` (checkpoint files beside the logs),
`common` (events, rejects, the JSONL writer) and `progress` (what the user sees on stderr).
"""
