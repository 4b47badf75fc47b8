"""Importers: existing training logs (TensorBoard, MLflow, text, W&B) -> runlens event-log JSONL.

`runner.run_import` is the entry point; `scripts/import_logs.py` is its command line. Each module
does one job: `tensorboard` (event files), `mlflow_files` and `mlflow_sqlite` (the two MLflow
stores) with `mlflow_runs` (an MLflow run -> events), `text_log` (line-oriented logs),
`wandb_files` (W&B run folders and what online runs leave beside the stream), `wandb_framing`
(the LevelDB-log framing of `run-<id>.wandb`), `wandb_records` (its records, with W&B's protobuf)
and `wandb_runs` (a W&B run's sessions -> events), `scalars` (markers from logged scalars),
`checkpoints` (checkpoint files beside the logs), `common` (events, rejects, the JSONL writer) and
`progress` (what the user sees on stderr).
"""
