"""The text-log importer (runlens/importers/text_log.py) reads what fairseq's logs state beside their
markers: the printed arguments (a `Namespace(...)` dump or a config dict) become the run_start's
config, and the save times (`writing took N seconds`) a profile section `checkpoint_save`. Files
the importers write get the mode `open(path, "w")` would give. Small synthetic logs, written here.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import duckdb
import jsonschema
import pytest

from runlens.cli import main
from runlens.importers.config_dump import parse_config_dump
from runlens.report.render import render_reports
from tests.support.importer_fixtures import of, only_run
from tests.support.pipeline import DATABASE, PROJECT, REPO, build

SCHEMA = json.loads((REPO / "models" / "staging" / "runlens_event.schema.json").read_text())

# fairseq 0.10: `saved checkpoint` in lower case, the arguments as argparse's Namespace
NAMESPACE = (
    "Namespace(arch='transformer_iwslt_de_en', adam_betas='(0.9, 0.98)', adam_eps=1e-08, "
    "enc_layer_configuration='', fp16=False, lr=[0.0005], max_epoch=2, max_update=0, "
    "tensorboard_logdir=None, task='translation', warmup_init_lr=-1, update_freq=[1])"
)
OLD_FAIRSEQ = [
    f"2020-11-02 09:00:00 | INFO | fairseq_cli.train | {NAMESPACE}",
    "2020-11-02 09:00:01 | INFO | fairseq.trainer | begin training epoch 1",
    "2020-11-02 09:01:40 | INFO | fairseq.checkpoint_utils | saved checkpoint ckpt/checkpoint1.pt "
    "(epoch 1 @ 100 updates, score 5.1) (writing took 1.8 seconds)",
    "2020-11-02 09:01:40 | INFO | fairseq_cli.train | end of epoch 1 (average epoch stats below)",
    "2020-11-02 09:03:20 | INFO | fairseq.checkpoint_utils | saved checkpoint ckpt/checkpoint2.pt "
    "(epoch 2 @ 200 updates, score 4.2) (writing took 2.2 seconds)",
    "2020-11-02 09:03:20 | INFO | fairseq_cli.train | end of epoch 2 (average epoch stats below)",
    "2020-11-02 09:03:25 | INFO | fairseq_cli.train | done training in 204.0 seconds",
]

# newer fairseq: a config dict holding the model's Namespace, `Saved checkpoint`
CONFIG_DICT = (
    "{'_name': None, 'common': {'_name': None, 'seed': 1, 'fp16': False, 'fp16_scale_tolerance': 0.0}, "
    "'optimization': {'_name': None, 'max_epoch': 2, 'lr': [0.0005], 'stop_min_lr': -1.0}, "
    "'model': Namespace(_name='transformer_iwslt_de_en', dropout=0.3, enc_layer_configuration='{layers}', "
    "eval_bleu_args='{\"beam\": 5}', encoder_layers_to_keep=None), "
    "'task': {'_name': 'translation', 'data': 'data-bin/iwslt14'}, 'bpe': None}"
)


def new_fairseq(layers: str, saves: tuple[str, str]) -> list[str]:
    return [
        "2021-05-10 14:08:40 | INFO | fairseq_cli.train | " + CONFIG_DICT.replace("{layers}", layers),
        "2021-05-10 14:08:41 | INFO | fairseq.trainer | begin training epoch 1",
        "2021-05-10 14:10:07 | INFO | fairseq.checkpoint_utils | Saved checkpoint run/checkpoint_best.pt "
        f"(epoch 1 @ 379 updates, score 0.01) (writing took {saves[0]} seconds)",
        "2021-05-10 14:10:07 | INFO | fairseq_cli.train | end of epoch 1 (average epoch stats below)",
        "2021-05-10 14:11:36 | INFO | fairseq.trainer | Finished saving checkpoint to run/checkpoint_last.pt",
        "2021-05-10 14:11:36 | INFO | fairseq.checkpoint_utils | Saved checkpoint run/checkpoint_last.pt "
        f"(epoch 2 @ 758 updates, score 0.51) (writing took {saves[1]} seconds)",
        "2021-05-10 14:11:36 | INFO | fairseq_cli.train | end of epoch 2 (average epoch stats below)",
        "2021-05-10 14:11:40 | INFO | fairseq_cli.train | done training in 179.5 seconds",
    ]


def write_log(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines))
    return path


def run_import(*args: str | Path) -> int:
    return main(["import", *(str(a) for a in args), "--format", "text", "--quiet"])


def test_namespace_dump_becomes_the_config_and_save_times_a_profile_section(tmp_path):
    log = write_log(tmp_path / "old" / "train.log", OLD_FAIRSEQ)
    assert run_import(log, "--into", tmp_path / "out") == 0
    lines = only_run(tmp_path / "out")
    for line in lines:
        jsonschema.validate(line, SCHEMA)
    (start,) = of(lines, "run_start")
    assert start["config"] == {
        "arch": "transformer_iwslt_de_en",
        "adam_betas": "(0.9, 0.98)",  # a string that looks like a tuple stays a string
        "adam_eps": 1e-08,
        "enc_layer_configuration": "",
        "fp16": False,
        "lr": [0.0005],
        "max_epoch": 2,
        "max_update": 0,
        "tensorboard_logdir": None,
        "task": "translation",
        "warmup_init_lr": -1,
        "update_freq": [1],
    }
    assert start["config_source"] == "log line 1: a Namespace(...) dump" and "config_note" not in start
    # no `'task': {'_name': ...}` line: the Namespace's task names it
    assert (start["task"], start["task_source"]) == ("translation", "config:task")
    # fairseq 0.10's lower-case `saved checkpoint` lines are checkpoints
    assert [c["step"] for c in of(lines, "checkpoint")] == [100, 200]
    # one profile at each epoch's end (1.8 s saved by 09:01:40) and the last at the run_end line
    first, _, profile = of(lines, "profile")
    assert (first["wall_seconds"], first["sections"], first["final"]) == (100.0, {"checkpoint_save": 1.8}, False)
    assert profile["sections"] == {"checkpoint_save": pytest.approx(4.0)}  # 1.8 s + 2.2 s
    # the log's own span: 09:00:00 (first line) to 09:03:25 (done training) = 205 s
    assert profile["wall_seconds"] == 205.0
    assert profile["final"] is True
    assert profile["ts"] == "2020-11-02T09:03:25.000000Z"  # at the run_end line
    assert profile["is_approximate"] and "no profiler wrote one" in profile["approximation"]
    assert "whole-second" in profile["approximation"] and "read as UTC" in profile["approximation"]
    assert profile["section_sources"] == {"checkpoint_save": "the sum of the 2 save times the log states"}


def test_config_dict_with_a_nested_namespace_is_kept_nested(tmp_path):
    log = write_log(tmp_path / "sandwich" / "train.log", new_fairseq("AAAAAFFF", ("0.16683474499950535", "1.5")))
    assert run_import(log, "--into", tmp_path / "out", "--timezone", "UTC") == 0
    lines = only_run(tmp_path / "out")
    (start,) = of(lines, "run_start")
    assert start["config"] == {
        "_name": None,
        "common": {"_name": None, "seed": 1, "fp16": False, "fp16_scale_tolerance": 0.0},
        "optimization": {"_name": None, "max_epoch": 2, "lr": [0.0005], "stop_min_lr": -1.0},
        "model": {
            "_name": "transformer_iwslt_de_en",
            "dropout": 0.3,
            "enc_layer_configuration": "AAAAAFFF",
            "eval_bleu_args": '{"beam": 5}',
            "encoder_layers_to_keep": None,
        },
        "task": {"_name": "translation", "data": "data-bin/iwslt14"},
        "bpe": None,
    }
    assert start["config_source"] == "log line 1: a config dict"
    assert (start["task"], start["task_source"]) == ("translation", "pattern:task")
    *_, profile = of(lines, "profile")
    assert profile["sections"]["checkpoint_save"] == pytest.approx(1.666835, abs=1e-6)  # 0.166835 + 1.5
    assert profile["wall_seconds"] == 180.0  # 14:08:40 to 14:11:40
    assert "read as UTC" not in profile["approximation"]


def test_a_log_without_run_end_gets_a_profile_that_is_not_final(tmp_path):
    log = write_log(tmp_path / "runs" / "crashed.log", OLD_FAIRSEQ[:-1])
    assert run_import(log, "--into", tmp_path / "out") == 0
    lines = only_run(tmp_path / "out")
    assert of(lines, "run_end") == []
    *_, profile = of(lines, "profile")
    # 09:00:00 to the last timed line, 09:03:20 (epoch 2's end); not final, so the run stays incomplete
    assert (profile["wall_seconds"], profile["final"]) == (200.0, False)
    assert profile["sections"] == {"checkpoint_save": pytest.approx(4.0)}
    assert "last timed line" in profile["approximation"]


def test_a_log_without_save_times_or_config_gets_neither(tmp_path):
    log = write_log(
        tmp_path / "plain" / "train.log",
        [line.split(" (writing took")[0] for line in OLD_FAIRSEQ[1:]],
    )
    assert run_import(log, "--into", tmp_path / "out") == 0
    lines = only_run(tmp_path / "out")
    assert of(lines, "profile") == []
    (start,) = of(lines, "run_start")
    assert start["config"] == {} and "config_source" not in start
    assert len(of(lines, "checkpoint")) == 2


def test_an_unparseable_dump_keeps_what_it_can_and_says_so(tmp_path, capsys):
    bad = "Namespace(lr=0.25, device=device(type='cuda'), hook=<function hook at 0x7f3a>, seed=3, cut='abc"
    lines_in = [f"2020-11-02 09:00:00 | INFO | fairseq_cli.train | {bad}", *OLD_FAIRSEQ[1:]]
    log = write_log(tmp_path / "odd" / "train.log", lines_in)
    assert main(["import", str(log), "--into", str(tmp_path / "out"), "--format", "text"]) == 0
    lines = only_run(tmp_path / "out")
    (start,) = of(lines, "run_start")
    assert start["config"] == {
        "lr": 0.25,
        "device": "device(type='cuda')",
        "hook": "<function hook at 0x7f3a>",
        "seed": 3,
    }
    assert "2 value(s) are no Python literals and are kept as their text (device, hook)" in start["config_note"]
    assert "ends before its closing bracket" in start["config_note"]
    assert "config from line 1" in capsys.readouterr().err
    # nothing else is lost
    assert [c["step"] for c in of(lines, "checkpoint")] == [100, 200]
    assert len(of(lines, "epoch_end")) == 2 and len(of(lines, "run_end")) == 1 and len(of(lines, "profile")) == 3


def test_the_first_begin_training_line_is_train_start_with_a_loaded_checkpoint_s_step(tmp_path):
    fresh = write_log(tmp_path / "fresh" / "train.log", OLD_FAIRSEQ)
    resumed = write_log(
        tmp_path / "resumed" / "train.log",
        [
            "2020-11-03 10:00:00 | INFO | fairseq_cli.train | start",
            "2020-11-03 10:00:03 | INFO | fairseq.trainer | Loaded checkpoint ckpt/checkpoint_last.pt "
            "(epoch 2 @ 200 updates)",
            "2020-11-03 10:00:07 | INFO | fairseq.trainer | begin training epoch 2",
            "2020-11-03 10:01:47 | INFO | fairseq.trainer | begin training epoch 3",
            "2020-11-03 10:01:50 | INFO | fairseq_cli.train | done training in 110.0 seconds",
        ],
    )
    for log, name in ((fresh, "fresh"), (resumed, "resumed")):
        assert run_import(log, "--into", tmp_path / "out" / name) == 0
    (fresh_start,) = of(only_run(tmp_path / "out" / "fresh"), "train_start")
    (resumed_start,) = of(only_run(tmp_path / "out" / "resumed"), "train_start")  # the first begin line only
    # the log's own line: approximate only for its whole-second times
    assert (fresh_start["ts"], "step" in fresh_start) == ("2020-11-02T09:00:01.000000Z", False)
    assert (resumed_start["ts"], resumed_start["step"]) == ("2020-11-03T10:00:07.000000Z", 200)
    assert resumed_start["approximation"].startswith("train_start from a log line with whole-second times")


def test_parse_config_dump_never_evaluates():
    marker = "__import__('os').system('touch /tmp/runlens-should-not-exist')"
    dump = parse_config_dump(f"Namespace(a={marker}, b=1.5e3, c=-2, d=(1, 'x'), e=nan, f={{'k': True}})")
    assert dump.config == {"a": marker, "b": 1500.0, "c": -2, "d": [1, "x"], "e": "nan", "f": {"k": True}}
    assert dump.raw_keys == ["a", "e"]
    assert not Path("/tmp/runlens-should-not-exist").exists()
    assert parse_config_dump('{"lr": 0.1, "amp": true, "tags": null}').config == {"lr": 0.1, "amp": True, "tags": None}
    assert parse_config_dump("no dump").problems


def test_imported_files_honour_the_umask(tmp_path):
    log = write_log(tmp_path / "old" / "train.log", OLD_FAIRSEQ)
    (tmp_path / "missing").mkdir()  # a text log without timestamps: a reject, so a rejects file too
    write_log(tmp_path / "missing" / "notimes.log", ["Saved checkpoint x (epoch 1 @ 1 updates"])
    previous = os.umask(0o022)
    try:
        assert run_import(log, tmp_path / "missing" / "notimes.log", "--into", tmp_path / "out") == 0
    finally:
        os.umask(previous)
    written = list((tmp_path / "out").rglob("*.jsonl"))
    assert {path.name for path in written} == {"train.jsonl", "_import_rejects.jsonl"}
    for path in written:
        assert stat.S_IMODE(path.stat().st_mode) == 0o644, path
    previous = os.umask(0o077)
    try:  # a changed log is written again, with the mode of the umask now in force
        write_log(log, OLD_FAIRSEQ[:-1])
        assert run_import(log, "--into", tmp_path / "out") == 0
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "out" / "text" / "old" / "train.jsonl").stat().st_mode) == 0o600


def test_imported_config_and_saves_reach_the_marts_and_the_page(tmp_path):
    """Two collections that differ in one model key: the comparison names it, and the save times
    are a measured profiler section, so the page does not say saving went unmeasured."""
    write_log(tmp_path / "logs" / "baseline" / "baseline_train.log", new_fairseq("", ("1.8", "2.2")))
    write_log(tmp_path / "logs" / "sandwich" / "sandwich_train.log", new_fairseq("AAAAAFFF", ("1.0", "1.5")))
    raw = tmp_path / "raw"
    assert run_import(tmp_path / "logs", "--into", raw, "--timezone", "UTC") == 0
    (raw / "runlens_collections.csv").write_text("collection,baseline_collection\nsandwich,baseline\n")
    database = tmp_path / "db" / DATABASE
    build(PROJECT, raw, database)
    connection = duckdb.connect(str(database), read_only=True)
    try:
        sections = connection.execute(
            "select run_id, section, seconds from fct_run_profile_sections order by run_id, section"
        ).fetchall()
        differences = connection.execute(
            "select config_key from cmp_collection_config_differences where collection = 'sandwich' order by config_key"
        ).fetchall()
        rejected = connection.execute("select count(*) from fct_rejected_lines").fetchone()[0]
    finally:
        connection.close()
    assert rejected == 0
    assert [(run, section, pytest.approx(seconds)) for run, section, seconds in sections] == [
        ("baseline/baseline_train", "checkpoint_save", 4.0),  # 1.8 s + 2.2 s
        ("baseline/baseline_train", "unattributed", 176.0),  # 180 s of wall time less 4.0 s
        ("sandwich/sandwich_train", "checkpoint_save", 2.5),
        ("sandwich/sandwich_train", "unattributed", 177.5),
    ]
    assert ("model.enc_layer_configuration",) in differences
    render_reports(database, tmp_path / "reports")
    page = next(p for p in (tmp_path / "reports").rglob("profile.md") if "sandwich" in p.read_text().splitlines()[0])
    text = page.read_text()
    assert "model.enc_layer_configuration" in text
    assert "No config key differs" not in text
    assert "no profiler section measured it here" not in text
    assert "checkpoint_save" in text
