"""What the importer is given, checked before anything is read or written.

Every PATH must exist and be readable, and --into must be a folder (or not exist yet): check_inputs
raises InputError otherwise. Inputs with nothing importable in them raise NothingToImport, which
names what the importer looks for. Each message is one line that says what to do.
"""

from __future__ import annotations

import os
from pathlib import Path

from .common import display_path

# What --format reads, in the words of the one-line messages
LOOKS_FOR = {
    "tensorboard": "TensorBoard event files (events.out.tfevents.*)",
    "mlflow": "MLflow tracking data (an mlruns/ folder, mlflow.db)",
    "text": "text training logs (*.log, *.txt, *.out with timestamps and checkpoint or epoch lines)",
    "wandb": "W&B run folders (wandb/run-*/run-<id>.wandb)",
    "nvidia_smi": "nvidia-smi CSV logs (--query-gpu=timestamp,index,... --format=csv)",
    "dcgm": "DCGM exporter dumps (DCGM_FI_DEV_GPU_UTIL{gpu=...} lines)",
    "lightning_profiler": "Lightning profiler reports ({stage}-{filename}.txt of SimpleProfiler, AdvancedProfiler)",
    "hf_trainer_state": "Hugging Face trainer_state.json files",
    "profiler_trace": "profiler traces (*.pt.trace.json[.gz], or *.json[.gz] naming traceEvents)",
}


class InputError(ValueError):
    """A PATH or --into the importer cannot use; the message is one line that says what to do."""


class NothingToImport(InputError):
    """The PATHs exist but hold nothing the importer reads."""


def check_inputs(paths: list[Path], out: Path | None) -> None:
    """Raise InputError for a PATH that does not exist or cannot be read, or an --into that is a file
    (None: a dry run, which writes nothing)."""
    for path in paths:
        shown = display_path(path)
        if not path.exists():
            raise InputError(f"{shown} does not exist: give a folder or file of training logs to import")
        try:
            if path.is_dir():
                with os.scandir(path):
                    pass
            else:
                with path.open("rb"):
                    pass
        except OSError as error:
            reason = (error.strerror or str(error)).lower()
            raise InputError(f"cannot read {shown} ({reason}): let this user read it, or import another path") from None
    if out is not None and out.exists() and not out.is_dir():
        raise InputError(f"--into {display_path(out)} is a file, not a folder: give a folder for the imported logs")


def nothing_to_import(paths: list[Path], fmt: str, notes: list[str]) -> NothingToImport:
    """The error for inputs with no source in them: where it looked, what for, and any notes."""
    wanted = [LOOKS_FOR[name] for name in LOOKS_FOR if fmt in ("auto", name)]
    looks_for = ", ".join(wanted[:-1]) + " or " + wanted[-1] if len(wanted) > 1 else wanted[0]
    where = ", ".join(display_path(path) for path in paths)
    return NothingToImport("; ".join([f"nothing to import found in {where}: it looks for {looks_for}", *notes]))
