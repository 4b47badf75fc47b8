"""DCGM exporter text dumps (what `curl <node>:9400/metrics` gives, saved to a file) -> utilization
samples, one per GPU and scrape.

The dump is Prometheus' text exposition: `# HELP` / `# TYPE` comments, then one line per series,
`DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-...",Hostname="node1",...} 42 [timestamp in ms]`. The fields
the contract reads are mapped (METRICS), every other series ignored. A scrape's time is its lines'
own timestamp when they carry one (several timestamps: several scrapes in one file), else the
file's modification time, flagged as approximate; a series met twice in one file without a
timestamp of its own is rejected (no common convention marks where one untimed scrape ends).
DCGM_FI_PROF_GR_ENGINE_ACTIVE (a ratio, from the profiling counters) wins over
DCGM_FI_DEV_GPU_UTIL (the driver's coarser figure) for the same GPU and time. MIG instances
(`GPU_I_ID`) are left out. The rules: docs/importers.md, "Cluster GPU logs".

The samples belong to no run yet: the runner gives them one (sample_attribution.py).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from .common import Event, Options, Outcome, Reject, SampleLog, display_path, us_from_millis, us_from_seconds
from .importer import Claimed, Claims, Importer, Source, Walk

FORMAT = "dcgm"
# series -> (contract measurement, factor to its default unit)
METRICS = {
    "DCGM_FI_DEV_GPU_UTIL": ("gpu_utilization", 1.0),
    "DCGM_FI_PROF_GR_ENGINE_ACTIVE": ("gpu_utilization", 100.0),  # ratio 0..1; wins over GPU_UTIL
    "DCGM_FI_DEV_MEM_COPY_UTIL": ("gpu_memory_utilization", 1.0),
    "DCGM_FI_DEV_FB_USED": ("gpu_memory_used", 1.0),  # MiB
    "DCGM_FI_DEV_POWER_USAGE": ("gpu_power", 1.0),  # W
}
WINS = "DCGM_FI_PROF_GR_ENGINE_ACTIVE"
SUFFIXES = (".prom", ".txt", ".log", ".out", ".metrics")
LINE = re.compile(
    r"^(?P<name>[A-Za-z_:][A-Za-z0-9_:]*)(?:\{(?P<labels>.*)\})?[ \t]+(?P<value>\S+)(?:[ \t]+(?P<ts>\S+))?[ \t]*$"
)
LABEL = re.compile(r'\s*(?P<key>[A-Za-z_][A-Za-z0-9_]*)\s*=\s*"(?P<value>(?:[^"\\]|\\.)*)"\s*(?:,|$)')
MTIME_NOTE = "the scrape's time is the dump file's modification time: its lines carry no timestamp"


def looks_like_dump(path: Path) -> bool:
    """For --format auto: a file whose first lines are DCGM exporter series or their comments."""
    if path.suffix not in SUFFIXES:
        return False
    try:
        with path.open("r", encoding="utf-8", errors="replace") as stream:
            head = stream.read(16 * 1024)
    except OSError:
        return False
    for line in head.splitlines()[:20]:
        if line.startswith("DCGM_FI_") or line.startswith(("# HELP DCGM_FI_", "# TYPE DCGM_FI_")):
            return True
    return False


def _labels(text: str) -> dict[str, str]:
    labels, position = {}, 0
    while position < len(text.rstrip()):
        match = LABEL.match(text, position)
        if not match:
            raise ValueError(f"labels {text[:80]!r} are no Prometheus labels")
        labels[match.group("key")] = re.sub(
            r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), match["value"]
        )
        position = match.end()
    return labels


def read_dump(path: Path, options: Options) -> Outcome:
    """The samples of one DCGM exporter dump, its bad lines as rejects."""
    outcome = Outcome()
    shown = display_path(path)
    try:
        text = path.read_text(encoding="utf-8")
        mtime_us = us_from_seconds(path.stat().st_mtime)
    except (OSError, UnicodeDecodeError) as error:
        outcome.rejects.append(Reject(FORMAT, shown, "unreadable_file", str(error)))
        return outcome
    # (ts, host, gpu) -> [series -> (value, line)], and whether the time is the file's
    ticks: dict[tuple[int, str | None, int], dict[str, tuple[float, int]]] = {}
    untimed: set[tuple[int, str | None, int]] = set()
    mig_lines = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        match = LINE.match(line)
        name = match.group("name") if match else None
        if match and name not in METRICS:
            continue

        def bad(reason: str, number: int = number, line: str = line) -> None:
            outcome.rejects.append(Reject(FORMAT, shown, "bad_metric_line", f"line {number}: {reason}: {line[:160]!r}"))

        try:
            if not match:
                raise ValueError("no `name{labels} value [timestamp]`")
            labels = _labels(match.group("labels") or "")
            value = float(match.group("value"))
            if not math.isfinite(value):
                raise ValueError(f"value {match.group('value')} is no measurement")
            if "GPU_I_ID" in labels:
                mig_lines += 1
                continue
            if not labels.get("gpu", "").isdigit():
                raise ValueError(f"gpu label {labels.get('gpu')!r} is no GPU index")
            stamp = match.group("ts")
            ts_us = us_from_millis(int(stamp)) if stamp is not None else mtime_us
        except ValueError as error:
            bad(str(error))
            continue
        key = (ts_us, labels.get("Hostname") or None, int(labels["gpu"]))
        series = ticks.setdefault(key, {})
        if name in series:
            bad(f"{name} of gpu {key[2]} given twice for one time (line {series[name][1]} too)")
            continue
        series[name] = (value, number)
        if stamp is None:
            untimed.add(key)
    hosts = {host for _, host, _ in ticks}
    log = SampleLog(FORMAT, path, next(iter(hosts)) if len(hosts) == 1 else None)
    for key in sorted(ticks, key=lambda k: (k[0], k[1] or "", k[2])):
        ts_us, host, gpu = key
        measurements = {}
        for name, (value, _) in sorted(ticks[key].items(), key=lambda item: item[0] == WINS):
            measurement, factor = METRICS[name]
            measurements[measurement] = value * factor  # GR_ENGINE_ACTIVE sorts last: it wins
        fields = {"gpu": gpu, "measurements": measurements, "source_line": min(n for _, n in ticks[key].values())}
        if host:
            fields["host"] = host
        log.samples.append(Event("sample", ts_us, shown, MTIME_NOTE if key in untimed else None, fields))
    if mig_lines:
        outcome.notes.append(
            f"{shown}: {mig_lines} line(s) of MIG instances (GPU_I_ID) left out: runlens reads whole GPUs"
        )
    if log.samples:
        outcome.sample_logs.append(log)
    return outcome


# ---------------------------------------------------------------------------------------------
# the importer


def claim(walk: Walk, claimed: Claimed, options: Options, explicit: bool) -> Claims:
    """One source per DCGM dump, wherever it lies (in a run folder an earlier importer took, it
    belongs to that run: sample_attribution.py)."""
    return Claims(
        sources=[
            Source(IMPORTER, path, walk.base, [path])
            for path in walk.files
            if explicit and walk.path.is_file() or looks_like_dump(path)
        ]
    )


def read(source: Source, options: Options) -> Outcome:
    return read_dump(source.path, options)


IMPORTER = Importer(FORMAT, "dcgm", "DCGM exporter", None, claim, read)
