"""The benchmark runs end to end at a tiny size, and its three readings of the logs agree (the marts,
the hand-written DuckDB floor, the pandas baseline). Speed is never asserted. Also: the generator's
scale mode is deterministic and its two layouts hold the same lines."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from collections import Counter

import generate_sample as gen  # scripts/ is on pytest's pythonpath (pyproject.toml)
import pytest
from pipeline import REPO

BENCH = REPO / "scripts" / "bench.py"


def lines_below(folder):
    found = Counter()
    for path in sorted(folder.rglob("*")):
        if path.name.endswith(".jsonl"):
            data = path.read_bytes()
        elif path.name.endswith(".jsonl.gz"):
            data = gzip.decompress(path.read_bytes())
        else:
            continue
        found.update(data.split(b"\n")[:-1])
    return found


def test_scale_mode_is_deterministic_and_layouts_agree(tmp_path):
    per_run = gen.write_scale(tmp_path / "per_run", 7, 0, 120, "per-run", fault_rate=0.05)
    sharded = gen.write_scale(tmp_path / "sharded", 7, 0, 120, "sharded", shard_runs=50, fault_rate=0.05)
    again = gen.write_scale(tmp_path / "again", 7, 0, 120, "sharded", shard_runs=50, fault_rate=0.05)
    assert per_run["files"] == 120 and sharded["files"] == 3
    assert lines_below(tmp_path / "per_run") == lines_below(tmp_path / "sharded")
    for path in (tmp_path / "sharded").rglob("*.jsonl*"):
        assert path.read_bytes() == (tmp_path / "again" / path.relative_to(tmp_path / "sharded")).read_bytes()
    assert sharded["lines"] == again["lines"] == per_run["lines"]
    assert any(p.name.endswith(".gz") for p in (tmp_path / "sharded").rglob("*"))
    # later runs (a refresh) never reuse a run_id
    first = {gen.scale_run(7, i).run_id for i in range(120)}
    assert not first & {gen.scale_run(7, i).run_id for i in range(120, 240)}


def test_scale_timestamps_match_datetime():
    from datetime import UTC, datetime, timedelta, timezone

    for ms in (0, 1_743_465_600_123, 1_746_000_000_999, 4_102_444_799_000):
        at = datetime.fromtimestamp(ms // 1000, UTC) + timedelta(milliseconds=ms % 1000)
        assert json.loads(gen.scale_ts(ms, "ms")) == at.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        assert json.loads(gen.scale_ts(ms, "offset")) == at.astimezone(timezone(timedelta(hours=2))).isoformat(
            timespec="milliseconds"
        )
        assert json.loads(gen.scale_ts(ms, "epoch")) == pytest.approx(ms / 1000, abs=1e-6)


def test_bench_runs_end_to_end_and_its_readings_agree(tmp_path):
    pytest.importorskip("pandas")
    out = tmp_path / "bench"
    # the dbt steps that only add timings (fixed cost, models-only run, refreshes) are left out to
    # keep this near a minute: each dbt invocation costs ~20 s here, whatever the size
    command = [sys.executable, str(BENCH), "--sizes", "200", "--out-dir", str(out), "--no-docs"]
    result = subprocess.run(
        [*command, "--skip", "noop,run,refresh"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    report = json.loads((out / "benchmarks.json").read_text())
    assert {"command", "machine", "memory_method", "config", "sizes", "targets"} <= report.keys()
    machine = report["machine"]
    assert {"cpu_model", "logical_cpus", "memory_gb", "os", "python", "versions", "date_utc"} <= machine.keys()
    (entry,) = report["sizes"]
    assert entry["runs"] == 200 and entry["layout"] == "per-run" and entry["failures"] == []
    assert entry["runs_in_marts"] == 200 and entry["lines_read"] >= 200 * 10
    for step in ("generate", "dbt_parse", "dbt_build", "render_report", "floor", "pandas"):
        assert entry[step]["returncode"] == 0, step
    assert entry["dbt_build"]["seconds"] > 0 and entry["dbt_build"]["peak_rss_mb"] > 0
    assert entry["where_time_goes"]["top_models"]
    for reader in ("floor", "pandas"):
        check = entry[reader]["check"]
        assert check["ok"], (reader, check)
        assert check["runs_compared"] == 200
        assert check["wall_mismatches"] == check["tail_mismatches"] == check["rollup_mismatches"] == 0
        assert [c["collection"] for c in check["collections"]] == [c for c, _, _ in gen.SCALE_COLLECTIONS]
        assert all(c["agrees"] for c in check["collections"])
    assert {row["verdict"] for row in report["targets"]} == {"not run"}
    assert (out / "benchmarks.md").read_text().startswith("# runlens benchmarks")
