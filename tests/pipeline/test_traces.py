"""Profiler traces (issue 46): the reader and the steps marts, over one raw folder built by the real
dbt project.

The folder holds:

- `gpu/current/gpu.pt.trace.json` and `gpu/legacy/trace.json.gz`: the GPU plan of
  tests/support/kineto_traces.py in the current schema and in the 2021 one (gzip'd, named as a
  plain `.json`: a trace because its object names traceEvents). Their figures, worked by hand
  from the plan's table (times in microseconds):

  Step 1 (ProfilerStep#1, 0..1000): GPU events 320-520, 530-630 (computation), 600-900
  (communication), 710-760, 950-970 (memory). Span 320..970 = 650. Merged: [320,520] 200,
  [530,900] 370, [950,970] 20: busy 590, idle 60. Computation alone 200 + 100 = 300;
  computation and communication [320,520] + [530,900] = 570, so communication 270; with memory
  590, so memory 20 (the copy at 710-760 runs inside the all-reduce); other 0. Shares of 650:
  idle 60/650, computation 300/650, non-computation 290/650. Idle time by stream: stream 7 gaps
  530 - 520 = 10 (launched at 310, before 520: not host wait; under 30: kernel wait) and 710 -
  630 = 80 (launched at 700 > 630: host wait); stream 20 gap 950 - 900 = 50 (launched at 330:
  not host wait; 50 >= 30: other). Data loading 10..210: 200 of 1000.

  Step 2 (1000..2000): 1150-1250, 1350-1450, 1460-1500, all computation. Its stretch of the GPU's
  timeline runs from step 1's last GPU end, 970, to its own, 1500: span 530, busy 240, idle 290
  (the GPU waits 970..1150 for the host), computation 240. Gaps before its events on stream 7:
  1150 - 760 = 390 (from step 1's copy; launched at 1100 > 760: host wait), 100 (launched at
  1300 > 1250: host wait) and 10 (launched at 1310 < 1450: kernel wait). Data loading 1010..1110:
  100 of 1000. The two steps add up to the 2021 trace's whole figures below (span 650 + 530 =
  1180, idle 60 + 290 = 350; stream 7's gaps 90 + 500 = 590, stream 20's 50).

  Step 3 is the last, cut short by the profiler: not a step of the marts.

  The whole trace, HTA's window: its events before the last ProfilerStep's start. The current
  schema also writes each step on the GPU's timeline (gpu_user_annotation, ProfilerStep#3 at
  2150), which HTA counts among the host's step annotations, so its window ends at 2150 and takes
  the kernel launched at 2100 (2150-2300); the 2021 schema has no such copy, its window ends at
  2000 and leaves that kernel out.
    2021: span 320..1500 = 1180, busy 590 + 240 = 830, idle 350, computation 300 + 240 = 540,
    non-computation 290. Stream 7: gaps 10 (kernel wait), 80 (host wait), 1150 - 760 = 390
    (launched at 1100 > 760: host wait), 100 (host wait), 10 (kernel wait): host wait 570,
    kernel wait 20; stream 20: other 50.
    current: span 320..2300 = 1980, busy 830 + 150 = 980, idle 1000, computation 690,
    non-computation 290. Stream 7 gains the gap 2150 - 1500 = 650 (launched at 2100: host
    wait): host wait 1220, kernel wait 20; stream 20: other 50.

- `gpu/fractional/gpu.pt.trace.json`: the current-schema plan 0.25 us later, every time with a
  fraction, as torch writes them (HTA then rounds each start up and each end down); compared with
  HTA only.
- `gpu/nosteps/gpu.pt.trace.json`: the current-schema plan without its ProfilerStep annotations
  (host and GPU): one step, the whole trace, from the first event's start (the DataLoader's at 10)
  to the last one's end (the kernel's at 2300): 2290 us, its data loading 200 + 100 = 300. With no
  step names HTA cuts nothing: the GPU figures are the current schema's whole-trace figures
  (span 1980, idle 1000, computation 690; host wait 1220, kernel wait 20, other 50).
- `gpu/job/rank-0.pt.trace.json`, `rank-1.pt.trace.json`: the current-schema plan on two ranks
  (distributedInfo ranks 0 and 1, world size 2), rank 1 launching the all-reduce COLLECTIVE_DELAY
  us later (at 360 instead of 320): one job, run `trace:gpu/job`; in step 1 rank 1 is the last to
  launch its first collective and rank 0 waits 40 us for it; step 2 holds no collective.
- `workers-0/` and `workers-2/`: real CPU trainings of tests/support/trace_trainings.py, each
  with its runlens log beside its traces (profile/), so each trace belongs to that log's run.
- `ddp/job/`: a real two-rank gloo training (tests/support/ddp_trace_training.py) whose rank 1
  sleeps SLOW_SECONDS after each forward pass, before the backward pass's all-reduce; no log lies
  above it, so its two traces (ranks 0 and 1, from distributedInfo) are one run of their own.
- `broken/cut.pt.trace.json`: a trace cut off in the middle of its events; `other/data.json`: a
  JSON file that is no trace.
"""

from __future__ import annotations

import gzip
import logging
import os
import shutil
import warnings

import duckdb
import pytest

from runlens.raw_logs.listing import describe
from runlens.raw_logs.trace_listing import list_trace_files
from runlens.raw_logs.trace_reading import TraceHeader, file_row, read_trace
from tests.support import ddp_trace_training, kineto_traces, trace_trainings, traces_fixture
from tests.support.pipeline import DATABASE, PROJECT, build

CURRENT = "gpu/current/gpu.pt.trace.json"
LEGACY = "gpu/legacy/trace.json.gz"
FRACTIONAL = "gpu/fractional/gpu.pt.trace.json"
NO_STEPS = "gpu/nosteps/gpu.pt.trace.json"
JOB = ("gpu/job/rank-0.pt.trace.json", "gpu/job/rank-1.pt.trace.json")
COLLECTIVE_DELAY = 40
BROKEN = "broken/cut.pt.trace.json"
SLOW_SECONDS = 0.05
REQUIRED = os.environ.get("RUNLENS_REQUIRE_FRAMEWORKS") == "1"


def write_folder(raw):
    kineto_traces.write(raw / CURRENT, kineto_traces.current_trace())
    kineto_traces.write(raw / LEGACY, kineto_traces.legacy_trace())
    kineto_traces.write(raw / NO_STEPS, kineto_traces.current_trace(with_steps=False))
    kineto_traces.write(raw / FRACTIONAL, kineto_traces.current_trace(origin=kineto_traces.ORIGIN_US + 0.25))
    for rank, path in enumerate(JOB):
        delay = COLLECTIVE_DELAY if rank == 1 else 0
        kineto_traces.write(raw / path, kineto_traces.current_trace(rank, 2, collective_delay=delay))
    text = (raw / CURRENT).read_text(encoding="utf-8")
    (raw / BROKEN).parent.mkdir(parents=True)
    (raw / BROKEN).write_text(text[: len(text) // 2], encoding="utf-8")
    (raw / "other").mkdir()
    (raw / "other" / "data.json").write_text('{"rows": [1, 2, 3]}', encoding="utf-8")
    (raw / "runlens_collections.csv").write_text("collection\ndataloader-workers\n", encoding="utf-8")
    trace_trainings.train(raw / "workers-0", num_workers=0)
    trace_trainings.train(raw / "workers-2", num_workers=2)
    ddp_trace_training.run(raw / "ddp" / "job", slow_rank=1, extra_seconds=SLOW_SECONDS)


@pytest.fixture(scope="module")
def raw(tmp_path_factory):
    folder = tmp_path_factory.mktemp("traces") / "raw"
    folder.mkdir()
    write_folder(folder)
    return folder


@pytest.fixture(scope="module")
def marts(raw, tmp_path_factory):
    database = tmp_path_factory.mktemp("traces-db") / DATABASE
    build(PROJECT, raw, database)
    connection = duckdb.connect(str(database), read_only=True)
    yield connection
    connection.close()


def rows(marts, sql: str, *parameters) -> list[tuple]:
    return marts.execute(sql, list(parameters)).fetchall()


def test_traces_are_listed_by_name_or_by_their_traceEvents_and_nothing_else_is(raw):
    listed = sorted(trace.file_path for trace in list_trace_files(str(raw)))
    assert [path for path in listed if path.startswith(("broken/", "gpu/"))] == [
        BROKEN,
        CURRENT,
        FRACTIONAL,
        *JOB,
        LEGACY,
        NO_STEPS,
    ]
    # tensorboard_trace_handler's names: <worker>.<time in ns>.pt.trace.json, one per rank or cycle
    others = [path for path in listed if not path.startswith(("broken/", "gpu/"))]
    folders = ("ddp/job/rank0.", "ddp/job/rank1.", "workers-0/profile/", "workers-2/profile/")
    assert all(path.endswith(".pt.trace.json") for path in others)
    assert all(any(path.startswith(folder) for path in others) for folder in folders)
    assert all(path.startswith(folders) for path in others)
    assert "other/data.json" not in listed


def test_a_trace_cut_short_is_listed_with_its_reason_and_belongs_to_no_run(marts):
    [(run_id, is_analyzed, read_error)] = rows(
        marts, "select run_id, is_analyzed, read_error from main.fct_traces where file_path = ?", BROKEN
    )
    assert (run_id, is_analyzed) == (None, False)
    assert read_error.startswith("truncated")


def test_both_schemas_are_read_with_their_rank_devices_and_start(marts):
    got = rows(
        marts,
        "select file_path, schema_kind, rank, rank_source, world_size, devices, gpu_event_count, profiled_steps, "
        "run_id, collection, task, is_own_run from main.fct_traces where file_path in (?, ?) order by file_path",
        CURRENT,
        LEGACY,
    )
    assert got == [
        # 9 GPU events of the plan (the gpu_user_annotation has no stream); 2 steps (the last is cut short)
        (CURRENT, "current", 0, "distributed_info", 1, "1 x NVIDIA H100 80GB HBM3", 9, 2,
         "trace:" + CURRENT, "gpu/current", "gpu", True),
        (LEGACY, "2021", 0, "default", None, None, 9, 2, "trace:" + LEGACY, "gpu/legacy", "trace", True),
    ]  # fmt: skip
    # baseTimeNanoseconds plus the first complete event's ts (the profiler's own span is not one)
    [(started_at,)] = rows(marts, "select started_at from main.fct_traces where file_path = ?", CURRENT)
    expected = kineto_traces.BASE_NS / 1e9 + kineto_traces.ORIGIN_US / 1e6
    assert abs(started_at.timestamp() - expected) < 1e-5


def test_each_step_is_split_as_worked_out_by_hand(marts):
    got = rows(
        marts,
        "select step_label, wall_seconds, data_loading_share, gpu_span_seconds, idle_seconds, compute_seconds, "
        "communication_seconds, memory_seconds, other_gpu_seconds, host_wait_seconds, kernel_wait_seconds, "
        "other_idle_seconds from main.fct_run_steps where file_path = ? order by step_label",
        CURRENT,
    )
    expected = [
        ("ProfilerStep#1", 1000, 200 / 1000, 650, 60, 300, 270, 20, 0, 80, 10, 50),
        ("ProfilerStep#2", 1000, 100 / 1000, 530, 290, 240, 0, 0, 0, 490, 10, 0),
    ]
    assert [row[0] for row in got] == [row[0] for row in expected]
    for row, want in zip(got, expected, strict=True):
        assert row[1] == pytest.approx(want[1] / 1e6)
        assert row[2] == pytest.approx(want[2])
        assert row[3:] == pytest.approx([value / 1e6 for value in want[3:]])
    # the 2021 schema's steps are the same
    legacy = rows(
        marts,
        "select step_label, wall_seconds, data_loading_share, gpu_span_seconds, idle_seconds, compute_seconds, "
        "communication_seconds, memory_seconds, other_gpu_seconds, host_wait_seconds, kernel_wait_seconds, "
        "other_idle_seconds from main.fct_run_steps where file_path = ? order by step_label",
        LEGACY,
    )
    assert [row[0] for row in legacy] == [row[0] for row in got]
    for row, other in zip(legacy, got, strict=True):
        assert row[1:] == pytest.approx(other[1:])


def test_each_trace_is_split_as_hta_would_by_hand(marts):
    got = dict(
        (row[0], row[1:])
        for row in rows(
            marts,
            "select file_path, gpu_span_seconds, idle_seconds, compute_seconds, non_compute_seconds, "
            "communication_seconds, memory_seconds from main.fct_run_trace_gpu_time where file_path in (?, ?)",
            CURRENT,
            LEGACY,
        )
    )
    assert got[LEGACY] == pytest.approx([value / 1e6 for value in (1180, 350, 540, 290, 270, 20)])
    assert got[CURRENT] == pytest.approx([value / 1e6 for value in (1980, 1000, 690, 290, 270, 20)])
    streams = rows(
        marts,
        "select file_path, stream, host_wait_seconds, kernel_wait_seconds, other_idle_seconds "
        "from main.fct_run_trace_stream_idle_time where file_path in (?, ?) order by file_path, stream",
        CURRENT,
        LEGACY,
    )
    assert streams == [
        (CURRENT, 7, pytest.approx(1220 / 1e6), pytest.approx(20 / 1e6), 0),
        (CURRENT, 20, 0, 0, pytest.approx(50 / 1e6)),
        (LEGACY, 7, pytest.approx(570 / 1e6), pytest.approx(20 / 1e6), 0),
        (LEGACY, 20, 0, 0, pytest.approx(50 / 1e6)),
    ]


def trace_analysis():
    """HTA's TraceAnalysis, or skip (fail under RUNLENS_REQUIRE_FRAMEWORKS=1) when HTA is missing."""
    try:
        from hta.trace_analysis import TraceAnalysis
    except ImportError as error:
        message = f"holistictraceanalysis is not installed (requirements-hta.txt): {error}"
        if REQUIRED:
            pytest.fail(f"required by RUNLENS_REQUIRE_FRAMEWORKS=1: {message}")
        pytest.skip(message)
    return TraceAnalysis


def hta_breakdowns(trace_dir):
    """HTA's temporal breakdown and idle time breakdown of the job in trace_dir, per rank."""
    analysis_class = trace_analysis()
    logging.disable(logging.WARNING)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            analysis = analysis_class(trace_dir=str(trace_dir))
            temporal = analysis.get_temporal_breakdown(visualize=False)
            idle = {}
            for rank in analysis.t.get_ranks():
                frame, _ = analysis.get_idle_time_breakdown(ranks=[rank], visualize=False)
                idle[rank] = frame
    finally:
        logging.disable(logging.NOTSET)
    return temporal, idle


@pytest.mark.parametrize(
    "job",
    [[CURRENT], [LEGACY], [FRACTIONAL], list(JOB), [NO_STEPS]],
    ids=["current", "2021", "fractional", "two-ranks", "no-steps"],
)
def test_every_gpu_trace_is_split_as_hta_splits_it(job, raw, marts, tmp_path):
    folder = tmp_path / "job"
    folder.mkdir()
    for trace in job:
        shutil.copy(raw / trace, folder / os.path.basename(trace))  # HTA reads a job's folder
    temporal, idle = hta_breakdowns(folder)
    theirs_by_rank = {row["rank"]: row for row in temporal.to_dict("records")}
    ours_by_rank = {
        row[0]: row[1:]
        for row in rows(
            marts,
            "select rank, 100 * idle_share, 100 * compute_share, 100 * non_compute_share, gpu_span_seconds * 1e6 "
            f"from main.fct_run_trace_gpu_time where file_path in ({', '.join('?' for _ in job)})",
            *job,
        )
    }
    assert sorted(ours_by_rank) == sorted(theirs_by_rank)
    for rank, ours in ours_by_rank.items():
        hta = theirs_by_rank[rank]
        assert abs(ours[0] - hta["idle_time_pctg"]) <= 0.5
        assert abs(ours[1] - hta["compute_time_pctg"]) <= 0.5
        assert abs(ours[2] - hta["non_compute_time_pctg"]) <= 0.5
        assert ours[3] == pytest.approx(hta["kernel_time(us)"])
    by_stream = rows(
        marts,
        "select rank, stream, 100 * host_wait_share, 100 * kernel_wait_share, 100 * other_idle_share, "
        "stream_idle_seconds * 1e6 from main.fct_run_trace_stream_idle_time "
        f"where file_path in ({', '.join('?' for _ in job)})",
        *job,
    )
    assert by_stream
    for rank, stream, host, kernel, other, total in by_stream:
        frame = idle[rank]
        theirs = {row["idle_category"]: row for row in frame[frame["stream"] == stream].to_dict("records")}
        assert sum(row["idle_time"] for row in theirs.values()) == pytest.approx(total)
        for category, value in (("host_wait", host), ("kernel_wait", kernel), ("other", other)):
            # HTA lists only the categories a stream has
            hta_share = theirs[category]["idle_time_ratio"] if category in theirs else 0
            assert abs((value or 0) - 100 * hta_share) <= 0.5


def test_the_steps_add_up_to_hta_s_trace_when_every_gpu_event_lies_in_one(raw, marts, tmp_path):
    """The 2021 trace's GPU events were all launched in its two analysed steps (the current
    schema's window also takes the kernel launched in step 3): its steps tile HTA's span."""
    folder = tmp_path / "job"
    folder.mkdir()
    shutil.copy(raw / LEGACY, folder / os.path.basename(LEGACY))
    temporal, idle = hta_breakdowns(folder)
    [hta] = temporal.to_dict("records")
    [(span, idle_seconds, stream_idle)] = rows(
        marts,
        "select sum(gpu_span_seconds), sum(idle_seconds), sum(stream_idle_seconds) from main.fct_run_steps "
        "where file_path = ?",
        LEGACY,
    )
    assert span * 1e6 == pytest.approx(hta["kernel_time(us)"])
    assert idle_seconds * 1e6 == pytest.approx(hta["idle_time(us)"])
    assert stream_idle * 1e6 == pytest.approx(idle[0]["idle_time"].sum())


def test_a_trace_without_profiler_steps_is_one_step(marts):
    got = rows(
        marts,
        "select step_label, step_number, is_whole_trace, wall_seconds, data_loading_seconds, gpu_span_seconds, "
        "idle_seconds, compute_seconds, host_wait_seconds, kernel_wait_seconds, other_idle_seconds "
        "from main.fct_run_steps where file_path = ?",
        NO_STEPS,
    )
    [(label, number, is_whole_trace, *seconds)] = got
    assert (label, number, is_whole_trace) == ("whole trace", None, True)
    assert seconds == pytest.approx([value / 1e6 for value in (2290, 300, 1980, 1000, 690, 1220, 20, 50)])
    assert rows(marts, "select profiled_steps from main.fct_traces where file_path = ?", NO_STEPS) == [(0,)]


def test_gpu_ranks_of_one_job_name_the_rank_that_launched_its_collective_last(marts):
    """In step 1 rank 0 launches the all-reduce at 320 us, rank 1 at 320 + 40: rank 1 is last and
    rank 0 waits 40 us; step 2 launches no collective (tests/support/kineto_traces.py)."""
    assert rows(
        marts, "select distinct run_id, collection, task from main.fct_traces where file_path in (?, ?)", *JOB
    ) == [("trace:gpu/job", "gpu", "job")]
    got = rows(
        marts,
        "select step_number, rank, straggling_rank, launch_after_first_seconds, waited_seconds "
        "from main.fct_run_step_rank_collectives where run_id = 'trace:gpu/job' order by step_number, rank",
    )
    assert got == [
        (1, 0, 1, 0, pytest.approx(COLLECTIVE_DELAY / 1e6)),
        (1, 1, 1, pytest.approx(COLLECTIVE_DELAY / 1e6), 0),
    ]


def test_a_cpu_only_trace_has_no_gpu_breakdown_never_zero_idle(marts):
    got = rows(
        marts,
        "select distinct has_gpu_events, idle_share, compute_share, host_wait_share, gpu_span_seconds "
        "from main.fct_run_trace_gpu_time where file_path like 'workers-%'",
    )
    assert got == [(False, None, None, None, None)]


def test_a_real_trace_beside_a_log_belongs_to_its_run_and_rank(marts):
    got = rows(
        marts,
        "select distinct run_id, collection, task, rank, is_own_run, schema_kind "
        "from main.fct_traces where file_path like 'workers-%' order by run_id",
    )
    assert got == [
        ("workers-0", "dataloader-workers", "workers-0", 0, False, "current"),
        ("workers-2", "dataloader-workers", "workers-2", 0, False, "current"),
    ]


def test_data_loading_dominates_without_workers_and_not_with_them(marts):
    """Without workers every step makes its batch: __next__ takes at least LOAD_SECONDS of a step
    of at least LOAD_SECONDS + COMPUTE_SECONDS (0.04 of 0.10 s: 40%, less the loop's own overhead);
    with two workers the batch waits ready (trace_trainings.py)."""
    steps = rows(
        marts,
        "select run_id, count(*), min(data_loading_seconds), min(data_loading_share), max(data_loading_share), "
        "min(wall_seconds) from main.fct_run_steps where run_id like 'workers-%' group by run_id order by run_id",
    )
    (_, count_0, least_0, low_0, _, wall_0), (_, count_2, _, _, high_2, wall_2) = steps
    assert count_0 >= trace_trainings.ACTIVE - 1 and count_2 >= trace_trainings.ACTIVE - 1
    assert least_0 >= trace_trainings.LOAD_SECONDS
    assert wall_0 >= trace_trainings.LOAD_SECONDS + trace_trainings.COMPUTE_SECONDS
    assert low_0 > 0.3
    assert wall_2 >= trace_trainings.COMPUTE_SECONDS
    # a ready batch costs __next__ only its hand-over: a few percent of a step on an idle machine,
    # up to 12% seen on a busy one (the workers' processes wait for a core); below the input-bound
    # share (var input_bound_share, 0.2) and far below the 40% of the run without workers
    assert high_2 < 0.2


def test_a_trace_read_once_is_not_read_again_until_it_changes(raw, tmp_path):
    from runlens.raw_logs.duckdb_reader import refresh

    folder = tmp_path / "raw"
    kineto_traces.write(folder / CURRENT, kineto_traces.current_trace())
    connection = duckdb.connect()
    refresh(connection, str(folder), "raw")
    first = rows(connection, "select loaded_at, event_count from raw.trace_files")
    refresh(connection, str(folder), "raw")
    assert rows(connection, "select loaded_at, event_count from raw.trace_files") == first
    kineto_traces.write(folder / CURRENT, kineto_traces.legacy_trace())
    os.utime(folder / CURRENT, ns=(1, 1))
    refresh(connection, str(folder), "raw")
    # the 2021 plan has no gpu_user_annotation: 3 fewer events, and none of the old rows is left
    [(loaded_at, count)] = rows(connection, "select loaded_at, event_count from raw.trace_files")
    assert loaded_at > first[0][0] and count == first[0][1] - 3
    assert rows(connection, "select count(*) from raw.trace_events") == [(count,)]
    with gzip.open(folder / "a.pt.trace.json.gz", "wb") as handle:
        handle.write(b'{"traceEvents": [')
    refresh(connection, str(folder), "raw")
    [(read_error, events)] = rows(
        connection, "select read_error, event_count from raw.trace_files where file_path = 'a.pt.trace.json.gz'"
    )
    assert read_error.startswith("truncated") and events == 0


def test_two_ranks_in_a_folder_are_one_run_and_the_slow_rank_holds_every_step(marts):
    """Rank 1 sleeps SLOW_SECONDS between its forward pass and the all-reduce, every step; both
    ranks leave the previous step's all-reduce together, so rank 0 launches its first collective
    about SLOW_SECONDS earlier and waits that long for rank 1."""
    assert rows(
        marts, "select distinct run_id, collection, task, is_own_run from main.fct_traces where file_path like 'ddp/%'"
    ) == [("trace:ddp/job", "ddp", "job", True)]
    got = rows(
        marts,
        "select step_number, rank, ranks_launched, straggling_rank, is_straggling_rank, waited_seconds "
        "from main.fct_run_step_rank_collectives where run_id = 'trace:ddp/job' order by step_number, rank",
    )
    # the profiler records steps 2..5; the last is cut short: steps 2, 3, 4
    assert [(step, rank) for step, rank, *_ in got] == [(step, rank) for step in (2, 3, 4) for rank in (0, 1)]
    for _, rank, launched, straggler, is_straggler, waited in got:
        assert (launched, straggler, is_straggler) == (2, 1, rank == 1)
        if rank == 1:
            assert waited == 0
        else:
            assert SLOW_SECONDS / 2 < waited < SLOW_SECONDS * 4


def test_the_generated_trace_folder_is_what_its_generator_writes(tmp_path):
    """tests/generated/traces (the engine tests' traces) is traces_fixture.write's output, plus the
    one recorded real trace: CPU only, read whole, with an annotation of each of the
    trace_trainings.ACTIVE steps the profiler recorded."""
    written = traces_fixture.write(tmp_path / "traces")
    committed = {path.relative_to(traces_fixture.FOLDER) for path in traces_fixture.FOLDER.rglob("*") if path.is_file()}
    generated = {path.relative_to(written) for path in written.rglob("*") if path.is_file()}
    recorded = {path for path in committed if str(path.parent) == traces_fixture.RECORDED}
    assert committed == generated | recorded and len(recorded) == 1
    for path in sorted(generated):
        assert (written / path).read_bytes() == (traces_fixture.FOLDER / path).read_bytes(), path
    [real] = [trace for trace in list_trace_files(str(traces_fixture.FOLDER)) if trace.file_path.startswith("cpu/")]
    header = TraceHeader()
    events = [event for _, event in read_trace(describe(str(traces_fixture.FOLDER), real.absolute_path), header)]
    row = file_row(real, header)
    assert (row["read_error"], row["schema_kind"], row["device_count"]) == (None, "current", 0)
    steps = {event["name"] for event in events if event["name"].startswith("ProfilerStep#")}
    assert len(steps) == trace_trainings.ACTIVE
    assert not any("stream" in (event.get("args") or {}) for event in events)
