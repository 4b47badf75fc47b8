"""Short real trainings that MLflow tracks with its own SystemMetricsMonitor (issue 45), for
tests/importers/test_mlflow_system_monitor.py.

Each training fits a line y = 3x + 1 by stochastic gradient descent in plain Python, EPOCHS epochs
of STEPS_PER_EPOCH steps, each step at least STEP_SECONDS long, and logs with MLflow's fluent API
as the Hugging Face Trainer does: `loss` and `epoch` (the fraction of epochs done, e.g. 0.125) at
every global step, counted from 1. `mlflow.start_run(log_system_metrics=True)` starts MLflow's
monitor beside it, sampling every SAMPLING_SECONDS and logging every sample
(`set_system_metrics_samples_before_logging(1)`), with or without a node id
(`set_system_metrics_node_id`). No GPU is on this machine: the monitor logs the host's metrics.

MLflow's fluent API, the monitor's thread and the environment variables its setters write are
process-wide, so the trainings run in a process of their own, as a training script does:
`trainings(specs)` runs this file with the specs and returns what each run is.
MLflow 3 refuses its file store unless MLFLOW_ALLOW_FILE_STORE=true (it is in maintenance mode);
the child gets that variable, so that both of its stores can be written.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from dataclasses import dataclass

EXPERIMENT = "mlflow-monitor"
EPOCHS = 2
STEPS_PER_EPOCH = 8
STEP_SECONDS = 0.45
SAMPLING_SECONDS = 1
BATCH = 2000  # points per step: a step's gradient is real work for the CPU the monitor samples
LEARNING_RATE = 0.1


@dataclass(frozen=True)
class Spec:
    """One training: the store it is tracked in, its run name and the monitor's node id (None:
    metrics named `system/<name>`)."""

    tracking_uri: str
    run_name: str
    node_id: str | None = None


def trainings(specs: list[Spec]) -> dict[str, str]:
    """Run the trainings in a child process, one after the other; returns run name -> MLflow run id."""
    payload = json.dumps([spec.__dict__ for spec in specs])
    done = subprocess.run(
        [sys.executable, __file__, payload],
        env={**os.environ, "MLFLOW_ALLOW_FILE_STORE": "true"},
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, f"the MLflow trainings failed:\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def train(spec: Spec) -> str:
    """One tracked training (in the child process); returns its MLflow run id."""
    import mlflow

    mlflow.set_tracking_uri(spec.tracking_uri)
    mlflow.set_experiment(EXPERIMENT)
    mlflow.set_system_metrics_sampling_interval(SAMPLING_SECONDS)
    mlflow.set_system_metrics_samples_before_logging(1)
    mlflow.set_system_metrics_node_id(spec.node_id)
    generator = random.Random(7)
    xs = [generator.uniform(-1, 1) for _ in range(BATCH)]
    weight, bias = 0.0, 0.0
    with mlflow.start_run(run_name=spec.run_name, log_system_metrics=True) as run:
        mlflow.log_params({"learning_rate": LEARNING_RATE, "epochs": EPOCHS, "node_id": spec.node_id or ""})
        for step in range(1, EPOCHS * STEPS_PER_EPOCH + 1):
            began = time.monotonic()
            errors = [(weight * x + bias) - (3 * x + 1) for x in xs]
            weight -= LEARNING_RATE * 2 * sum(e * x for e, x in zip(errors, xs, strict=True)) / BATCH
            bias -= LEARNING_RATE * 2 * sum(errors) / BATCH
            loss = sum(e * e for e in errors) / BATCH
            time.sleep(max(0.0, STEP_SECONDS - (time.monotonic() - began)))
            mlflow.log_metrics({"loss": loss, "epoch": step / STEPS_PER_EPOCH}, step=step)
    return run.info.run_id


if __name__ == "__main__":
    ran = {spec["run_name"]: train(Spec(**spec)) for spec in json.loads(sys.argv[1])}
    print(json.dumps(ran))
