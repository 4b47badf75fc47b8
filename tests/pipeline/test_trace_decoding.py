"""DuckDB's decoding of traces (runlens/raw_logs/trace_decoding.py) against the streaming reader
(runlens/raw_logs/trace_reading.py, through the CSV batches every other engine loads): on hostile
traces written by hand and on a seeded corpus of random events whose fields take every JSON form,
the raw tables trace_events and trace_files are equal row for row. Where the fast way declines a
trace, the streaming reader reads it; the tests say which traces must take the fast way, so that a
fast way declining everything cannot pass."""

from __future__ import annotations

import datetime
import gzip
import json
import random
import tempfile

import duckdb
import pytest

from runlens.raw_logs import duckdb_traces, trace_decoding
from runlens.raw_logs.raw_tables import TABLES
from runlens.raw_logs.trace_listing import list_trace_files

LOADED_AT = datetime.datetime(2026, 12, 7)
HEADER = '"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100"}], '
TAIL = ', "traceName": "x", "baseTimeNanoseconds": 1733000000000000000, "distributedInfo": {"rank": 2, "world_size": 4}'


def trace(*events: str, header: str = HEADER, tail: str = TAIL) -> str:
    """A trace's text around events written as raw JSON (so that a key may be written twice and a
    number in any spelling)."""
    return "{" + header + '"traceEvents": [\n' + ",\n".join(events) + "\n]" + tail + "}"


def event(*fields: str) -> str:
    return "{" + ", ".join(fields) + "}"


KERNEL = event(
    '"ph": "X"',
    '"cat": "kernel"',
    '"name": "gemm"',
    '"pid": 0',
    '"tid": 7',
    '"ts": 100',
    '"dur": 40',
    '"args": {"stream": 7, "device": 0, "correlation": 12, "External id": 3}',
)
OPERATOR = event(
    '"ph": "X"',
    '"cat": "cpu_op"',
    '"name": "aten::mm"',
    '"pid": 4242',
    '"tid": 4242',
    '"ts": 90.5',
    '"dur": 9.25',
    '"args": {"External id": 3}',
)


def with_name(name: str) -> str:
    return event('"ph": "X"', '"cat": "cpu_op"', f'"name": {name}', '"ts": 1', '"dur": 2')


def with_pid(pid: str) -> str:
    return event('"ph": "X"', '"cat": "cpu_op"', '"name": "n"', f'"pid": {pid}', f'"tid": {pid}', '"ts": 1', '"dur": 2')


def with_argument(key: str, value: str) -> str:
    return event('"ph": "X"', '"cat": "kernel"', '"name": "k"', '"ts": 1', '"dur": 2', f'"args": {{"{key}": {value}}}')


# name: (text, whether the fast way reads it)
HOSTILE = {
    "plain": (trace(OPERATOR, KERNEL), True),
    "header_first_and_last": (trace(KERNEL, header="", tail=", " + HEADER.rstrip(", ")), True),
    "no_events": (trace(), True),
    "kept_or_not": (
        trace(
            event('"ph": "x"', '"cat": "cpu_op"', '"ts": 1', '"dur": 2'),
            event('"ph": "B"', '"cat": "cpu_op"', '"ts": 1', '"dur": 2'),
            event('"ph": "X"', '"cat": 5', '"ts": 1', '"dur": 2'),
            event('"ph": "X"', '"cat": "Trace"', '"ts": 1', '"dur": 2'),
            event('"ph": "X"', '"cat": "cpu_op"', '"ts": "1"', '"dur": 2'),
            event('"ph": "X"', '"cat": "cpu_op"', '"ts": 1', '"dur": true'),
            event('"ph": "X"', '"cat": "cpu_op"', '"ts": 1'),
            event('"ph": ["X"]', '"cat": "cpu_op"', '"ts": 1', '"dur": 2'),
            "5",
            "[1, 2]",
            '"X"',
            "null",
            "{}",
            event('"ph": "X"', '"cat": "cpu_op"', '"ts": -0', '"dur": 0.0015'),
            event('"ph": "X"', '"cat": "cpu_op"', '"ts": 1E5', '"dur": 1e-7'),
            event('"ph": "X"', '"cat": "cpu_op"', '"ts": 1733000000000000123', '"dur": 18446744073709551616'),
            event('"ph": "X"', '"cat": "", "ts": 1', '"dur": 2'),
        ),
        True,
    ),
    "names": (
        trace(
            *map(
                with_name,
                [
                    "7",
                    "-3",
                    "-0",
                    "1180591620717411303424",
                    "true",
                    "false",
                    "null",
                    '""',
                    '"caf\\u00e9 \\"q\\" \\\\ \\n\\t"',
                    '"nul\\u0000in"',
                    '"caf\u00e9"',
                ],
            )
        ),
        True,
    ),
    "name_without_value": (trace(event('"ph": "X"', '"cat": "cpu_op"', '"ts": 1', '"dur": 2')), True),
    "pids": (trace(*map(with_pid, ['"7"', "0", "-12", "true", "null", "123456789012345678901234567890"])), True),
    "pid_fraction": (trace(with_pid("1.5")), False),
    "pid_list": (trace(with_pid("[1]")), False),
    "name_object": (trace(with_name('{"a": 1}')), False),
    "integers": (
        trace(
            *[
                with_argument(key, value)
                for key in ("stream", "device", "correlation", "External id", "external id")
                for value in (
                    '"7"',
                    '" 7\\t"',
                    '"07"',
                    '"-0"',
                    '"7.0"',
                    '"+7"',
                    '"\\u00a07"',
                    '"7 7"',
                    "7.0",
                    "7.5",
                    "1e3",
                    "-0.0",
                    "9223372036854775807",
                    "9223372036854775808",
                    "-9223372036854775808",
                    "-9223372036854775809",
                    "9.3e18",
                    "true",
                    '"abc"',
                    "null",
                    "[7]",
                    '{"a": 7}',
                )
            ]
        ),
        True,
    ),
    "external_id_spellings": (
        trace(
            with_argument("External id", "3").replace('"External id": 3', '"External id": 3, "external id": 4'),
            with_argument("External id", "null").replace(
                '"External id": null', '"External id": null, "external id": 4'
            ),
            with_argument("external id", "5"),
            with_argument("EXTERNAL ID", "6"),
            event('"ph": "X"', '"cat": "kernel"', '"ts": 1', '"dur": 2', '"args": [1]'),
            event('"ph": "X"', '"cat": "kernel"', '"ts": 1', '"dur": 2', '"args": "stream"'),
        ),
        True,
    ),
    "key_written_twice_in_an_event": (
        trace(
            event('"ph": "X"', '"ph": "B"', '"cat": "cpu_op"', '"ts": 1', '"dur": 2'),
            event('"ph": "B"', '"ph": "X"', '"cat": "cpu_op"', '"ts": 1', '"dur": 2'),
            event(
                '"ph": "X"',
                '"cat": "cpu_op"',
                '"ts": 1',
                '"ts": "late"',
                '"dur": 2',
                '"args": {"stream": 1, "stream": 2}',
            ),
            event('"ph": "X"', '"cat": "cpu_op"', '"TS": 5', '"ts": 1', '"dur": 2'),
        ),
        True,
    ),
    "traceEvents_twice": (trace(KERNEL, tail=', "traceEvents": [' + OPERATOR + "]"), False),
    "trailing_comma": (trace(KERNEL).replace("\n]", ",\n]"), False),
    "nan": (trace(KERNEL.replace('"ts": 100', '"ts": NaN')), False),
    "infinity": (trace(KERNEL.replace('"dur": 40', '"dur": -Infinity')), False),
    "a_name_that_says_inf": (trace(with_name('"inf"')), False),
    "surrogate_pair": (trace(with_name('"\\ud83d\\ude00"')), False),
    "lone_surrogate": (trace(with_name('"\\ud800"')), False),
    "control_character": (trace(with_name('"a\u0001b"')), False),
    "cut_short": (trace(OPERATOR, KERNEL)[:-60], False),
    "not_an_object": ("[" + KERNEL + "]", False),
    "no_traceEvents": ('{"schemaVersion": 1}', False),
    "traceEvents_not_a_list": ('{"traceEvents": {"a": 1}}', False),
    "text_after_the_object": (trace(KERNEL) + " trailing", False),
}
BYTES = {
    "bom": (b"\xef\xbb\xbf" + trace(KERNEL).encode(), False),
    "not_utf8": (trace(with_name('"caf\u00e9"')).encode().replace("\u00e9".encode(), b"\xe9"), False),
}


def write_hostile(folder) -> dict[str, bool]:
    """Every hostile trace into folder, plain and gzip'd; {file path: whether the fast way reads it}."""
    expected = {}
    texts = {name: (text.encode("utf-8"), fast) for name, (text, fast) in HOSTILE.items()} | BYTES
    for name, (data, fast) in texts.items():
        (folder / f"{name}.pt.trace.json").write_bytes(data)
        (folder / f"{name}.pt.trace.json.gz").write_bytes(gzip.compress(data))
        expected[f"{name}.pt.trace.json"] = expected[f"{name}.pt.trace.json.gz"] = fast
    good = gzip.compress(trace(KERNEL).encode())
    (folder / "corrupt_gzip.pt.trace.json.gz").write_bytes(good[:20] + b"\x00" * 8 + good[28:])
    (folder / "cut_gzip.pt.trace.json.gz").write_bytes(good[: len(good) // 2])
    expected["corrupt_gzip.pt.trace.json.gz"] = expected["cut_gzip.pt.trace.json.gz"] = False
    return expected


def raw_tables(raw_dir, fast: bool, monkeypatch) -> tuple[list, list]:
    """(trace_events, trace_files) as the DuckDB reader loads raw_dir, the fast way where it may or
    the streaming reader only; each value by its repr (NaN equals NaN, -0.0 is not 0.0)."""
    with monkeypatch.context() as patch:
        if not fast:
            patch.setattr(
                trace_decoding.Decoder, "decode", lambda _self, traces: ({}, {t.file_path: "slow" for t in traces}, [])
            )
        connection = duckdb.connect()
        connection.execute("create schema raw")
        for table in ("trace_files", "trace_events"):
            columns = ", ".join(f'"{name}" {kind}' for name, kind in TABLES[table])
            connection.execute(f"create table raw.{table} ({columns})")
        duckdb_traces.refresh_traces(connection, "raw", str(raw_dir), LOADED_AT)
    events = connection.execute("select * from raw.trace_events order by file_path, event_number").fetchall()
    files = connection.execute("select * from raw.trace_files order by file_path").fetchall()
    return [repr(row) for row in events], [repr(row) for row in files]


def fast_way(raw_dir) -> dict[str, str | None]:
    """{file path: None where the fast way decodes the trace, else why it declines}, each trace alone."""
    outcome = {}
    with tempfile.TemporaryDirectory() as folder:
        decoder = trace_decoding.Decoder(folder)
        for trace_file in list_trace_files(str(raw_dir)):
            headers, declined, _ = decoder.decode([trace_file])
            outcome[trace_file.file_path] = None if trace_file.file_path in headers else declined[trace_file.file_path]
        decoder.close()
    return outcome


def assert_same(raw_dir, monkeypatch) -> None:
    fast_events, fast_files = raw_tables(raw_dir, True, monkeypatch)
    slow_events, slow_files = raw_tables(raw_dir, False, monkeypatch)
    assert fast_files == slow_files
    assert len(fast_events) == len(slow_events)
    assert [row for row in fast_events if row not in set(slow_events)] == []
    assert fast_events == slow_events


def test_hostile_traces_give_the_same_rows_both_ways(tmp_path, monkeypatch):
    expected = write_hostile(tmp_path)
    outcome = fast_way(tmp_path)
    assert {path: why is None for path, why in outcome.items()} == expected, outcome
    assert_same(tmp_path, monkeypatch)


def test_the_hostile_traces_are_what_the_tests_think(tmp_path):
    """The streaming reader's view of a few of them, worked out by hand from the rules."""
    (tmp_path / "kept.pt.trace.json").write_text(HOSTILE["kept_or_not"][0], encoding="utf-8")
    (tmp_path / "twice.pt.trace.json").write_text(HOSTILE["key_written_twice_in_an_event"][0], encoding="utf-8")
    (tmp_path / "ints.pt.trace.json").write_text(HOSTILE["integers"][0], encoding="utf-8")
    connection = duckdb.connect()
    connection.execute("create schema raw")
    for table in ("trace_files", "trace_events"):
        connection.execute(f"create table raw.{table} ({', '.join(f'{n} {k}' for n, k in TABLES[table])})")
    duckdb_traces.refresh_traces(connection, "raw", str(tmp_path), LOADED_AT)
    kept = connection.execute(
        "select event_number, ts, dur from raw.trace_events where file_path = 'kept.pt.trace.json' order by 1"
    ).fetchall()
    # of the 17 elements, the kept: 14 (-0 and 0.0015), 15 (1E5, 1e-7), 16 (big integers), 17 (empty category)
    assert kept == [
        (14, 0.0, 0.0015),
        (15, 100000.0, 1e-7),
        (16, 1733000000000000123.0, 18446744073709551616.0),
        (17, 1.0, 2.0),
    ]
    twice = connection.execute(
        "select event_number, ts, stream from raw.trace_events where file_path = 'twice.pt.trace.json' order by 1"
    ).fetchall()
    # the first `ph` counts (X then B: kept; B then X: not), the first ts (1), the first stream (1)
    assert twice == [(1, 1.0, None), (3, 1.0, 1), (4, 1.0, None)]
    streams = [
        row[0]
        for row in connection.execute(
            "select stream from raw.trace_events where file_path = 'ints.pt.trace.json' order by event_number limit 22"
        ).fetchall()
    ]
    # '"7"' '" 7\t"' '"07"' '"-0"' are 7 7 7 0; '"7.0"' '"+7"' nbsp-7 '"7 7"' none; 7.0 is 7, 7.5 none, 1e3 1000,
    # -0.0 0, 2^63-1 itself, 2^63 none, -2^63 itself, -2^63-1 none, 9.3e18 none (above 2^63), true, text,
    # null, list, object none
    assert streams == [
        7,
        7,
        7,
        0,
        None,
        None,
        None,
        None,
        7,
        None,
        1000,
        0,
        2**63 - 1,
        None,
        -(2**63),
        None,
        None,
        None,
        None,
        None,
        None,
        None,
    ]


FORMS = {
    "text": ['"aten::mm"', '"X"', '"kernel"', '"cpu_op"', '""', '"7"', '" 12 "', '"Trace"', '"caf\\u00e9"', '"a\\"b"'],
    "integer": ["0", "7", "-3", "-0", "4242", "9223372036854775807", "9223372036854775808", "18446744073709551616"],
    "fraction": ["1.5", "7.0", "1E5", "1e-3", "-0.0", "2.5e10"],
    "other": ["true", "false", "null", "[1]", '{"a": 1}', "[]"],
}


def random_value(generator: random.Random, key: str) -> str:
    if key == "ph":
        return generator.choice(['"X"', '"X"', '"X"', '"B"', "1"])
    if key == "cat":
        return generator.choice(['"kernel"', '"cpu_op"', '"cuda_runtime"', '"Trace"', '"user_annotation"', "5"])
    if key in ("ts", "dur"):
        return generator.choice(FORMS["integer"][:5] + FORMS["fraction"] + ['"1"', "true"])
    kind = generator.choice(list(FORMS))
    if key in ("name", "pid", "tid") and kind in ("fraction", "other") and generator.random() < 0.99:
        kind = "text"  # a fraction or a list in a name declines the whole trace: keep most traces fast
    return generator.choice(FORMS[kind])


def random_event(generator: random.Random) -> str:
    fields = []
    for key in ("ph", "cat", "name", "pid", "tid", "ts", "dur"):
        if generator.random() < 0.95:
            fields.append(f'"{key}": {random_value(generator, key)}')
        if generator.random() < 0.03:
            fields.append(f'"{key}": {random_value(generator, key)}')  # the key again
    arguments = [
        f'"{key}": {random_value(generator, key)}'
        for key in ("stream", "device", "correlation", "External id", "external id", "cbid")
        if generator.random() < 0.5
    ]
    fields.append('"args": {' + ", ".join(arguments) + "}")
    generator.shuffle(fields)
    return "{" + ", ".join(fields) + "}"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_events_give_the_same_rows_both_ways(seed, tmp_path, monkeypatch):
    generator = random.Random(seed)
    for index in range(40):
        events = [random_event(generator) for _ in range(generator.randint(0, 60))]
        text = trace(*events)
        json.loads(text)  # every random trace is JSON Python reads
        (tmp_path / f"random-{index:03d}.pt.trace.json").write_text(text, encoding="utf-8")
    outcome = fast_way(tmp_path)
    fast = sum(why is None for why in outcome.values())
    assert fast >= len(outcome) // 2, outcome
    assert_same(tmp_path, monkeypatch)
