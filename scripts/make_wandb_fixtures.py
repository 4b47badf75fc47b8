"""Run real tiny trainings that log to Weights & Biases offline, and keep their wandb/ folder as a fixture.

Every training learns (a + b) mod 23 like those of make_importer_fixtures.py (same data, model and
pace), in one project folder, so their runs share one `wandb/` folder as a real project's do.
`WANDB_MODE=offline`: nothing leaves the machine, no account or key is needed.

- ``lightning``: PyTorch Lightning with WandbLogger(log_model="all") and ModelCheckpoint every 200
  steps (checkpoints in `runlens-fixture/rllight1/checkpoints/`, each also logged as an artifact);
  validation every 200 steps; 4 epochs of 150 steps; task from its job type.
- ``hf``: the Hugging Face Trainer with report_to="wandb", save_steps = eval_steps = 200 into
  `out-hf/checkpoint-S/`, WANDB_LOG_MODEL=checkpoint; the run is named `addmod-hf` (its task)
  and ends when the process exits, as the Trainer leaves it.
- ``plain``: a plain loop with `wandb.log` every 10 steps (`epoch` = the epoch in progress),
  an evaluation every 200 steps and each checkpoint logged as an artifact; system stats every
  0.5 s (its run file, over 32 KiB, has records split across blocks).
- ``crash``: the plain loop, raising at step 340 (exit code 1), console capture on.
- ``resumed``: the plain loop stopped by an exception after 2 epochs, then, after a pause, a
  second process with the same id (`resume="allow"`) loads the step-300 checkpoint and does
  epochs 3 and 4; it logs without `step=` (its `_step` starts again at 0) and says
  `define_metric("*", step_metric="global_step")`.
- ``keras_style``: the plain loop logging what Keras' WandbMetricsLogger logs, and only that:
  `epoch/epoch` (the 0-based epoch just ended) and `epoch/*` metrics once per epoch, stepped by
  `define_metric("epoch/*", step_metric="epoch/epoch")` (the callback itself needs TensorFlow,
  which this project does not install); no checkpoints.
- ``group_a``, ``group_b``: two plain runs of 2 epochs in the group `sweep-a`; group_b spends
  2.5 s after its last log "saving the final model", which only the exit record's runtime shows.

The independent record is `records/<training>.json`, written by the training process itself (and
completed by this script with the moment the process exited): run_start and run_end as brackets
[ts, ts_after] around the calls that start and end the W&B run, each checkpoint as
[save_started, ts], each epoch end as ts (Unix seconds); the resumed run has one such record per
session under `sessions`. Weights are not kept: checkpoint files and folders are deleted and
listed with their modification times in `manifest.json` (tests re-create them empty).

    python3.11 -m venv /tmp/rlfx && /tmp/rlfx/bin/pip install -r requirements-fixtures.txt
    /tmp/rlfx/bin/python scripts/make_wandb_fixtures.py [--out tests/fixtures/importers/wandb]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scripts.make_importer_fixtures import (
    BATCH_SIZE,
    EPOCHS,
    EVERY,
    SEED,
    TRAIN_PAIRS,
    Recorder,
    fit_lightning,
    hf_trainer,
    lightning_parts,
    mlp,
    pairs,
    store,
    strip_weights,
)

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "tests" / "fixtures" / "importers" / "wandb"
PROJECT = "runlens-fixture"
TRAININGS = ("lightning", "hf", "plain", "crash", "resumed", "keras_style", "group_a", "group_b")
RUN_IDS = {
    "lightning": "rllight1",
    "hf": "rlhf0001",
    "plain": "rlplain1",
    "crash": "rlcrash1",
    "resumed": "rlresum1",
    "keras_style": "rlkeras1",
    "group_a": "rlgrpa01",
    "group_b": "rlgrpb01",
}
STEPS_PER_EPOCH = TRAIN_PAIRS // BATCH_SIZE
LOG_EVERY = 10
CRASH_AT_STEP = 340  # in epoch 3, after the checkpoint at 200
RESUME_PAUSE = 3.0  # seconds between the resumed run's two sessions: its downtime
QUIET = {"x_disable_stats": True, "console": "off"}


# ---------------------------------------------------------------------------------------------
# a plain PyTorch loop


def plain_loop(workdir: Path, name: str, recorder: Recorder, **how) -> None:
    """Train with `wandb.log`; `how`: epochs (first, last), config, init (wandb.init keywords),
    fail_at (raise after this step), stop_after_epoch (raise once it has ended), step_metric,
    keras_keys (log as Keras' WandbMetricsLogger does, no checkpoints), tail (seconds of work
    after the last log)."""
    import torch
    import wandb

    torch.set_num_threads(1)
    torch.manual_seed(SEED)
    (a, b, y), (val_a, val_b, val_y) = pairs()
    model = mlp()
    config = how.get("config", {})
    optimizer = torch.optim.Adam(model.parameters(), lr=config.get("lr", 0.003))
    first, last = how.get("epochs", (0, EPOCHS))
    folder = workdir / "checkpoints" / RUN_IDS[name]
    step = first * STEPS_PER_EPOCH
    if step:
        state = torch.load(folder / f"step_{step}.pt")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])

    recorder.mark("run_start")
    run = wandb.init(project=PROJECT, id=RUN_IDS[name], config=config, **how.get("init", {}))
    recorder.mark_after("run_start")
    if how.get("step_metric"):
        run.define_metric("global_step")
        run.define_metric("*", step_metric="global_step")
    keras = how.get("keras_keys", False)
    if keras:
        run.define_metric("epoch/epoch")
        run.define_metric("epoch/*", step_metric="epoch/epoch")

    def log(values: dict) -> None:
        if how.get("step_metric"):
            run.log({**values, "global_step": step})
        else:
            run.log(values, step=step)

    for epoch in range(first, last):
        order = torch.randperm(len(y), generator=torch.Generator().manual_seed(SEED + epoch))
        for batch in range(STEPS_PER_EPOCH):
            index = order[batch * BATCH_SIZE : (batch + 1) * BATCH_SIZE]
            loss = model(a[index], b[index], y[index])["loss"]
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            if step == how.get("fail_at"):
                raise RuntimeError(f"deliberate failure at step {step}")
            if step % LOG_EVERY == 0 and not keras:
                log({"train_loss": loss.item(), "epoch": epoch})
            if keras:
                continue
            if step % EVERY == 0 or (how.get("stop_after_epoch") and step == last * STEPS_PER_EPOCH):
                started = time.time()
                folder.mkdir(parents=True, exist_ok=True)
                path = folder / f"step_{step}.pt"
                torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, path)
                recorder.checkpoint(step, epoch, started, path.name)
                artifact = wandb.Artifact(f"model-{run.id}", type="model", metadata={"step": step})
                artifact.add_file(str(path))
                run.log_artifact(artifact, aliases=[f"step_{step}"])
                model.eval()
                with torch.no_grad():
                    log({"val_loss": model(val_a, val_b, val_y)["loss"].item(), "epoch": epoch})
                model.train()
        if keras:
            with torch.no_grad():
                val_loss = model(val_a, val_b, val_y)["loss"].item()
            run.log({"epoch/epoch": epoch, "epoch/loss": loss.item(), "epoch/val_loss": val_loss})
        recorder.epoch_end(epoch + 1, step)
    if how.get("stop_after_epoch"):
        raise RuntimeError(f"deliberate stop after epoch {last}")
    time.sleep(how.get("tail", 0.0))  # saving the final model, say: no log, no record
    recorder.mark("run_end", status="completed")
    run.finish()
    recorder.mark_after("run_end")


def train_plain(workdir: Path, name: str) -> dict:
    recorder = Recorder("plain")
    record_path = workdir / "records" / f"{name}.json"
    config = {"task": "addmod23", "lr": 0.003, "model": {"hidden": 128, "layers": 2}}
    how: dict = {"config": config, "init": {"settings": _settings(**QUIET)}}
    if name == "plain":
        how["init"] = {"settings": _settings(x_stats_sampling_interval=0.5, console="off")}
    elif name == "crash":
        how.update(fail_at=CRASH_AT_STEP, init={"settings": _settings(x_disable_stats=True, console="wrap")})
    elif name == "keras_style":
        how["keras_keys"] = True
    elif name.startswith("group_"):
        lr = 0.003 if name == "group_a" else 0.01
        how.update(
            epochs=(0, 2),
            config={**config, "lr": lr},
            init={"group": "sweep-a", "job_type": "train", "settings": _settings(**QUIET)},
            tail=2.5 if name == "group_b" else 0.0,
        )
    try:
        plain_loop(workdir, name, recorder, **how)
    except RuntimeError as error:
        recorder.mark("run_end", status="failed", error=str(error))
        raise
    finally:
        recorder.write(record_path)
    return recorder.data


def train_resumed_session(workdir: Path, session: int) -> None:
    """One of the two sessions of the resumed run; each process writes its own record."""
    recorder = Recorder("plain")
    how = {
        "config": {"task": "addmod23", "lr": 0.003},
        "init": {"resume": "allow", "settings": _settings(**QUIET)},
        "step_metric": True,
        "epochs": (0, 2) if session == 1 else (2, EPOCHS),
        "stop_after_epoch": session == 1,
    }
    try:
        plain_loop(workdir, "resumed", recorder, **how)
    except RuntimeError as error:
        recorder.mark("run_end", status="failed", error=str(error))
        raise
    finally:
        recorder.write(workdir / "records" / f"resumed.session{session}.json")


def _settings(**values):
    import wandb

    return wandb.Settings(**values)


# ---------------------------------------------------------------------------------------------
# PyTorch Lightning


def train_lightning(workdir: Path) -> None:
    import lightning.pytorch as pl
    import torch
    import wandb
    from lightning.pytorch.callbacks import Callback
    from lightning.pytorch.loggers import WandbLogger

    torch.set_num_threads(1)
    pl.seed_everything(SEED, workers=True)
    recorder = Recorder("lightning")
    Module, RecordingCheckpoint = lightning_parts(recorder)

    class Record(Callback):
        def on_train_epoch_end(self, trainer, pl_module):
            recorder.epoch_end(trainer.current_epoch + 1, trainer.global_step)

    logger = WandbLogger(
        project=PROJECT, id=RUN_IDS["lightning"], job_type="addmod23", log_model="all", save_dir=str(workdir)
    )
    recorder.mark("run_start")
    # WandbLogger calls wandb.init on first use (Lightning would, in its setup); a config update after it
    logger.experiment.config.update({"max_epochs": EPOCHS})
    recorder.mark_after("run_start")
    callbacks = [Record(), RecordingCheckpoint(every_n_train_steps=EVERY, save_top_k=-1)]
    fit_lightning(workdir, Module(), logger, callbacks)
    recorder.mark("run_end", status="completed")
    wandb.finish()
    recorder.mark_after("run_end")
    recorder.write(workdir / "records" / "lightning.json")


# ---------------------------------------------------------------------------------------------
# Hugging Face Trainer


def train_hf(workdir: Path) -> None:
    import torch
    from transformers import TrainerCallback

    torch.set_num_threads(1)
    torch.manual_seed(SEED)
    recorder = Recorder("hf")

    class RecordFirst(TrainerCallback):
        """Runs before the W&B callback, which calls wandb.init in its on_train_begin and logs the
        checkpoint as an artifact (hashing its files) in its on_save."""

        def on_train_begin(self, args, state, control, **kwargs):
            recorder.mark("run_start")

        def on_save(self, args, state, control, **kwargs):
            # the Trainer calls on_save once the checkpoint folder is written: one time for both ends
            recorder.checkpoint(
                state.global_step, int(state.epoch or 0), time.time(), f"checkpoint-{state.global_step}"
            )

    class Record(TrainerCallback):
        """Runs after it."""

        def on_train_begin(self, args, state, control, **kwargs):
            recorder.mark_after("run_start")

        def on_epoch_end(self, args, state, control, **kwargs):
            recorder.epoch_end(round(state.epoch), state.global_step)

    trainer = hf_trainer(workdir / "out-hf", ["wandb"], RecordFirst(), Record())
    trainer.train()
    # the Trainer leaves the W&B run open: it ends when the process exits (this script adds ts_after)
    recorder.mark("run_end", status="completed")
    recorder.write(workdir / "records" / "hf.json")


# ---------------------------------------------------------------------------------------------
# turning the project folder into a fixture


def _run(python: str, workdir: Path, env: dict, *args: str) -> tuple[int, float]:
    """Run one training process; returns its exit code and the moment it had exited."""
    done = subprocess.run([python, __file__, *args, "--workdir", str(workdir)], cwd=workdir, env=env, check=False)
    return done.returncode, time.time()


def _finish_record(path: Path, exited: float, ends_at_exit: bool) -> None:
    """Add the moment the process exited; where the W&B run ended with the process, that closes
    its run_end bracket."""
    record = json.loads(path.read_text())
    record["process_exited"] = exited
    if ends_at_exit:
        record["run_end"]["ts_after"] = exited
    path.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")


def make_fixture(out: Path, python: str, only: list[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="runlens-wandb-") as scratch:
        workdir = Path(scratch) / "project"
        (workdir / "records").mkdir(parents=True)
        home = Path(scratch) / "wandb-home"  # W&B's cache, config and artifact staging: not kept
        env = {
            **os.environ,
            "WANDB_MODE": "offline",
            "WANDB_SILENT": "true",
            "WANDB_PROJECT": PROJECT,
            "WANDB_CACHE_DIR": str(home / "cache"),
            "WANDB_CONFIG_DIR": str(home / "config"),
            "WANDB_DATA_DIR": str(home / "data"),
            "WANDB_ARTIFACT_DIR": str(home / "artifacts"),
            "OMP_NUM_THREADS": "1",
            "TOKENIZERS_PARALLELISM": "false",
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1",
        }
        for name in only:
            started = time.monotonic()
            if name == "resumed":
                code, exited = _run(python, workdir, env, "--train", name, "--session", "1")
                _check(name, code, 1)
                _finish_record(workdir / "records" / "resumed.session1.json", exited, ends_at_exit=True)
                time.sleep(RESUME_PAUSE)
                code, exited = _run(python, workdir, env, "--train", name, "--session", "2")
                _check(name, code, 0)
                _finish_record(workdir / "records" / "resumed.session2.json", exited, ends_at_exit=False)
                sessions = [json.loads((workdir / "records" / f"resumed.session{n}.json").read_text()) for n in (1, 2)]
                for n in (1, 2):
                    (workdir / "records" / f"resumed.session{n}.json").unlink()
                (workdir / "records" / "resumed.json").write_text(
                    json.dumps({"framework": "plain", "sessions": sessions}, indent=2, sort_keys=True) + "\n"
                )
            else:
                hf_env = {"WANDB_RUN_ID": RUN_IDS[name], "WANDB_LOG_MODEL": "checkpoint"} if name == "hf" else {}
                code, exited = _run(python, workdir, {**env, **hf_env}, "--train", name)
                _check(name, code, 1 if name == "crash" else 0)
                _finish_record(workdir / "records" / f"{name}.json", exited, ends_at_exit=name in ("hf", "crash"))
            print(f"{name}: trained in {time.monotonic() - started:.1f} s", file=sys.stderr)
        manifest = {"removed": strip_weights(workdir)}
        (workdir / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        for link in [p for p in workdir.rglob("*") if p.is_symlink()]:
            link.unlink()  # wandb/latest-run and wandb/debug*.log point into the run folders
        store(workdir, out)


def _check(name: str, code: int, expected: int) -> None:
    if code != expected:
        raise SystemExit(f"{name}: the training exited with {code}, expected {expected}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="fixture folder (default: %(default)s)")
    parser.add_argument("--only", choices=TRAININGS, action="append", help="run only these trainings")
    parser.add_argument("--train", choices=TRAININGS, help=argparse.SUPPRESS)
    parser.add_argument("--session", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--workdir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.train == "lightning":
        train_lightning(args.workdir)
    elif args.train == "hf":
        train_hf(args.workdir)
    elif args.train == "resumed":
        train_resumed_session(args.workdir, args.session)
    elif args.train:
        train_plain(args.workdir, args.train)
    else:
        make_fixture(args.out, sys.executable, args.only or list(TRAININGS))
        total = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file())
        print(f"fixture in {args.out}: {total / 1024:.0f} KiB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
