"""Importers: existing training logs (TensorBoard, MLflow, text, W&B, cluster GPU logs) -> runlens JSONL.

`runner.run_import` is the entry point (`runlens import`, runlens/commands/import_logs.py is its command line);
`runner.discover` asks each importer of `registry.IMPORTERS`, in order, to claim its sources
(`importer` says the one shape: claim, then read). Each module does one job: `tensorboard_files`
(which files are event files, and TensorBoard's importer) with `tensorboard` (reading them),
`mlflow_files` and `mlflow_sqlite` (the two MLflow stores, an importer each) with `mlflow_runs` (an
MLflow run -> events), `text_log` (line-oriented logs), `wandb_files` (W&B run folders, what online
runs leave beside the stream, and W&B's importer), `wandb_framing` (the LevelDB-log framing of
`run-<id>.wandb`), `wandb_records` (its records, with W&B's protobuf) and `wandb_runs` (a W&B run's
sessions -> events), `nvidia_smi` and `dcgm` (cluster GPU logs -> utilization samples), with
`sample_attribution` (which run a cluster log's samples belong to) and `known_runs` (the runs
already in --into), `scalars` (markers from logged scalars), `checkpoints` (checkpoint files beside
the logs), `common` (events, rejects, the JSONL writer) and `progress` (what the user sees on stderr).
"""
