"""The layouts users' folders have, beside the benchmark's sharded sizes (`--with-layouts`): runs
written one file per run (the writer's and the trackers' layout) and runs in files of 100 runs.
Each is a size of its own (one_size.py) that measures only what its targets need: the full
`runlens build` into a fresh database, and the floors and the pandas script over the same files
(each checked against the marts); no refresh, nothing-changed build or pages."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from scripts.benchmark import one_size
from scripts.benchmark.datasets import LogSettings
from scripts.benchmark.fixed_cost import Installation
from scripts.benchmark.measure import Meter

# the steps of a size a layout leaves out
LEFT_OUT = frozenset({"noop", "render", "refresh"})


@dataclass(frozen=True)
class Layout:
    name: str  # the step's folder and its key in the report
    title: str  # as the tables say it
    generator_layout: str  # scripts/generate_sample.py --layout
    shard_runs: int | None  # runs a file, for a sharded layout
    runs: int  # the runs the issue names it for


LAYOUTS = (
    Layout("one_file_per_run", "one file per run", "per-run", None, 100_000),
    Layout("files_of_100", "files of 100 runs", "sharded", 100, 200_000),
)


def measure(
    layouts: dict[str, int],
    meter: Meter,
    work: Path,
    install: Installation,
    settings: LogSettings,
    skip: set[str],
    fixed_cost_seconds: float | None,
    keep: bool,
) -> list[dict]:
    """Each layout of LAYOUTS at the runs `layouts` gives it (by name); their figures."""
    entries = []
    for layout in LAYOUTS:
        runs = layouts[layout.name]
        print(f"[layout] {runs:,} runs, {layout.title}", flush=True)
        entry = one_size.measure(
            runs,
            meter,
            work,
            install,
            replace(settings, shard_runs=layout.shard_runs or settings.shard_runs),
            set(skip) | LEFT_OUT,
            fixed_cost_seconds,
            keep,
            layout=layout.generator_layout,
            name=layout.name,
        )
        entry["title"] = layout.title
        entries.append(entry)
    return entries
