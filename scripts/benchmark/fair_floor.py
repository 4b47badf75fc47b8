"""The fair floor: a baseline that does the work the marts do, against which the full build's own
work is judged (issue 15's target: (full build - fixed cost) / fair floor <= 1.5).

Written separately; until then run() raises NotImplementedError and the benchmark records the fair
floor as "not run". Run in its own measured process
(`scripts/bench.py _fair_floor RAW_DIR MARTS_DB OUT_JSON`), like the simple floor.
"""

from __future__ import annotations

from pathlib import Path


def run(raw_dir: Path, marts_db: Path, out_json: Path) -> None:
    """Compute the per-run figures and collection rollup from the logs under raw_dir and write to
    out_json a JSON object shaped like the simple floor's: {"query_seconds": ..., "check": {"ok": ...,
    details}}, the check comparing them with the marts in marts_db (benchmark.agreement)."""
    raise NotImplementedError("the fair floor is written separately (scripts/benchmark/fair_floor.py)")
