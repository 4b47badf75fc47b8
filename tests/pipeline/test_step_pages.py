"""The "Inside a step" section of a page (issue 46, item 4), over a raw folder built by the real dbt
project and rendered by the real report:

- `workers-0/` and `workers-2/`: the real torch.profiler CPU trainings of
  tests/support/trace_trainings.py (a sleep of ITEM_SECONDS per item in the dataset: the data path),
  with 0 and 2 DataLoader workers, each with its runlens log beside its traces: collection
  `dataloader-workers`, tasks `workers-0` and `workers-2`. Without workers every step makes its
  batch: __next__ takes at least LOAD_SECONDS (0.04 s) of a step of at least LOAD_SECONDS +
  COMPUTE_SECONDS (0.10 s), above the 20% input-bound share (`input_bound_share`); with two workers
  the batch waits ready (below 10%, test_traces.py). CPU only: no GPU breakdown, never 0% idle.
- `gpu/current/gpu.pt.trace.json`: the GPU plan of tests/support/kineto_traces.py on its own (a run
  by itself: collection `gpu/current`, task `gpu`). Its two steps, as worked out by hand in
  tests/pipeline/test_traces.py's docstring (microseconds): wall 1000 + 1000, data loading 200 +
  100 = 300 of 2000: 15.0%, not input-bound. GPU span 650 + 530 = 1180: computation 300 + 240 =
  540 (45.8%), idle 60 + 290 = 350 (29.7%), communication 270 + 0 (22.9%), memory 20 + 0 (1.7%),
  other 0 (not listed). The streams' idle time 640: host wait 80 + 490 = 570 (89.1%), kernel wait
  10 + 10 = 20 (3.1%), other 50 (7.8%).
- `gpu/job/rank-0.pt.trace.json`, `rank-1.pt.trace.json`: the plan on two ranks, rank 1 launching
  the all-reduce 40 us later: one run, collection `gpu`, task `job`; in step 1 rank 1 is the last
  to launch its first collective and rank 0 waits 40 us for it; step 2 holds no collective, so 1
  step is matched: rank 1 held 1 of 1 step.
- `speed/before/model.pt.trace.json` and `speed/after/model.pt.trace.json`: the GPU plan with every
  time a thousand times longer (steps of 1 s), collection `speed/after` naming `speed/before` its
  baseline. The DataLoader's first `__next__` takes 600 ms before and 200 ms after (the second
  100 ms on both): data loading (600 + 100) / 2 = 350 ms per step before (35.0% of 2 s of steps:
  input-bound), (200 + 100) / 2 = 150 ms after (15.0%); the steps' wall time and the GPU's work
  are the same on both sides: computation 540 / 2 = 270 ms per step, communication 135 ms,
  memory 10 ms, idle 175 ms (test_traces.py's figures, times 1000), none of them moved.
- `gpu-logged/run.jsonl` with the GPU plan's trace below it (`gpu-logged/trace/`): a run of one GPU
  whose log holds the trace's start (its first event: baseTimeNanoseconds 1,790,000,000 s plus
  5,000 s less 100 us, 2026-09-21T15:36:40Z): run_start 15:35:00, train_start 15:35:20,
  checkpoint 15:38:20, epoch_end 15:40:00, run_end 15:40:20. Wall 320 s: start-up 20 s, final
  tail 20 s, productive 280 s (no profile: all the rest), goodput 87.5%. Its steps' GPU was idle
  350 of 1180 us (29.7%), no data loading bucket: 280 x 350 / 1180 = 83.05 s of productive GPU
  idle time, GPU-busy goodput (280 - 83.05) / 320 = 61.5%, 83.05 / 3600 = 0.023 idle GPU-hours (three decimals at most).
"""

from __future__ import annotations

import pytest

from runlens.report import units
from runlens.report.render import render_reports
from tests.support import kineto_traces, trace_trainings
from tests.support.pipeline import DATABASE, PROJECT, build

CURRENT = "gpu/current/gpu.pt.trace.json"
JOB = ("gpu/job/rank-0.pt.trace.json", "gpu/job/rank-1.pt.trace.json")


def slowed(trace: dict, factor: int, first_loading_us: int) -> dict:
    """The plan's trace with every time `factor` times further from its first step's start, after
    setting the first DataLoader `__next__` to last first_loading_us (in the plan's microseconds)."""
    origin = kineto_traces.ORIGIN_US
    for event in trace["traceEvents"]:
        if event.get("name") == kineto_traces.LOADER_NAME and event["ts"] == origin + kineto_traces.LOADING[0][0]:
            event["dur"] = first_loading_us
        if "ts" in event:
            event["ts"] = origin + (event["ts"] - origin) * factor
        if "dur" in event:
            event["dur"] *= factor
    return trace


def write_logged_run(folder) -> None:
    """A run of one GPU whose log holds the GPU plan's trace (the module's docstring)."""
    run = '"run_id": "logged-01"'
    lines = [
        f'{{{run}, "event": "run_start", "ts": "2026-09-21T15:35:00Z", "collection": "gpu-logged", "task": "logged",'
        ' "resources": {"gpus": 1}}',
        f'{{{run}, "event": "train_start", "ts": "2026-09-21T15:35:20Z", "step": 0}}',
        f'{{{run}, "event": "checkpoint", "ts": "2026-09-21T15:38:20Z", "step": 100}}',
        f'{{{run}, "event": "epoch_end", "ts": "2026-09-21T15:40:00Z", "epoch": 1, "step": 200}}',
        f'{{{run}, "event": "run_end", "ts": "2026-09-21T15:40:20Z", "status": "completed"}}',
    ]
    folder.mkdir(parents=True)
    (folder / "run.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    kineto_traces.write(folder / "trace" / "gpu.pt.trace.json", kineto_traces.current_trace())


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    raw = tmp_path_factory.mktemp("step-pages") / "raw"
    raw.mkdir()
    (raw / "runlens_collections.csv").write_text(
        "collection,baseline_collection\ndataloader-workers,\nspeed/after,speed/before\n", encoding="utf-8"
    )
    trace_trainings.train(raw / "workers-0", num_workers=0)
    trace_trainings.train(raw / "workers-2", num_workers=2)
    kineto_traces.write(raw / CURRENT, kineto_traces.current_trace())
    for rank, path in enumerate(JOB):
        kineto_traces.write(raw / path, kineto_traces.current_trace(rank, 2, collective_delay=40 if rank else 0))
    kineto_traces.write(raw / "speed/before/model.pt.trace.json", slowed(kineto_traces.current_trace(), 1000, 600))
    kineto_traces.write(raw / "speed/after/model.pt.trace.json", slowed(kineto_traces.current_trace(), 1000, 200))
    write_logged_run(raw / "gpu-logged")
    database = raw.parent / DATABASE
    build(PROJECT, raw, database)
    out = raw.parent / "reports"
    written = render_reports(database, out)
    return {path.parent.name: path.read_text(encoding="utf-8") for path in written if path.name == "profile.md"}, out


def page_of(pages, heading: str) -> str:
    found = [text for text in pages[0].values() if text.startswith(f"# {heading} ")]
    assert len(found) == 1, heading
    return found[0]


def test_a_folder_of_traces_alone_gets_its_page(pages):
    index = (pages[1] / "index.md").read_text(encoding="utf-8")
    for collection in ("gpu/current", "gpu", "dataloader-workers"):
        assert f"[{collection}]" in index
    page = page_of(pages, "gpu/current")
    assert "- Its run is a profiler trace on its own (no log names it): no wall-time figures." in page


def test_without_workers_the_gpu_waited_for_data_and_with_workers_it_did_not(pages):
    page = page_of(pages, "dataloader-workers")
    section = page.split("## Inside a step", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("- `")]
    assert lines[0].startswith("- `workers-0` (")  # the most input-bound first
    # CPU only: the steps waited, not a GPU
    assert ": the steps waited for data " in lines[0] and lines[0].count("input-bound") == 1
    share_0 = float(lines[0].split("waited for data ")[1].split("%")[0])
    assert share_0 > 30.0  # at least 0.04 of a step of about 0.10 s (less the loop's overhead)
    assert lines[1].startswith("- `workers-2` (") and "data loading took " in lines[1]
    # below the input-bound share (20%) even on a busy machine, where a ready batch's hand-over took
    # up to 11% of a step (tests/pipeline/test_traces.py)
    assert float(lines[1].split("data loading took ")[1].split("%")[0]) < 20.0
    for line in lines:  # CPU only: no GPU breakdown, never 0% idle
        assert "no GPU breakdown" in line and "idle" not in line
    rows = [line for line in section.splitlines() if line.startswith("| `workers-")]
    assert [row.split(" | ")[4] for row in rows] == ["yes", "no"]
    assert all(row.split(" | ")[5:] == ["no GPU"] * 5 + ["no GPU |"] for row in rows)
    answer = page.split("## Where the time goes", 1)[1].split("\n## ", 1)[0]
    assert f"the steps waited for data {share_0}% of each step in `workers-0`: input-bound" in answer
    assert "so there is no GPU breakdown" in answer


def test_a_gpu_trace_s_step_is_split_largest_first_as_worked_out_by_hand(pages):
    page = page_of(pages, "gpu/current")
    assert (
        "- `gpu` (2 steps, mean 0.001 s): data loading took 15.0% of each step. The GPU's time: computation 45.8%,"
        " idle 29.7%, communication 22.9%, memory 1.7%; its idle time went to host wait 89.1%, kernel wait 3.1%,"
        " other 7.8%." in page
    )
    assert "| `gpu` | 2 | 0.001 s | 15.0% | no | 29.7% | 45.8% | 22.9% | 1.7% | 89.1% | 3.1% |" in page
    assert "no task waits for data: data loading takes at most 15.0% of a step (`gpu`)" in page
    assert "![Inside a step: the GPU's time by task](inside_a_step.png)" in page


def test_the_rank_that_held_a_multi_rank_job_s_steps_is_named(pages):
    page = page_of(pages, "gpu")
    wait = units.duration(40 / 1e6)
    assert (
        "Rank 1 held 1 of 1 step matched across up to 2 ranks (the last to launch its first collective); the other"
        f" ranks waited {wait} for it per step." in page
    )
    # both ranks' steps: 4 steps, the same split as one rank's
    assert (
        "- `job` (4 steps, mean 0.001 s): data loading took 15.0% of each step. The GPU's time: computation 45.8%"
        in page
    )


def test_the_parts_of_a_step_that_moved_against_the_baseline_come_first(pages):
    page = page_of(pages, "speed/after")
    section = page.split("## Inside a step", 1)[1].split("\n## ", 1)[0]
    assert (
        "Against speed/before, per profiled step (2 steps here, 2 there, every task's; the mean step"
        " 1.00 s against 1.00 s)" in section
    )
    rows = [row.split(" | ") for row in section.splitlines() if row.startswith("| `") and "step" not in row]
    table = [row for row in rows if row[0].strip("| `") in kineto_parts()]
    # data loading moved (350 ms -> 150 ms per step, 35.0% -> 15.0%); the steps did not change,
    # so no part has a share of the step's change; the GPU's parts did not move
    assert table[0] == ["| `data_loading`", "0.150 s", "0.350 s", "-0.200 s", "15.0%", "35.0%", "n/a |"]
    gpu = {row[0].strip("| `"): row[1:4] for row in table[1:]}
    assert gpu == {
        "computation": ["0.270 s", "0.270 s", "0 s"],
        "communication": ["0.135 s", "0.135 s", "0 s"],
        "memory": ["0.010 s", "0.010 s", "0 s"],
        "idle": ["0.175 s", "0.175 s", "0 s"],
    }
    assert "other" not in gpu  # 0 on both sides: not listed
    # the baseline waited for data, this version does not
    before = page_of(pages, "speed/before")
    assert "the GPU waited for data 35.0% of each step in `model`: input-bound" in before
    assert "no task waits for data: data loading takes at most 15.0% of a step (`model`)" in page
    # the baseline is a trace on its own: no wall time compares, its steps do
    assert "so no wall time compares; its profiled steps do (Inside a step)." in page
    assert "Against the baseline (speed/before has no analyzed runs here; its profiled steps compare under" in page


def kineto_parts() -> set[str]:
    return {"data_loading", "computation", "communication", "memory", "other", "idle"}


def test_goodput_lays_the_steps_gpu_idle_share_on_the_productive_time(pages):
    page = page_of(pages, "gpu-logged")
    goodput = page.split("## Goodput", 1)[1].split("\n## ", 1)[0]
    assert (
        "Inside the productive time, the profiled steps of 1 run with GPU traces left the GPUs idle 29.7% of it:"
        " GPU-busy goodput 61.5% of its wall time, against 87.5% productive, 0.023 idle GPU-hours" in goodput
    )
