"""The logs a benchmark size reads: generated with scripts/generate_sample.py's scale mode, shaped
like a real history (its ScaleShape: 24 tasks a collection, a few percent of runs that stopped
part-way, a few percent of runs of many epochs), with the collections file that names baselines,
then changed for the refreshes (1% new runs; events appended to 1% of the runs); and the files
and lines counted, on disk and in the marts."""

from __future__ import annotations

import gzip
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from scripts import generate_sample as gen
from tests.support.pipeline import REPO

GENERATOR = REPO / "scripts" / "generate_sample.py"
SHARDED_FROM = 100_000  # sizes from here on use the sharded layout
REFRESH_SHARE = 0.01  # the share of runs a refresh adds or appends to
# The as-of time every `runlens` command of the bench is pinned to (RUNLENS_AS_OF): a month after
# the last generated run starts (scale runs start from gen.SCALE_START_MS, 2025-04-01, within
# gen.SCALE_SPAN_MS, 60 days; the longest end within hours of that), so every run, the refreshes'
# new runs and appended events included, lies before it. Pinned, a build over a folder that did not
# change runs nothing (`runlens build`: "nothing changed since ... was built").
BENCH_AS_OF = "2025-07-01T00:00:00Z"


@dataclass(frozen=True)
class LogSettings:
    """How the generator writes the logs (the same for every size)."""

    seed: int
    shard_runs: int
    fault_rate: float
    shape: gen.ScaleShape = gen.DEFAULT_SHAPE


def layout_for(runs: int) -> str:
    return "sharded" if runs >= SHARDED_FROM else "per-run"


def generate_command(runs: int, layout: str, out: Path, settings: LogSettings) -> list[str]:
    """The generator's command line for `runs` runs in `layout` under `out`."""
    return [
        sys.executable, str(GENERATOR),
        "--runs", str(runs), "--layout", layout, "--shard-runs", str(settings.shard_runs),
        "--fault-rate", str(settings.fault_rate), "--seed", str(settings.seed), "--out", str(out),
        "--tasks", str(settings.shape.tasks), "--incomplete-rate", str(settings.shape.incomplete_rate),
        "--many-epochs-rate", str(settings.shape.many_epochs_rate), "--epochs", str(settings.shape.epochs),
    ]  # fmt: skip


def log_files(raw_dir: Path) -> list[str]:
    """The log files the pipeline reads (names starting with _ or . are skipped), sorted."""
    found = []
    for root, dirs, files in os.walk(raw_dir):
        dirs[:] = sorted(d for d in dirs if not d.startswith(("_", ".")))
        found += [
            os.path.join(root, f)
            for f in sorted(files)
            if f.endswith((".jsonl", ".jsonl.gz")) and not f.startswith(("_", "."))
        ]
    return found


def files_on_disk(raw_dir: Path) -> dict:
    files = log_files(raw_dir)
    return {
        "files": len(files),
        "gzip_files": sum(1 for f in files if f.endswith(".gz")),
        "bytes_on_disk": sum(os.path.getsize(f) for f in files),
    }


def line_counts(marts_db: Path) -> dict:
    """Files, lines and runs as the marts count them."""
    import duckdb

    with duckdb.connect(str(marts_db), read_only=True) as connection:
        row = connection.execute(
            "select count(*), sum(physical_lines), sum(lines_read), sum(accepted), sum(duplicates), "
            "sum(rejected), sum(blank_lines) from agg_file_data_quality"
        ).fetchone()
        runs = connection.execute("select count(*), count(*) filter (where is_analyzed) from fct_runs").fetchone()
    keys = ("files_in_marts", "physical_lines", "lines_read", "accepted", "duplicates", "rejected", "blank_lines")
    counts = {key: int(value or 0) for key, value in zip(keys, row, strict=True)}
    counts["runs_in_marts"], counts["runs_analyzed"] = int(runs[0]), int(runs[1])
    return counts


def add_new_runs(raw_dir: Path, runs: int, layout: str, settings: LogSettings) -> dict:
    """Write 1% more runs after the first `runs`, in new files (new per-run files, or one new shard)."""
    added = max(1, round(runs * REFRESH_SHARE))
    gen.write_scale(
        raw_dir, settings.seed, runs, added, layout, settings.shard_runs, settings.fault_rate, settings.shape
    )
    how = "new per-run files" if layout == "per-run" else "one new shard file"
    return {"runs_added": added, "how": how}


def add_new_sweep(raw_dir: Path, first: int, runs: int, layout: str, settings: LogSettings) -> dict:
    """Write 1% more runs, run indices from `first` on, all in one new collection (a new sweep
    beside the history, as a researcher adds one): new per-run files in the sweep's own folder, or
    one new shard file."""
    added = max(1, round(runs * REFRESH_SHARE))
    gen.write_scale(
        raw_dir, settings.seed, first, added, layout, settings.shard_runs, settings.fault_rate, settings.shape,
        new_sweep=True,
    )  # fmt: skip
    how = "new per-run files" if layout == "per-run" else "one new shard file"
    return {"runs_added": added, "collection": gen.SCALE_NEW_SWEEP[0], "how": f"{how}, one new collection"}


def append_events(raw_dir: Path, layout: str, runs: int, settings: LogSettings) -> dict:
    """Append a checkpoint and a later run_end to 1% of the runs. Per-run layout: to those runs' own
    files. Sharded layout: the runs are taken from the first shard (plain text), and the lines are
    appended to that shard, so the whole shard is read again."""
    count = max(1, round(runs * REFRESH_SHARE))
    if layout == "per-run":
        step = max(1, runs // count)
        indices = list(range(0, runs, step))[:count]
    else:
        indices = list(range(min(count, settings.shard_runs, runs)))
    touched: dict[Path, list[bytes]] = {}
    for index in indices:
        run = gen.scale_run(settings.seed, index, settings.fault_rate, settings.shape)
        head = f'{{"run_id": "{run.run_id}", "event": "'
        checkpoint_at, end_at = run.end_ms + 60_000, run.end_ms + 120_000
        lines = [
            f'{head}checkpoint", "ts": {gen.scale_ts(checkpoint_at, run.style)}, "step": 1600}}'.encode(),
            f'{head}run_end", "ts": {gen.scale_ts(end_at, run.style)}, "status": "completed"}}'.encode(),
        ]
        if layout == "per-run":
            path = raw_dir / run.per_run_path
        else:
            path = raw_dir / gen.SHARD_DIR / "shard-00000000.jsonl"
        touched.setdefault(path, []).extend(lines)
    for path, lines in touched.items():
        if path.name.endswith(".gz"):  # a gzip file is rewritten whole with the lines added
            data = gzip.decompress(path.read_bytes()) + b"\n".join(lines) + b"\n"
            path.write_bytes(gzip.compress(data, compresslevel=6, mtime=0))
        else:
            with path.open("ab") as handle:
                handle.write(b"\n".join(lines) + b"\n")
    how = (
        "2 events appended to each run's own file"
        if layout == "per-run"
        else f"2 events per run appended to {gen.SHARD_DIR}/shard-00000000.jsonl (the whole shard is reloaded)"
    )
    return {"runs_touched": len(indices), "files_touched": len(touched), "lines_appended": 2 * len(indices), "how": how}
