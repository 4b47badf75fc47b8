"""runlens' callbacks in real trainings, against the test's own record of them (issue 12).

A tiny Lightning, Hugging Face Trainer, Keras (torch backend) and plain PyTorch training each run
once per session (tests/support/writer_trainings.py), recorded by the runlens callback (the writer, for the
plain loop) and, independently, by the test's own hooks and wrappers. For each:

- every line is an event of the input contract (its JSON Schema), one run, times increasing;
- the markers are those of the record, in order, each within 0.05 s of the record's time;
- every checkpoint and epoch end is there, with its step and epoch;
- a cumulative profile follows every checkpoint, and the last one precedes run_end;
- the profile's sections are those of the record, each within 5% of the time the record's spans
  cover, and hold at least the time the training slept inside them; they never add up to more
  than the profile's wall time, which is the run's (within 0.05 s).

And a training that raises: Lightning's callback writes run_end `failed: <ExceptionType>` from
`on_exception`; Keras (which tells callbacks nothing of exceptions) does so when the fit runs
inside the callback's RunLog, and a save after the crash writes no marker.
"""

from __future__ import annotations

import importlib.util
import json
import sys

import jsonschema
import pytest

from tests.support.pipeline import REPO
from tests.support.writer_trainings import (
    BATCH_SIZE,
    CHECKPOINT_STEPS,
    COLLECTION,
    EPOCHS,
    FRAMEWORKS,
    SLEEP_SECONDS,
    STEPS_PER_EPOCH,
    framework_module,
    keras_on_torch,
    tensors,
)

SCHEMA = json.loads((REPO / "models" / "staging" / "runlens_event.schema.json").read_text(encoding="utf-8"))
MARKERS = ("run_start", "train_start", "checkpoint", "epoch_end", "run_end")
MARKER_FIELDS = ("step", "epoch", "status")
MARKER_TOLERANCE_SECONDS = 0.05
SECTION_TOLERANCE_SHARE = 0.05


@pytest.fixture(params=FRAMEWORKS)
def training(request, writer_training):
    return writer_training(request.param)


def epoch_seconds(ts: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()


def markers(events: list[dict]) -> list[tuple[str, dict, float]]:
    return [
        (event["event"], {key: event[key] for key in MARKER_FIELDS if key in event}, epoch_seconds(event["ts"]))
        for event in events
        if event["event"] in MARKERS
    ]


def latest_profile(events: list[dict]) -> dict:
    return [event for event in events if event["event"] == "profile"][-1]


def test_every_line_is_an_event_of_the_contract(training):
    validator = jsonschema.Draft202012Validator(SCHEMA)
    events = training.events()
    for event in events:
        validator.validate(event)
    assert {event["run_id"] for event in events} == {training.log_path.stem}
    timestamps = [event["ts"] for event in events]
    assert timestamps == sorted(timestamps) and len(set(timestamps)) == len(timestamps)


def test_run_start_names_the_run_and_keeps_its_config(training):
    run_start = training.events()[0]
    assert run_start["event"] == "run_start"
    assert (run_start["collection"], run_start["task"]) == (COLLECTION, training.framework)
    config = run_start["config"]
    if training.framework == "lightning":  # the module's hparams, nested dict kept
        assert config == {"lr": 0.1, "optimizer": {"name": "sgd", "momentum": 0.0}}
    elif training.framework == "transformers":  # the TrainingArguments
        assert config["learning_rate"] == 0.1 and config["num_train_epochs"] == EPOCHS
    elif training.framework == "keras":
        assert config == {"lr": 0.1, "layers": [4, 1]}
    else:  # a torch scalar and a Path, converted
        assert config["optimizer"] == {"name": "sgd"} and config["out"].endswith("plain_loop.pt")
        assert config["lr"] == pytest.approx(0.1)


def test_markers_are_the_recorded_ones_at_the_recorded_times(training):
    written, recorded = markers(training.events()), training.record.marks
    assert [(event, fields) for event, fields, _ in written] == [(event, fields) for event, fields, _ in recorded]
    for (event, fields, written_at), (_, _, recorded_at) in zip(written, recorded, strict=True):
        assert abs(written_at - recorded_at) <= MARKER_TOLERANCE_SECONDS, (event, fields, written_at - recorded_at)


def test_every_checkpoint_and_epoch_end_is_there(training):
    events = training.events()
    assert [event["step"] for event in events if event["event"] == "checkpoint"] == CHECKPOINT_STEPS
    epoch_ends = [(event["epoch"], event["step"]) for event in events if event["event"] == "epoch_end"]
    assert epoch_ends == [(epoch, STEPS_PER_EPOCH * (epoch + 1)) for epoch in range(EPOCHS)]
    assert events[-1] == {**events[-1], "event": "run_end", "status": "completed"}


def test_a_cumulative_profile_follows_every_checkpoint(training):
    events = training.events()
    kinds = [event["event"] for event in events]
    for index, kind in enumerate(kinds):
        if kind == "checkpoint":
            assert kinds[index + 1] == "profile"
    assert kinds[-2:] == ["profile", "run_end"]
    profiles = [event for event in events if event["event"] == "profile"]
    for earlier, later in zip(profiles, profiles[1:], strict=False):
        assert later["wall_seconds"] >= earlier["wall_seconds"]
        assert all(later["sections"][name] >= seconds for name, seconds in earlier["sections"].items())


def test_sections_are_the_recorded_ones_within_five_percent(training):
    sections = latest_profile(training.events())["sections"]
    recorded = training.record.section_seconds()
    assert set(sections) == set(recorded) == set(SLEEP_SECONDS)
    for name, recorded_seconds in recorded.items():
        assert abs(sections[name] - recorded_seconds) <= SECTION_TOLERANCE_SHARE * recorded_seconds, (
            name,
            sections[name],
            recorded_seconds,
        )


def test_sections_hold_the_work_done_in_them_and_fit_in_the_wall_time(training):
    profile = latest_profile(training.events())
    for name, slept in training.record.slept.items():
        assert profile["sections"][name] >= slept, name
    assert sum(profile["sections"].values()) <= profile["wall_seconds"]
    marks = {event: at for event, _, at in training.record.marks if event in ("run_start", "run_end")}
    assert abs(profile["wall_seconds"] - (marks["run_end"] - marks["run_start"])) <= MARKER_TOLERANCE_SECONDS


# -- a training that fails ---------------------------------------------------------------------


class Diverged(RuntimeError):
    """What the failing trainings below raise at their third step."""


def failing_steps(torch):
    calls = iter(range(100))

    def loss_or_failure(prediction, target):
        if next(calls) == 2:
            raise Diverged("loss is nan")
        return torch.nn.functional.mse_loss(prediction, target)

    return loss_or_failure


def final_event(path) -> dict:
    lines = path.read_text(encoding="utf-8").splitlines()
    return json.loads(lines[-1])


def test_lightning_records_an_exception_as_a_failed_run(tmp_path):
    torch = framework_module("torch")
    pl = framework_module("lightning.pytorch")
    from runlens_callbacks.lightning import RunlensLightningCallback

    loss = failing_steps(torch)

    class FailingModule(pl.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.layer = torch.nn.Linear(4, 1)

        def training_step(self, batch, batch_idx):
            return loss(self.layer(batch[0]), batch[1])

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    features, targets = tensors(torch)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(features, targets), batch_size=BATCH_SIZE)
    path = tmp_path / "failing.jsonl"
    trainer = pl.Trainer(
        max_epochs=1,
        accelerator="cpu",
        logger=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        enable_checkpointing=False,
        default_root_dir=tmp_path,
        callbacks=[RunlensLightningCallback(path, collection=COLLECTION, task="failing")],
    )
    with pytest.raises(Diverged):
        trainer.fit(FailingModule(), loader)
    assert final_event(path) == {**final_event(path), "event": "run_end", "status": "failed: Diverged"}


def test_keras_fit_inside_the_callbacks_run_log_records_a_crash(tmp_path):
    torch = framework_module("torch")
    keras = keras_on_torch()
    from runlens_callbacks.keras import RunlensKerasCallback

    loss = failing_steps(torch)

    class FailingLayer(keras.layers.Layer):
        def call(self, inputs, training=None):
            if training:
                loss(torch.zeros(1), torch.zeros(1))
            return inputs

    model = keras.Sequential([keras.Input((4,)), FailingLayer(), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    features, targets = (array.numpy() for array in tensors(torch))
    path = tmp_path / "failing.jsonl"
    callback = RunlensKerasCallback(path, collection=COLLECTION, task="failing")
    with pytest.raises(Diverged), callback.run_log:
        model.fit(features, targets, batch_size=BATCH_SIZE, epochs=1, verbose=0, callbacks=[callback])
    assert final_event(path) == {**final_event(path), "event": "run_end", "status": "failed: Diverged"}
    lines = path.read_text(encoding="utf-8")
    model.save_weights(str(tmp_path / "after_the_crash.weights.h5"))  # the run is over: no checkpoint marker
    assert path.read_text(encoding="utf-8") == lines and (tmp_path / "after_the_crash.weights.h5").exists()


def test_keras_trains_on_torch_without_tensorflow(writer_training):
    writer_training("keras")
    keras = keras_on_torch()
    assert keras.backend.backend() == "torch"
    assert importlib.util.find_spec("tensorflow") is None and "tensorflow" not in sys.modules
