"""Profiler traces (Kineto's Chrome trace JSON: `*.pt.trace.json[.gz]`, or another `*.json[.gz]` whose
top-level object names `traceEvents`) -> copied into the imported logs' folder, where the build's
own trace reader reads them, beside the run the import gives them (trace_placement.py).

A trace is not converted: the build reads traces as they are (runlens/raw_logs/trace_reading.py,
trace_decoding.py) and gives each its run by its folder and its start (input_contract.md,
"Profiler traces"). Importing only carries each trace found below the PATHs to the place in RAW_DIR
where that rule gives it the run whose folder held it: a TensorBoard log dir's `plugins/profile/`,
a Lightning version folder, a W&B or MLflow run's folder. Which files are traces is the build's
test (runlens/raw_logs/trace_listing.py), so a trace the import carries is one the build reads.
"""

from __future__ import annotations

from .common import Options, Outcome
from .importer import Claimed, Claims, Importer, Source, Walk

FORMAT = "profiler_trace"


def is_trace(path) -> bool:
    from runlens.raw_logs.trace_listing import is_trace_file

    return path.is_file() and is_trace_file(str(path))


def claim(walk: Walk, claimed: Claimed, options: Options, explicit: bool) -> Claims:
    """One source per trace file below the PATH."""
    return Claims(sources=[Source(IMPORTER, path, walk.base, [path]) for path in walk.files if is_trace(path)])


def read(source: Source, options: Options) -> Outcome:
    """The trace, for the runner to place (trace_placement.py) once every run is read."""
    return Outcome(traces=[(source.path, source.root)])


IMPORTER = Importer(FORMAT, "profiler_trace", "profiler traces", None, claim, read)
