"""The ratios of each size, and the targets (issue 29's, issue 45's utilization, the layouts of
users' folders) as rows of figure, threshold and verdict (met, missed, not run, or failed when the
step that gives the figure failed). A missed target is a finding, not an error: only failed steps
and disagreeing checks fail the bench."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from scripts.benchmark.measure import seconds_of

# issue 29's targets; each size target is judged at the sizes (runs) the issue names it for
FIXED_COST_MAX_SECONDS = 3.0  # `runlens build` over 3 runs in a fresh process
PLAIN_DBT_MAX_SECONDS = 6.0  # a plain `dbt build` over 3 runs in a fresh process
WATCH_REFRESH_MAX_SECONDS = {3: 1.5, 200_000: 3.0}  # a refresh inside `runlens watch` after one new file
FAIR_FLOOR_MAX_RATIO = {1_000_000: 2.0}  # (full build - fixed cost) / fair floor
PANDAS_MIN_RATIO = {1_000_000: 1.5}  # pandas process / full build
NOOP_EXTRA_SECONDS = 0.5  # a build with nothing changed within the fixed cost + 0.5 s ...
NOOP_MAX_RATIO = {200_000: 1.0}  # ... at 200k runs
# a refresh after 1% new runs added to one collection (a new sweep beside the history) within the
# fixed cost + 10% of the full build; the refresh after 1% spread over every task is information
REFRESH_SHARE_OF_BUILD = 0.10
REFRESH_MAX_RATIO = {100_000: 1.0, 200_000: 1.0, 1_000_000: 1.0}
PEAK_MB_MAX = {1_000_000: 4_000.0}  # 4 GB
MAKE_SAMPLE_MAX_SECONDS = 8.0
TEST_SUITE_MAX_SECONDS = 480.0  # 8 minutes
# Spark on this machine, from the engines step (--engines spark with --engine-runs 100000, or
# --spark-runs 10000,100000): the 100k build, and reading "linear" from 10k to 100k runs, which
# this benchmark takes to mean: the Spark reader's seconds per line read at 100k runs at most 1.5x
# its seconds per line at 10k runs (a reading that grows no faster than the lines, give or take
# half); and the marts the same as DuckDB's at 100k runs (the parity checker finds no difference)
SPARK_RUNS = 100_000
SPARK_SMALL_RUNS = 10_000
SPARK_BUILD_MAX_SECONDS = 900.0  # 15 minutes
SPARK_READING_MAX_RATIO = 1.5
TRACES_MAX_MULTIPLE = 2.0  # what the traces add to the build, at most this multiple of their floor
# issue 45's utilization target, at UTILIZATION_RUNS runs (--with-utilization): what the samples add
# to the full build (with samples - without) at most UTILIZATION_MAX_RATIO x the floor that reads
# them (benchmark/utilization_floor.py); a refresh after one run's samples grew no longer than the
# same refresh without samples plus that run's share (the samples' added build time / the runs)
UTILIZATION_RUNS = 1_000
UTILIZATION_MAX_RATIO = 2.0
# the layouts of users' folders (--with-layouts, benchmark/layouts.py), each judged at the runs the
# layout names: (full build - fixed cost) at most this multiple of the fair floor over the same
# files, and the full build faster than the pandas script (pandas process / build above 1)
LAYOUT_FAIR_FLOOR_MAX_RATIO = 2.0
LAYOUT_PANDAS_MIN_RATIO = 1.0


def ratios(entry: dict, fixed_cost_seconds: float | None) -> dict:
    """One size's ratios; those with the fixed cost in them need it measured."""
    build = seconds_of(entry.get("build"))
    noop = seconds_of(entry.get("build_noop"))
    clock = seconds_of(entry.get("build_clock"))
    floor = seconds_of(entry.get("floor"))
    fair_floor = seconds_of(entry.get("fair_floor"))
    pandas_total = seconds_of(entry.get("pandas"), "process_seconds")
    refresh_new = seconds_of(entry.get("refresh_new_runs"))
    refresh_sweep = seconds_of(entry.get("refresh_new_sweep"))
    out = {}
    if build is not None and fixed_cost_seconds is not None:
        own_work = build - fixed_cost_seconds
        out["build_minus_fixed_seconds"] = round(own_work, 3)
        if floor:
            out["build_minus_fixed_over_floor"] = round(own_work / floor, 2)
        if fair_floor:
            out["build_minus_fixed_over_fair_floor"] = round(own_work / fair_floor, 2)
        if noop is not None:
            budget = fixed_cost_seconds + NOOP_EXTRA_SECONDS
            out["noop_budget_seconds"] = round(budget, 3)
            out["noop_over_budget"] = round(noop / budget, 2)
        if clock is not None:
            budget = fixed_cost_seconds + NOOP_EXTRA_SECONDS
            out["clock_budget_seconds"] = round(budget, 3)
            out["clock_over_budget"] = round(clock / budget, 2)
        budget = fixed_cost_seconds + REFRESH_SHARE_OF_BUILD * build
        if refresh_new is not None or refresh_sweep is not None:
            out["refresh_new_budget_seconds"] = round(budget, 3)
        if refresh_new is not None:
            out["refresh_new_over_budget"] = round(refresh_new / budget, 2)
        if refresh_sweep is not None:
            out["refresh_sweep_over_budget"] = round(refresh_sweep / budget, 2)
    if build and pandas_total:
        out["pandas_over_build"] = round(pandas_total / build, 2)
    return out


@dataclass(frozen=True)
class SizeTarget:
    """A target judged at each size of its limits: figure <= limit (at_most) or >= limit."""

    name: str
    figure: Callable[[dict], float | None]
    limits: dict[int, float]
    at_most: bool
    unit: str
    steps: tuple[str, ...]  # the steps the figure comes from: one failed, the verdict is "failed"

    def threshold(self, size: int) -> str:
        return f"{'<=' if self.at_most else '>='} {self.limits[size]:,g}{self.unit}"

    def meets(self, size: int, value: float) -> bool:
        return value <= self.limits[size] if self.at_most else value >= self.limits[size]


def _ratio(key: str) -> Callable[[dict], float | None]:
    return lambda entry: entry.get("ratios", {}).get(key)


SIZE_TARGETS = (
    SizeTarget(
        "(full build - fixed cost) / fair floor",
        _ratio("build_minus_fixed_over_fair_floor"),
        FAIR_FLOOR_MAX_RATIO, True, "x", ("build", "fair_floor"),
    ),
    SizeTarget(
        "end to end against the pandas script (pandas process / full build)",
        _ratio("pandas_over_build"),
        PANDAS_MIN_RATIO, False, "x", ("build", "pandas"),
    ),
    SizeTarget(
        "`runlens build` with nothing changed / (fixed cost + 0.5 s)",
        _ratio("noop_over_budget"),
        NOOP_MAX_RATIO, True, "x", ("build", "build_noop"),
    ),
    SizeTarget(
        "`runlens build` with nothing changed and the clock moving (as-of not pinned) / (fixed cost + 0.5 s)",
        _ratio("clock_over_budget"),
        NOOP_MAX_RATIO, True, "x", ("build", "build_clock"),
    ),
    SizeTarget(
        "refresh after 1% new runs in one new collection / (fixed cost + 10% of the full build)",
        _ratio("refresh_sweep_over_budget"),
        REFRESH_MAX_RATIO, True, "x", ("build", "refresh_new_sweep"),
    ),
    SizeTarget(
        "peak memory of the full build (MB)",
        lambda entry: seconds_of(entry.get("build"), "peak_rss_mb"),
        PEAK_MB_MAX, True, " MB", ("build",),
    ),
)  # fmt: skip


def spark_builds(engines: dict | None) -> dict[int, dict]:
    """The engines step's Spark builds by their runs: the --spark-runs sizes, and the large dataset
    of --engines spark (--engine-runs runs); each build's figures (seconds, returncode, the reader's
    reading_seconds and read_lines when recorded, parity with DuckDB's marts)."""
    engines = engines or {}
    found = {}
    for build in engines.get("builds", []):
        if build.get("engine") == "spark" and build.get("dataset") == "large" and engines.get("large_runs"):
            found[engines["large_runs"]] = build
    for size in engines.get("spark_sizes", []):
        if size.get("spark"):
            found[size["runs"]] = size["spark"]
    return found


def seconds_per_line(build: dict | None) -> float | None:
    """The Spark reader's seconds per line read, None unless the build succeeded and its reading was timed."""
    if not build or build.get("returncode", 1) != 0:
        return None
    seconds, lines = build.get("reading_seconds"), build.get("read_lines")
    return seconds / lines if seconds is not None and lines else None


def spark_rows(engines: dict | None) -> list[dict]:
    builds = spark_builds(engines)
    large, small = builds.get(SPARK_RUNS), builds.get(SPARK_SMALL_RUNS)
    large_ok = bool(large) and large.get("returncode", 1) == 0
    seconds = large.get("seconds") if large_ok else None
    rows = [
        _row(
            "Spark on this machine: the build (its reader and `dbt build`, one process; wall s)",
            SPARK_RUNS, seconds, f"<= {SPARK_BUILD_MAX_SECONDS:g} s",
            seconds is not None and seconds <= SPARK_BUILD_MAX_SECONDS, bool(large) and not large_ok,
        )
    ]  # fmt: skip
    per_line_large, per_line_small = seconds_per_line(large), seconds_per_line(small)
    ratio = round(per_line_large / per_line_small, 2) if per_line_large and per_line_small else None
    rows.append(
        _row(
            f"Spark reading linear from {SPARK_SMALL_RUNS:,} runs: the reader's seconds per line at "
            f"{SPARK_RUNS:,} / at {SPARK_SMALL_RUNS:,} (linear: at most {SPARK_READING_MAX_RATIO:g}x)",
            SPARK_RUNS, ratio, f"<= {SPARK_READING_MAX_RATIO:g}x",
            ratio is not None and ratio <= SPARK_READING_MAX_RATIO,
            any(build and build.get("returncode", 1) != 0 for build in (large, small)),
        )
    )  # fmt: skip
    parity = (large or {}).get("parity") if large_ok else None
    differences = (parity or {}).get("differences")
    rows.append(
        _row(
            "Spark's marts the same as DuckDB's (differences found by the parity checker)",
            SPARK_RUNS, differences, "= 0", differences == 0,
            (bool(large) and not large_ok) or bool(parity and parity.get("error")),
        )
    )  # fmt: skip
    return rows


def utilization_rows(entry: dict | None) -> list[dict]:
    """Issue 45's two rows, judged at UTILIZATION_RUNS runs only (another size gives "not run")."""
    entry = entry if entry and entry.get("runs") == UTILIZATION_RUNS else None
    figures = (entry or {}).get("figures") or {}

    def failed(*steps: str) -> bool:
        return entry is not None and any(_failed(entry.get(step)) for step in steps)

    added, refresh = figures.get("added_over_floor"), figures.get("refresh_over_budget")
    return [
        _row(
            "samples' added build time / utilization floor ((build with samples - without) / the floor's query)",
            UTILIZATION_RUNS, added, f"<= {UTILIZATION_MAX_RATIO:g}x",
            added is not None and added <= UTILIZATION_MAX_RATIO,
            failed("build_with_samples", "build_without_samples", "floor"),
        ),
        _row(
            "refresh after one run's samples grew / (the same refresh without samples + one run's share of the "
            "samples' added build time)",
            UTILIZATION_RUNS, refresh, "<= 1x", refresh is not None and refresh <= 1.0,
            failed("build_with_samples", "build_without_samples", "refresh_with_samples", "refresh_without_samples"),
        ),
    ]  # fmt: skip


def layout_rows(entries: list[dict] | None) -> list[dict]:
    """Two rows a layout of benchmark/layouts.py: judged at the runs it names (another count, as in
    the smoke test, gives "not run")."""
    from scripts.benchmark.layouts import LAYOUTS

    by_name = {entry.get("name"): entry for entry in entries or []}
    rows = []
    for layout in LAYOUTS:
        entry = by_name.get(layout.name)
        entry = entry if entry and entry.get("runs") == layout.runs else None
        ratio = (entry or {}).get("ratios", {})
        size = f"{layout.runs:,} runs, {layout.title}"

        def failed(*steps: str, entry=entry) -> bool:
            return entry is not None and any(_failed(entry.get(step)) for step in steps)

        over_floor = ratio.get("build_minus_fixed_over_fair_floor")
        rows.append(
            _row(
                "(full build - fixed cost) / fair floor over the same files",
                size, over_floor, f"<= {LAYOUT_FAIR_FLOOR_MAX_RATIO:g}x",
                over_floor is not None and over_floor <= LAYOUT_FAIR_FLOOR_MAX_RATIO, failed("build", "fair_floor"),
            )
        )  # fmt: skip
        pandas = ratio.get("pandas_over_build")
        rows.append(
            _row(
                "faster than the pandas script (pandas process / full build)",
                size, pandas, f"> {LAYOUT_PANDAS_MIN_RATIO:g}x",
                pandas is not None and pandas > LAYOUT_PANDAS_MIN_RATIO, failed("build", "pandas"),
            )
        )  # fmt: skip
    return rows


def _row(target: str, size, figure: float | None, threshold: str, met: bool, failed: bool) -> dict:
    """met: whether the figure meets the threshold (read only when there is a figure)."""
    if failed:
        verdict = "failed"
    elif figure is None:
        verdict = "not run"
    else:
        verdict = "met" if met else "missed"
    return {"target": target, "size": size, "figure": figure, "threshold": threshold, "verdict": verdict}


def _failed(figures: dict | None) -> bool:
    return bool(figures) and figures.get("returncode", 0) != 0


def targets(report: dict) -> list[dict]:
    """The target rows of a (possibly partial) report."""
    by_runs = {entry["runs"]: entry for entry in report.get("sizes", [])}
    fixed = report.get("fixed_cost")
    fixed_seconds = seconds_of(fixed)
    plain = (fixed or {}).get("plain_dbt")
    plain_seconds = seconds_of(plain)
    rows = [
        _row(
            "fixed cost: `runlens build` over 3 runs into a fresh database, fresh process (median wall s)",
            (fixed or {}).get("runs", 3),
            fixed_seconds,
            f"<= {FIXED_COST_MAX_SECONDS:g} s",
            fixed_seconds is not None and fixed_seconds <= FIXED_COST_MAX_SECONDS,
            _failed(fixed),
        ),
        _row(
            "plain `dbt build` over 3 runs, fresh process (median wall s)",
            (plain or {}).get("runs", 3),
            plain_seconds,
            f"<= {PLAIN_DBT_MAX_SECONDS:g} s",
            plain_seconds is not None and plain_seconds <= PLAIN_DBT_MAX_SECONDS,
            _failed(plain),
        ),
    ]
    for runs, limit in sorted(WATCH_REFRESH_MAX_SECONDS.items()):
        watch = next((w for w in report.get("watch_refreshes") or [] if w.get("runs") == runs), None)
        watch_seconds = seconds_of(watch)
        rows.append(
            _row(
                "a refresh inside `runlens watch` after one new file (median wall s)",
                runs,
                watch_seconds,
                f"<= {limit:g} s",
                watch_seconds is not None and watch_seconds <= limit,
                _failed(watch),
            )
        )
    for target in SIZE_TARGETS:
        for size in sorted(target.limits):
            entry = by_runs.get(size)
            figure = target.figure(entry) if entry else None
            failed = entry is not None and any(_failed(entry.get(step)) for step in target.steps)
            met = figure is not None and target.meets(size, figure)
            rows.append(_row(target.name, size, figure, target.threshold(size), met, failed))
    rows += layout_rows(report.get("layouts"))
    rows += spark_rows(report.get("engines"))
    traces = report.get("traces")
    if traces:
        multiple = traces.get("multiple_of_floor")
        failed = any(_failed(traces.get(name)) for name in ("without_traces", "with_traces", "floor"))
        rows.append(
            _row(
                "what profiler traces add to the build (with less without) / the traces' floor (hand-written "
                "DuckDB query over the same traces)",
                f"{traces['runs']} traces of {traces['events_per_trace']:,} events",
                multiple, f"<= {TRACES_MAX_MULTIPLE:g}x", bool(traces.get("target_met")), failed,
            )
        )  # fmt: skip
    rows += utilization_rows(report.get("utilization"))
    sample = report.get("make_sample")
    sample_seconds = seconds_of(sample)
    rows.append(
        _row(
            "`make sample` once installed, empty database to rendered reports (median wall s)",
            "sample",
            sample_seconds,
            f"<= {MAKE_SAMPLE_MAX_SECONDS:g} s",
            sample_seconds is not None and sample_seconds <= MAKE_SAMPLE_MAX_SECONDS,
            _failed(sample),
        )
    )
    tests = report.get("test_suite")
    tests_seconds = (tests or {}).get("seconds")  # shown when pytest ran, even if tests failed
    rows.append(
        _row(
            "pytest of `make test` on a fresh clone (wall s)",
            None,
            tests_seconds,
            f"<= {TEST_SUITE_MAX_SECONDS:g} s",
            tests_seconds is not None and tests_seconds <= TEST_SUITE_MAX_SECONDS,
            _failed(tests),
        )
    )
    return rows
