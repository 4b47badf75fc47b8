"""What `runlens import` (and `runlens profile`) would read below a folder, in words: the line
`runlens build` gives over a folder of other trackers' logs and no runlens logs (runlens/refresh/build.py,
nothing_to_build). The importers' own discovery (runner.discover) with their defaults."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path

from runlens.plural import plural
from runlens.usage import importer_extra

from .common import Options
from .registry import OPTIONAL
from .runner import discover

# each kind of source `discover` finds (an importer's kind), in the words of `runlens build`'s line,
# in the order the line names them
FOUND_WORDS = {
    "text": "text training log",  # --format auto reads the fairseq patterns (text_log.py)
    "tensorboard": "TensorBoard run",
    "wandb": "W&B run",
    "mlflow_file": "MLflow run",
    "mlflow_sqlite": "MLflow database",
    "nvidia_smi": "nvidia-smi GPU log",
    "dcgm": "DCGM exporter dump",
    "lightning_profiler": "Lightning profiler report",
    "hf_trainer_state": "Hugging Face trainer_state.json",
    "profiler_trace": "profiler trace",
}


def tensorboard_readable() -> bool:
    """Whether TensorBoard event files can be recognised and read (the importer extra is installed)."""
    return importlib.util.find_spec(OPTIONAL["tensorboard"][0]) is not None


def looked_for() -> str:
    """What found_logs looks for, in words."""
    return f"W&B, {'TensorBoard, ' if tensorboard_readable() else ''}MLflow or text training logs"


def found_logs(folder: Path) -> str | None:
    """What `runlens import` (and `runlens profile`) would read below folder, in words: "2 text
    training logs (fairseq style) and 1 TensorBoard run"; None when it holds nothing of the kind.
    The importer's own discovery (importers/runner.py) with its defaults; TensorBoard event files
    are recognised only with the importer extra installed (its reader comes with them)."""
    without = frozenset() if tensorboard_readable() else frozenset({"tensorboard"})
    plan = discover([folder], "auto", Options(), without=without)
    counts = Counter(source.kind for source in plan.sources)
    if not counts:
        return None
    importers = {source.kind: source.importer for source in plan.sources}
    parts, missing = [], []
    for kind, noun in FOUND_WORDS.items():
        if counts[kind]:
            parts.append(plural(counts[kind], noun) + (" (fairseq style)" if kind == "text" else ""))
            package, label = importers[kind].package, importers[kind].label
            if package and not importlib.util.find_spec(package):
                missing.append(label)
    found = ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]
    if missing:
        found += f" (reading {' and '.join(missing)} logs needs {importer_extra()})"
    return found
