"""The generated profiler traces (issue 46) in tests/generated/traces, which the engine parity test
(tests/engines/test_engine_parity.py) builds on DuckDB, PostgreSQL and Spark: tests/support/
kineto_traces.py's GPU plan, whose figures tests/pipeline/test_traces.py works out by hand, in
each case the steps marts treat apart, and one real CPU trace.

- `gpu/current/gpu.pt.trace.json`, `gpu/legacy/trace.json.gz`: the plan in the current schema and
  in the 2021 one (gzip'd, a trace by its traceEvents key); each a run of its own.
- `gpu/fractional/gpu.pt.trace.json`: the plan 0.25 us later, every time with a fraction (each
  start rounded up, each end down, def_trace_times).
- `gpu/nosteps/gpu.pt.trace.json`: the plan without ProfilerStep annotations: one step, the whole
  trace.
- `gpu/job/rank-0.pt.trace.json`, `rank-1.pt.trace.json`: the plan on two ranks, rank 1 launching
  the all-reduce COLLECTIVE_DELAY us later: one job, run `trace:<folder>/gpu/job`.
- `logged/run.jsonl` and `logged/profile/host_1.pt.trace.json`: a run's log (collection
  LOGGED_COLLECTION, task `traced`) from LOGGED_START (01:00) to LOGGED_END (03:00), and below it
  the plan with its baseTimeNanoseconds at LOGGED_START, so the trace starts ORIGIN_US (5000 s)
  later, at 02:23:20, inside the run: the trace belongs to that run.
- `broken/cut.pt.trace.json`: the plan cut off in the middle of its events.
- `cpu/profile/host_1.<ns>.pt.trace.json.gz`: a real trace of tests/support/trace_trainings.py's
  training without workers (CPU only, three profiled steps), recorded once (`python
  tests/support/traces_fixture.py --record`) and kept as it was written, gzip'd; a run of its own.

`python -m tests.support.traces_fixture` writes the folder again, all but the recorded trace.
"""

from __future__ import annotations

import gzip
import json
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from runlens.raw_logs.folder_metadata import COLLECTIONS_FILE
from tests.support import kineto_traces

FOLDER = Path(__file__).parents[1] / "generated" / "traces"
COLLECTIVE_DELAY = 40
LOGGED_COLLECTION = "traces-logged"
LOGGED_START = datetime(2025, 1, 1, 1, 0, tzinfo=UTC)  # before the engine tests' as-of (2025-03-10)
LOGGED_END = datetime(2025, 1, 1, 3, 0, tzinfo=UTC)
RECORDED = "cpu/profile"  # the folder of the recorded trace, which write() leaves as it is


def logged_lines() -> list[str]:
    at = lambda moment: moment.strftime("%Y-%m-%dT%H:%M:%SZ")  # noqa: E731
    return [
        json.dumps({"run_id": "traced-run", "event": "run_start", "ts": at(LOGGED_START),
                    "collection": LOGGED_COLLECTION, "task": "traced"}),
        json.dumps({"run_id": "traced-run", "event": "run_end", "ts": at(LOGGED_END)}),
    ]  # fmt: skip


def write(folder: Path = FOLDER) -> Path:
    """Every file of the folder but the recorded trace; returns folder."""
    kineto_traces.write(folder / "gpu" / "current" / "gpu.pt.trace.json", kineto_traces.current_trace())
    kineto_traces.write(folder / "gpu" / "legacy" / "trace.json.gz", kineto_traces.legacy_trace())
    fractional = kineto_traces.current_trace(origin=kineto_traces.ORIGIN_US + 0.25)
    kineto_traces.write(folder / "gpu" / "fractional" / "gpu.pt.trace.json", fractional)
    kineto_traces.write(folder / "gpu" / "nosteps" / "gpu.pt.trace.json", kineto_traces.current_trace(with_steps=False))
    for rank in (0, 1):
        trace = kineto_traces.current_trace(rank, 2, collective_delay=COLLECTIVE_DELAY if rank else 0)
        kineto_traces.write(folder / "gpu" / "job" / f"rank-{rank}.pt.trace.json", trace)
    logged = kineto_traces.current_trace()
    logged["baseTimeNanoseconds"] = int(LOGGED_START.timestamp()) * 1_000_000_000
    kineto_traces.write(folder / "logged" / "profile" / "host_1.pt.trace.json", logged)
    (folder / "logged" / "run.jsonl").write_text("\n".join(logged_lines()) + "\n", encoding="utf-8")
    text = (folder / "gpu" / "current" / "gpu.pt.trace.json").read_text(encoding="utf-8")
    (folder / "broken").mkdir(exist_ok=True)
    (folder / "broken" / "cut.pt.trace.json").write_text(text[: len(text) // 2], encoding="utf-8")
    (folder / COLLECTIONS_FILE).write_text(
        f"collection,title,baseline_collection,design_url,results_url\n{LOGGED_COLLECTION},A traced run,,,\n",
        encoding="utf-8",
    )
    return folder


def record(folder: Path = FOLDER) -> Path:
    """Record the real CPU trace again (replacing the one kept): trace_trainings.train without
    workers; its trace gzip'd under the name tensorboard_trace_handler gave it, with the host and
    process (`<host>_<pid>`) written as `host_1`."""
    from tests.support import trace_trainings

    with tempfile.TemporaryDirectory() as scratch:
        trained = trace_trainings.train(Path(scratch) / "training", num_workers=0)
        [trace] = sorted((trained / "profile").glob("*.pt.trace.json"))
        target = folder / RECORDED
        for old in target.glob("*"):
            old.unlink()
        target.mkdir(parents=True, exist_ok=True)
        name = "host_1." + trace.name.split(".", 1)[1] + ".gz"
        with open(target / name, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as handle:
            handle.write(trace.read_bytes())
        return target / name


if __name__ == "__main__":
    if "--record" in sys.argv[1:]:
        record()
    write()
