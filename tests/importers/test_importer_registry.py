"""The importers' one shape and their precedence (runlens/importers/importer.py, registry.py).

Every registered importer claims the files it reads, given what the importers before it claimed,
and reads a source it claimed; the order of registry.IMPORTERS is the precedence between formats.
Built on the real fixtures (tests/fixtures/importers/): the W&B project of offline runs, the
Lightning training's TensorBoard and MLflow logs, the hand-written fairseq logs. What each test
expects is read off the fixtures' layout, worked out in its comments.
"""

from __future__ import annotations

import inspect
import shutil
import subprocess
import sys
from pathlib import Path

from runlens.importers.common import Options, Outcome, display_path
from runlens.importers.found import FOUND_WORDS
from runlens.importers.importer import Claim, Claimed, Claims, Importer, Source, Walk
from runlens.importers.inputs import LOOKS_FOR
from runlens.importers.registry import FORMATS, IMPORTERS, OPTIONAL
from runlens.importers.runner import discover
from tests.support.importer_fixtures import FIXTURES, importer_extra, materialize

# The W&B fixture holds 9 run folders of 8 run ids: rlresum1 was resumed, one folder per session.
WANDB_RUN_IDS = {"rllight1", "rlhf0001", "rlplain1", "rlcrash1", "rlresum1", "rlkeras1", "rlgrpa01", "rlgrpb01"}
WANDB_NOTE = (
    "{taken}: among the files of W&B run folder {owner}: that run covers it (its times come from W&B's "
    "record stream); --format tensorboard or text imports it alone"
)
MLFLOW_NOTE = (
    "{taken}: TensorBoard logs among the artifacts of MLflow run {owner}: that run covers them (its times "
    "come from MLflow); --format tensorboard imports them alone"
)


def kinds(plan) -> list[str]:
    return [source.kind for source in plan.sources]


def test_every_registered_importer_has_the_one_shape(tmp_path):
    assert IMPORTERS, "no importer registered"
    for importer in IMPORTERS:
        assert isinstance(importer, Importer), importer
        assert importer.name and importer.kind and importer.label, importer
        assert list(inspect.signature(importer.claim).parameters) == ["walk", "claimed", "options", "explicit"]
        assert list(inspect.signature(importer.read).parameters) == ["source", "options"]
        # the command's words for it: what --format looks for, and what `runlens build` found
        assert importer.name in LOOKS_FOR, f"{importer.name}: no entry in inputs.LOOKS_FOR"
        assert importer.kind in FOUND_WORDS, f"{importer.kind}: no entry in runlens.importers.found.FOUND_WORDS"
        if importer.package is not None:
            importer_extra(importer.package)  # a package of the importer extra, installed where CI runs
        # a folder with nothing in it: nothing claimed, nothing taken, nothing said
        assert importer.claim(Walk(tmp_path, tmp_path, []), Claimed(), Options(), False) == Claims()
    assert len({importer.kind for importer in IMPORTERS}) == len(IMPORTERS), "two importers share a kind"
    # --format's choices: auto, then each importer's format once, in the list's order
    names = [importer.name for importer in IMPORTERS]
    assert FORMATS == ("auto", *sorted(set(names), key=names.index))
    assert set(LOOKS_FOR) == set(names)
    assert OPTIONAL == {i.name: (i.package, i.label) for i in IMPORTERS if i.package is not None}
    assert set(OPTIONAL) == {"tensorboard", "wandb"}


def test_claiming_needs_no_package_of_the_importer_extra(tmp_path):
    """Discovery over W&B and TensorBoard logs imports neither wandb nor tensorboard: only a
    read does (a fresh interpreter, so that no other test has imported them)."""
    project = shutil.copytree(FIXTURES / "wandb", tmp_path / "project")
    lightning = materialize("lightning", tmp_path)
    code = (
        "import sys; from pathlib import Path; from runlens.importers.common import Options; "
        "from runlens.importers.runner import discover; "
        f"plan = discover([Path({str(project)!r}), Path({str(lightning)!r})], 'auto', Options()); "
        "print(sorted({s.kind for s in plan.sources}), 'wandb' in sys.modules, 'tensorboard' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout == "['mlflow_file', 'tensorboard', 'wandb'] False False\n"


def wandb_run_with_tensorboard_and_text(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """The W&B project with the Lightning run's TensorBoard file copied into the files/ of run
    rllight1 (as sync_tensorboard=True leaves it) and a fairseq log beside it; the project, the
    run folder, the event file and the log as copied."""
    project = shutil.copytree(FIXTURES / "wandb", tmp_path / "project")
    (run,) = (project / "wandb").glob("*-rllight1")
    (events,) = (FIXTURES / "lightning" / "lightning_logs").rglob("events.out.tfevents.*")
    (run / "files" / "tb").mkdir(parents=True)
    copied = Path(shutil.copy2(events, run / "files" / "tb" / events.name))
    log = Path(shutil.copy2(FIXTURES / "fairseq" / "iwslt" / "train.log", run / "files" / "train.log"))
    return project, run, copied, log


def test_a_wandb_run_folder_takes_the_tensorboard_and_text_files_in_it(tmp_path):
    project, run, events, log = wandb_run_with_tensorboard_and_text(tmp_path)
    plan = discover([project], "auto", Options())
    # one source per run id, and nothing else: the event file and the log are rllight1's
    assert kinds(plan) == ["wandb"] * 8
    assert {source.path.name.removeprefix("run-").removesuffix(".wandb") for source in plan.sources} == WANDB_RUN_IDS
    assert plan.notes == [  # TensorBoard claims before text: its note first
        WANDB_NOTE.format(taken=display_path(events), owner=run.name),
        WANDB_NOTE.format(taken=display_path(log), owner=run.name),
    ]
    # --format tensorboard (text): that importer alone, which no other claims from
    alone = discover([project], "tensorboard", Options())
    assert [(source.kind, source.path, source.files) for source in alone.sources] == [
        ("tensorboard", events.parent, [events])
    ]
    assert alone.notes == []
    alone = discover([project], "text", Options())
    assert [(source.kind, source.path) for source in alone.sources] == [("text", log)] and alone.notes == []


def test_without_wandb_its_run_folders_still_keep_their_files(tmp_path):
    """--format auto without the wandb package: no W&B source, but its run folders' files are not
    read as TensorBoard or text logs either; without tensorboard, no TensorBoard source nor note."""
    project, run, events, log = wandb_run_with_tensorboard_and_text(tmp_path)
    plan = discover([project], "auto", Options(), without=frozenset({"wandb"}))
    assert plan.sources == []
    assert plan.notes == [
        WANDB_NOTE.format(taken=display_path(events), owner=run.name),
        WANDB_NOTE.format(taken=display_path(log), owner=run.name),
    ]
    plan = discover([project], "auto", Options(), without=frozenset({"tensorboard"}))
    assert kinds(plan) == ["wandb"] * 8
    assert plan.notes == [WANDB_NOTE.format(taken=display_path(log), owner=run.name)]


def test_an_mlflow_run_takes_the_tensorboard_logs_among_its_artifacts(tmp_path):
    lightning = materialize("lightning", tmp_path)
    (run,) = [meta.parent for meta in (lightning / "mlruns").glob("*/*/meta.yaml")]
    (events,) = (lightning / "lightning_logs").rglob("events.out.tfevents.*")
    artifacts = run / "artifacts" / "tensorboard_logs"
    artifacts.mkdir(parents=True)
    shutil.copy2(events, artifacts / events.name)
    plan = discover([lightning], "auto", Options())
    # the MLflow run, and the Lightning TensorBoard run outside mlruns/; its copy among the
    # artifacts is the MLflow run's: one note for the folder
    assert [(source.kind, source.path) for source in plan.sources] == [
        ("mlflow_file", run),
        ("tensorboard", events.parent),
    ]
    assert plan.notes == [MLFLOW_NOTE.format(taken=display_path(artifacts), owner=run.name)]
    alone = discover([lightning], "tensorboard", Options())
    assert [source.path for source in alone.sources] == [events.parent, artifacts] and alone.notes == []


# ---------------------------------------------------------------------------------------------
# a new reader: one module with the shape, one line in the list (here a test-local list)

METRICS_FILE = "system_metrics.csv"
METRICS_NOTE = "{taken}: beside the system metrics of {owner}: they cover it; --format text imports it alone"


def claim_metrics(walk: Walk, claimed: Claimed, options: Options, explicit: bool) -> Claims:
    """A folder with a system_metrics.csv is one source, and takes the text logs below it."""
    folders = [path.parent for path in walk.files if path.name == METRICS_FILE]
    sources = [Source(SYSTEM_METRICS, folder, walk.base, [folder / METRICS_FILE]) for folder in folders]
    return Claims(sources, [Claim(folder, frozenset({"text"}), METRICS_NOTE) for folder in folders])


def read_metrics(source: Source, options: Options) -> Outcome:
    """One note per file: how many samples (lines after the header) it holds."""
    (path,) = source.files
    samples = len(path.read_text(encoding="utf-8").splitlines()) - 1
    return Outcome(notes=[f"{display_path(path)}: {samples} samples"])


SYSTEM_METRICS = Importer("sysmetrics", "sysmetrics", "system metrics", None, claim_metrics, read_metrics)


def node_folders(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Two fairseq logs: node0/ beside a system_metrics.csv of 3 samples, node1/ alone."""
    root = tmp_path / "logs"
    logs = []
    for node in ("node0", "node1"):
        (root / node).mkdir(parents=True)
        logs.append(Path(shutil.copy2(FIXTURES / "fairseq" / "iwslt" / "train.log", root / node / "train.log")))
    (root / "node0" / METRICS_FILE).write_text("ts,gpu_util\n1,0.9\n2,0.8\n3,0.7\n", encoding="utf-8")
    return root, logs[0], logs[1]


def test_a_new_importer_first_in_the_list_claims_its_files_first(tmp_path):
    root, taken, alone = node_folders(tmp_path)
    plan = discover([root], "auto", Options(), importers=(SYSTEM_METRICS, *IMPORTERS))
    assert [(source.kind, source.path) for source in plan.sources] == [("sysmetrics", root / "node0"), ("text", alone)]
    assert plan.notes == [METRICS_NOTE.format(taken=display_path(taken), owner="node0")]
    first = plan.sources[0]
    assert first.importer.read(first, Options()).notes == [f"{display_path(root / 'node0' / METRICS_FILE)}: 3 samples"]
    # last in the list, it claims too late: the text importer has read node0's log already
    plan = discover([root], "auto", Options(), importers=(*IMPORTERS, SYSTEM_METRICS))
    assert [(source.kind, source.path) for source in plan.sources] == [
        ("text", taken),
        ("text", alone),
        ("sysmetrics", root / "node0"),
    ]
    assert plan.notes == []
    # --format text: the text importer alone, whatever is first in the list
    plan = discover([root], "text", Options(), importers=(SYSTEM_METRICS, *IMPORTERS))
    assert [source.path for source in plan.sources] == [taken, alone] and plan.notes == []
