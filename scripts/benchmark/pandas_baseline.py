"""The baseline a user would write today: json.loads per line, a DataFrame of the needed keys,
vectorised timestamp parsing, groupby; the same per-run figures and collection rollup as the marts.

Run in its own measured process (`scripts/bench.py _pandas RAW_DIR MARTS_DB OUT_JSON`); pandas is
imported inside, as its import is part of what the script costs. Writes {"query_seconds": the
computation alone, "import_seconds", "phases": seconds by phase, "check": agreement with the marts}.
"""

from __future__ import annotations

import gzip
import json
import time
from pathlib import Path

from scripts.benchmark.agreement import compare_with_marts
from scripts.benchmark.datasets import log_files

MARKERS = ("run_start", "checkpoint", "epoch_end", "run_end", "profile")


def pandas_figures(raw_dir: Path):
    """Per-run figures and collection rollup with pandas; returns (runs, rollup, phase seconds)."""
    import pandas as pd

    phases = {}
    started = time.perf_counter()
    records = []
    for path in log_files(raw_dir):
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rb") as handle:
            for raw in handle:
                try:
                    doc = json.loads(raw)
                except ValueError:  # invalid JSON or invalid UTF-8
                    continue
                if isinstance(doc, dict):
                    records.append(doc)
    phases["read_json_lines"] = time.perf_counter() - started

    started = time.perf_counter()
    frame = pd.DataFrame(records, columns=["run_id", "event", "ts", "collection", "status", "wall_seconds", "final"])
    del records
    valid_id = frame["run_id"].map(lambda value: isinstance(value, str) and value != "").astype(bool)
    frame = frame[valid_id & frame["event"].isin(MARKERS)]
    is_number = frame["ts"].map(lambda value: isinstance(value, (int, float)) and not isinstance(value, bool))
    is_number = is_number.astype(bool)
    micros = pd.Series(pd.NA, index=frame.index, dtype="Int64")
    parsed = pd.to_datetime(frame.loc[~is_number, "ts"], utc=True, format="ISO8601", errors="coerce").dropna()
    micros.loc[parsed.index] = parsed.dt.as_unit("us").astype("int64")
    numbers = frame.loc[is_number, "ts"].astype("float64")
    micros.loc[numbers.index] = (numbers * 1e6).round().astype("int64")
    frame = frame.assign(us=micros).dropna(subset=["us"])
    frame["us"] = frame["us"].astype("int64")
    phases["frame_and_timestamps"] = time.perf_counter() - started

    started = time.perf_counter()
    by_event = {kind: frame[frame["event"] == kind] for kind in MARKERS}

    def latest(kind, column):
        return by_event[kind].sort_values("us", kind="stable").groupby("run_id")[column].last(skipna=False)

    runs = pd.DataFrame(index=pd.Index(frame["run_id"].unique(), name="run_id"))
    starts = by_event["run_start"].sort_values("us", kind="stable").groupby("run_id")
    runs["collection"] = starts["collection"].first()
    runs["first_start"] = starts["us"].min()
    runs["last_start"] = starts["us"].max()
    runs["last_end"] = by_event["run_end"].groupby("run_id")["us"].max()
    runs["last_epoch_end"] = by_event["epoch_end"].groupby("run_id")["us"].max()
    runs["end_status"] = latest("run_end", "status").fillna("completed")
    # the latest profile counts, and measures nothing when it is not final (written while the run went)
    profiles = by_event["profile"]
    is_final = profiles["final"].map(lambda value: value is not False).astype(bool)
    by_event["profile"] = profiles.assign(wall_seconds=profiles["wall_seconds"].where(is_final))
    runs["profile_wall"] = pd.to_numeric(latest("profile", "wall_seconds"), errors="coerce")
    has_end = (runs["last_end"] >= runs["last_start"]).fillna(False).astype(bool)
    has_skew = ~has_end & (runs["last_end"] < runs["first_start"]).fillna(False).astype(bool)
    event_wall = (runs["last_end"] - runs["first_start"]) / 1e6
    runs["wall_seconds"] = event_wall.where(has_end, runs["profile_wall"].where(~has_skew))
    runs["tail_seconds"] = ((runs["last_end"] - runs["last_epoch_end"]) / 1e6).where(has_end)
    completed = ((has_end | has_skew) & (runs["end_status"] == "completed")) | (
        ~has_end & ~has_skew & runs["profile_wall"].notna()
    )
    runs["is_analyzed"] = runs["first_start"].notna() & ~has_skew & completed
    rollup = (
        runs[runs["is_analyzed"]]
        .groupby("collection")["wall_seconds"]
        .agg(runs_analyzed="count", mean_wall_seconds="mean", median_wall_seconds="median")
        .reset_index()
    )
    phases["groupby"] = time.perf_counter() - started
    runs = runs.reset_index()[["run_id", "collection", "wall_seconds", "tail_seconds", "is_analyzed"]]
    return runs, rollup, phases


def run(raw_dir: Path, marts_db: Path, out_json: Path) -> None:
    started = time.perf_counter()
    import pandas  # noqa: F401 - the import is part of what the script costs

    import_seconds = time.perf_counter() - started
    started = time.perf_counter()
    runs, rollup, phases = pandas_figures(raw_dir)
    seconds = time.perf_counter() - started
    import duckdb

    connection = duckdb.connect()
    connection.register("pandas_runs_frame", runs)
    connection.register("pandas_collections_frame", rollup)
    connection.execute("create temp table pandas_runs as select * from pandas_runs_frame")
    connection.execute("create temp table pandas_collections as select * from pandas_collections_frame")
    check = compare_with_marts(connection, "pandas_runs", "pandas_collections", marts_db)
    out_json.write_text(
        json.dumps({"query_seconds": seconds, "import_seconds": import_seconds, "phases": phases, "check": check})
    )
