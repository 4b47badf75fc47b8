"""The importers, in the order they claim files: the precedence between formats.

An importer sees what the ones before it claimed below each PATH, so order is precedence: a W&B
run folder takes the TensorBoard and text files in it, an MLflow run folder the TensorBoard logs
among its artifacts. A new reader is one module with an `IMPORTER` (importer.py says its shape)
and one line here; --format's choices and the importer extra's packages come from this list.
"""

from __future__ import annotations

from . import (
    dcgm,
    hf_trainer_state,
    lightning_profiler,
    mlflow_files,
    mlflow_sqlite,
    nvidia_smi,
    profiler_traces,
    tensorboard_files,
    text_log,
    wandb_files,
)
from .importer import Importer

IMPORTERS: tuple[Importer, ...] = (
    wandb_files.IMPORTER,  # W&B run folders: takes the TensorBoard and text files in them
    mlflow_files.IMPORTER,  # MLflow file-store runs: takes the TensorBoard logs among their artifacts
    mlflow_sqlite.IMPORTER,
    tensorboard_files.IMPORTER,
    text_log.IMPORTER,
    nvidia_smi.IMPORTER,  # cluster GPU logs: samples the runner gives a run (sample_attribution.py)
    dcgm.IMPORTER,
    lightning_profiler.IMPORTER,  # profiler reports: sections the runner gives a run (report_attribution.py)
    hf_trainer_state.IMPORTER,
    profiler_traces.IMPORTER,  # profiler traces: copied beside the run of their folder (trace_placement.py)
)

FORMATS = ("auto", *dict.fromkeys(importer.name for importer in IMPORTERS))
# the formats that need a package of the importer extra: format -> (package, name in messages)
OPTIONAL = {importer.name: (importer.package, importer.label) for importer in IMPORTERS if importer.package}
