"""The "Inside a step" section of a page (issue 46, item 4), over a raw folder built by the real dbt
project and rendered by the real report:

- `workers-0/` and `workers-2/`: the real torch.profiler CPU trainings of
  tests/helpers/trace_trainings.py (a sleep of ITEM_SECONDS per item in the dataset: the data path),
  with 0 and 2 DataLoader workers, each with its runlens log beside its traces: collection
  `dataloader-workers`, tasks `workers-0` and `workers-2`. Without workers every step makes its
  batch: __next__ takes at least LOAD_SECONDS (0.04 s) of a step of at least LOAD_SECONDS +
  COMPUTE_SECONDS (0.10 s), above the 20% input-bound share (`input_bound_share`); with two workers
  the batch waits ready (below 10%, test_traces.py). CPU only: no GPU breakdown, never 0% idle.
- `gpu/current/gpu.pt.trace.json`: the GPU plan of tests/helpers/kineto_traces.py on its own (a run
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
"""

from __future__ import annotations

import kineto_traces
import pytest
import trace_trainings
from conftest import PROJECT
from pipeline import DATABASE, build

from runlens.report import units
from runlens.report.render import render_reports

CURRENT = "gpu/current/gpu.pt.trace.json"
JOB = ("gpu/job/rank-0.pt.trace.json", "gpu/job/rank-1.pt.trace.json")


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    raw = tmp_path_factory.mktemp("step-pages") / "raw"
    raw.mkdir()
    (raw / "runlens_collections.csv").write_text("collection\ndataloader-workers\n", encoding="utf-8")
    trace_trainings.train(raw / "workers-0", num_workers=0)
    trace_trainings.train(raw / "workers-2", num_workers=2)
    kineto_traces.write(raw / CURRENT, kineto_traces.current_trace())
    for rank, path in enumerate(JOB):
        kineto_traces.write(raw / path, kineto_traces.current_trace(rank, 2, collective_delay=40 if rank else 0))
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
