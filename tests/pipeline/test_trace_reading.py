"""The streaming trace reader (runlens/raw_logs/trace_reading.py) against json.load of the same
text: the same events, whatever the size of the buffer, a header written after the events, a
trace cut anywhere (a reason, never an exception), and a buffer that never holds the file."""

from __future__ import annotations

import json

import duckdb
import pytest

from runlens.raw_logs import trace_reading
from runlens.raw_logs.listing import describe
from runlens.raw_logs.trace_reading import TraceHeader, file_row, read_trace
from tests.support import kineto_traces


def expected_events(trace: dict) -> list[tuple[int, dict]]:
    """The complete events json.load sees, numbered from 1 among all events (the contract's rule:
    ph X, a category other than Trace, numeric ts and dur)."""
    return [
        (number, event)
        for number, event in enumerate(trace["traceEvents"], start=1)
        if event.get("ph") == "X"
        and isinstance(event.get("cat"), str)
        and event["cat"] != "Trace"
        and isinstance(event.get("ts"), int | float)
        and isinstance(event.get("dur"), int | float)
    ]


def read(path, root):
    header = TraceHeader()
    events = list(read_trace(describe(str(root), str(path)), header))
    return events, header


@pytest.mark.parametrize("chunk", [1, 7, 4096, 1 << 20])
@pytest.mark.parametrize("name", ["current.pt.trace.json", "legacy.pt.trace.json.gz"])
def test_the_stream_reads_what_json_load_reads_whatever_the_buffer(name, chunk, tmp_path, monkeypatch):
    monkeypatch.setattr(trace_reading, "CHUNK_CHARS", chunk)
    trace = kineto_traces.current_trace(3, 8) if name.startswith("current") else kineto_traces.legacy_trace()
    path = kineto_traces.write(tmp_path / name, trace)
    events, header = read(path, tmp_path)
    assert header.read_error is None
    assert events == expected_events(trace)
    # the header's keys, those Kineto writes after traceEvents too
    assert header.keys == {key: value for key, value in trace.items() if key != "traceEvents"}
    row = file_row(describe(str(tmp_path), str(path)), header)
    assert (row["rank"], row["world_size"]) == ((3, 8) if name.startswith("current") else (0, None))


def test_a_trace_cut_anywhere_gives_a_reason_and_the_events_before_the_cut(tmp_path):
    trace = kineto_traces.current_trace()
    text = json.dumps(trace, indent=2)
    whole = expected_events(trace)
    for cut in range(0, len(text), 97):
        path = tmp_path / "cut.pt.trace.json"
        path.write_text(text[:cut], encoding="utf-8")
        events, header = read(path, tmp_path)
        assert header.read_error is not None, cut
        assert header.read_error.split(":")[0] in ("truncated", "invalid_json"), header.read_error
        assert events == whole[: len(events)]


def test_no_trace_and_bad_json_are_reasons(tmp_path):
    cases = {
        "object.pt.trace.json": ('{"rows": [1, 2]}', "not_a_trace"),
        "list.pt.trace.json": ("[1, 2]", "invalid_json"),
        "bad.pt.trace.json": ('{"traceEvents": [{"ph": "X",, }]}', "invalid_json"),
        "empty.pt.trace.json": ("", "truncated"),
    }
    for name, (text, reason) in cases.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        _, header = read(tmp_path / name, tmp_path)
        assert header.read_error.split(":")[0] == reason, (name, header.read_error)


def test_the_buffer_never_holds_much_more_than_a_chunk(tmp_path, monkeypatch):
    """A trace of 60,000 events (30 a plan, 2,000 times) read with a 64 KiB buffer: the buffer never
    holds more than a chunk and the rest of the one before."""
    monkeypatch.setattr(trace_reading, "CHUNK_CHARS", 64 * 1024)
    held = []
    fill = trace_reading.Buffer.fill

    def measured(buffer):
        fill(buffer)
        held.append(len(buffer.text))

    monkeypatch.setattr(trace_reading.Buffer, "fill", measured)
    events = kineto_traces.gpu_events(legacy=False, origin=0)
    trace = {"traceEvents": events * 2000, "baseTimeNanoseconds": 1}
    path = kineto_traces.write(tmp_path / "big.pt.trace.json", trace)
    read_events, header = read(path, tmp_path)
    assert header.read_error is None and len(read_events) == len(expected_events(trace))
    assert path.stat().st_size > 50 * max(held)
    assert max(held) <= 2 * 64 * 1024


def test_arguments_a_bigint_cannot_hold_are_null(tmp_path):
    """An id past a bigint (or no integer at all) is no id: NULL, never a failed reading."""
    event = {"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2, "pid": 0, "tid": 7}
    event["args"] = {"stream": "7", "correlation": 2**64, "device": 1.5, "External id": True}
    path = kineto_traces.write(tmp_path / "ids.pt.trace.json", {"traceEvents": [event]})
    [(number, kept_event)] = read(path, tmp_path)[0]
    row = trace_reading.event_row(number, kept_event)
    assert row[-4:] == (7, None, None, None)


def test_the_batches_keep_every_text_and_number_as_the_trace_has_it(tmp_path, monkeypatch):
    """The DuckDB reader's trace_events through its CSV batches (trace_batches.py, two events a
    batch here): each awkward name as AWKWARD_NAMES says (quotes, commas, every kind of line break,
    the empty name apart from NULL, `\\N`, `NULL` and `nan` as text), the ids as awkward_events says,
    ts -3.25 and inf exact, a NUL kept."""
    from runlens.raw_logs import duckdb_reader, trace_batches

    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "odd.pt.trace.json").write_text(kineto_traces.awkward_trace(), encoding="utf-8")
    monkeypatch.setattr(trace_batches, "BATCH_EVENTS", 2)
    connection = duckdb.connect()
    duckdb_reader.refresh(connection, str(raw), "raw")
    got = connection.execute(
        "select event_number, name, ts, dur, pid, tid, stream, device, correlation, external_id "
        "from raw.trace_events order by event_number"
    ).fetchall()
    names = [stored for _, stored in kineto_traces.AWKWARD_NAMES]
    expected = [(number, name, 1.5, 2.0, "1", "1", None, None, None, None) for number, name in enumerate(names, 1)]
    count = len(names)
    expected += [
        (count + 1, "ids", 1.5, 2.0, '{"a": [1]}', "7", None, 7, 7, None),
        (count + 2, "negative", -3.25, 0.125, "1", "1", None, None, None, None),
        (count + 3, "infinite", float("inf"), 1.0, "1", "1", None, None, None, None),
        (count + 4, kineto_traces.NUL_NAME, 1.5, 2.0, "1", "1", None, None, None, None),
    ]
    assert got == expected
    [(devices, event_count, read_error)] = connection.execute(
        "select devices, event_count, read_error from raw.trace_files"
    ).fetchall()
    assert (devices, event_count, read_error) == ('1 x A"B', count + 4, None)
