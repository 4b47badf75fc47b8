"""The lower-bound script's `numbered` path (scripts/benchmark/utilization_lower_bound.py): the line
it gives each sample is the line of the file that holds that sample. Its figures back a decision
(docs/performance.md, "The least a typed path costs"), so its numbering is checked against the
files themselves, read here line by line with Python's json."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from scripts.benchmark import utilization_logs
from scripts.benchmark.utilization_lower_bound import typed_path_seconds


def test_numbered_path_names_each_samples_own_line(tmp_path: Path):
    with_samples, without_samples = tmp_path / "with", tmp_path / "without"
    counts = utilization_logs.write(with_samples, without_samples, runs=3, seed=7)
    files = sorted(str(path) for path in with_samples.rglob("*.jsonl"))
    scratch = tmp_path / "scratch"
    scratch.mkdir()

    steps = typed_path_seconds(files, True, scratch)

    assert set(steps) == {"read and store", "spans", "means", "checkpoint"}
    connection = duckdb.connect(str(scratch / "typed.duckdb"), read_only=True)
    rows = connection.execute(
        "select file_path, line_number, run_id, gpu_index, strftime(sampled_at, '%Y-%m-%dT%H:%M:%S.%fZ') from samples"
    ).fetchall()
    connection.close()
    expected = set()
    for name in files:
        for number, text in enumerate(Path(name).read_text(encoding="utf-8").splitlines(), start=1):
            line = json.loads(text)
            if line["event"] == "sample":
                expected.add((name, number, line["run_id"], line.get("gpu"), line["ts"]))
    assert len(expected) == counts["sample_lines"]
    assert len(rows) == len(expected)
    assert set(rows) == expected
