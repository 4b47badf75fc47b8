"""DuckDB reads the plain UTF-8 logs itself; Python only what DuckDB cannot (issue 24).

The same raw folder (the bundled sample, the faulty fixture and files of every awkward kind from
tests/pipeline/test_line_rules.py) is built three ways: as a build reads it (DuckDB reads the plain files,
Python the rest), with every file read in Python (RUNLENS_READER=python), and with chunks so small
that every file larger than 2 KB goes through Python in pieces (RUNLENS_CHUNK_BYTES). Every mart,
and every row of stg_log_lines but the time it was loaded, must be the same each way. Which files
take which way is checked on the reader's own answer (runlens/raw_logs/handover.py), and a file
this user may not read is not handed to DuckDB, whose readers would stop the build on it.
"""

from __future__ import annotations

import ctypes
import gzip
import shutil
import subprocess
from pathlib import Path

import duckdb
import pytest

from runlens.raw_logs import handover
from runlens.raw_logs.listing import list_log_files
from scripts.engines.parity import compare, load_marts, read_duckdb
from tests.support.awkward_files import NASTY, RANDOM, write
from tests.support.engine_datasets import DATASETS, ENGINES_PROJECT
from tests.support.pipeline import DATABASE, REFRESH, dbt_process, project_copies, run_dbt
from tests.support.prebuilt import Prebuilds, prebuilt

MARTS = load_marts()
SMALL_CHUNKS = "2048"
PR_CAPBSET_DROP, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 24, 1, 2
LINE_COLUMNS = (
    "file_path, file_fingerprint, line_number, is_blank, reject_reason, is_other_event, raw_text, run_id, event_type,"
    " resembles_event_type, event_at, step, epoch, collection, task, config, resources, run_end_status,"
    " profile_wall_seconds, profile_sections, profile_is_final, source_format, source_path, is_approximate,"
    " approximation, size_bytes, modified_at, is_gzip, read_error, event_aliases"
)


def raw_folder(root: Path) -> Path:
    """The sample and the faulty fixture (with their collections), the awkward files, a large file."""
    raw = root / "raw"
    for name, folder in DATASETS.items():
        shutil.copytree(folder, raw / name)
    for name, data in {**NASTY, **RANDOM}.items():
        write(raw / "nasty", name, data)
    write(raw / "nasty", "members.jsonl.gz", gzip.compress(b'{"a": 1}\n') + gzip.compress(b"\xff\r\n"))
    large = b"".join(b'{"run_id": "big", "event": "checkpoint", "ts": %d, "step": %d}\r\n' % (n, n) for n in range(400))
    write(raw / "nasty", "large.jsonl", b"\xef\xbb\xbf" + large + b"\xff\n" + large)
    return raw


@prebuilt()
def three_readings(builds: Prebuilds) -> dict[str, Path]:
    """The databases built over one raw folder by the three ways of reading it."""
    raw = raw_folder(builds.mktemp("native_reading"))
    ways = {"engine": {}, "python": {"RUNLENS_READER": "python"}, "small_chunks": {"RUNLENS_CHUNK_BYTES": SMALL_CHUNKS}}
    databases = {}
    for way, env in ways.items():
        databases[way] = builds.mktemp(f"native_reading_{way}") / DATABASE
        result = run_dbt(ENGINES_PROJECT, raw, databases[way], *REFRESH, env=env)
        assert result.returncode == 0, f"{way}:\n{result.stdout[-6000:]}"
    return databases


def lines_of(database: Path) -> list[tuple]:
    with duckdb.connect(str(database), read_only=True) as connection:
        return connection.execute(
            f"select {LINE_COLUMNS} from stg_log_lines order by file_path, line_number"
        ).fetchall()


@pytest.mark.parametrize("way", ["python", "small_chunks"])
def test_every_mart_is_the_same_read_either_way(three_readings, way):
    reference = read_duckdb(three_readings["engine"], MARTS)
    differences = compare(reference, read_duckdb(three_readings[way], MARTS), MARTS, "engine", way)
    assert differences == [], "\n".join(str(difference) for difference in differences[:40])
    assert sum(len(rows) for rows in reference.values()) > 1000


@pytest.mark.parametrize("way", ["python", "small_chunks"])
def test_every_line_is_the_same_read_either_way(three_readings, way):
    engine = lines_of(three_readings["engine"])
    assert lines_of(three_readings[way]) == engine
    # every file of the folder has its record: sample, fixture and awkward files alike
    assert sum(1 for row in engine if row[2] == 0) > len(NASTY) + len(RANDOM)


def test_duckdb_reads_the_plain_files_and_python_the_rest(tmp_path):
    raw = raw_folder(tmp_path)
    listed = {log_file.file_path: log_file for log_file in list_log_files(str(raw))}
    reads_natively = handover.native_reads({})
    native = {path for path, log_file in listed.items() if reads_natively(log_file)}
    # plain files DuckDB may read whole, valid UTF-8 or not (it decodes them; Python escapes only
    # the invalid ones' lines)
    assert {"sample/zz-faults/mixed_faults.jsonl", "nasty/valid.jsonl", "nasty/invalid_start.jsonl"} <= native
    assert "nasty/large.jsonl" in native and "nasty/empty.jsonl" in native
    # gzip, and names DuckDB would read as a glob pattern, go through Python
    assert not any(path.endswith(".gz") for path in native)
    for name in (
        "nasty/star*.jsonl",
        "nasty/brackets[1].jsonl",
        "nasty/brace{a,b}?.jsonl",
        "nasty/back\\slash'quote\".jsonl",
    ):
        assert name in listed and name not in native, name
    # a file larger than a chunk too; and with RUNLENS_READER=python, every file
    large = listed["nasty/large.jsonl"]
    assert handover.native_reads({})(large)
    assert not handover.native_reads({"RUNLENS_CHUNK_BYTES": SMALL_CHUNKS})(large)
    assert not handover.native_reads({"RUNLENS_READER": "python"})(large)


def without_root_file_access() -> None:
    """preexec_fn: dbt runs bound by file permissions, even as root."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0)


def test_a_file_this_user_may_not_read_is_left_to_python(tmp_path):
    raw = tmp_path / "raw"
    raw.mkdir()
    line = b'{"run_id": "r", "event": "run_start", "ts": "2025-01-01T00:00:00Z", "collection": "c", "task": "t"}\n'
    (raw / "readable.jsonl").write_bytes(line)
    (raw / "locked.jsonl").write_bytes(line)
    (raw / "locked.jsonl").chmod(0)
    probe = subprocess.run(
        ["cat", str(raw / "locked.jsonl")], capture_output=True, check=False, preexec_fn=without_root_file_access
    )
    if probe.returncode == 0:
        pytest.skip("this machine lets the tests' processes read a file whatever its permissions")
    database = tmp_path / "db" / DATABASE
    with project_copies().checkout(ENGINES_PROJECT) as project:
        result = subprocess.run(
            **dbt_process(project, raw, database, "run", "--select", "+stg_log_lines"),
            capture_output=True,
            text=True,
            check=False,
            preexec_fn=without_root_file_access,
        )
    assert result.returncode == 0, result.stdout[-4000:]
    with duckdb.connect(str(database), read_only=True) as connection:
        rows = connection.execute(
            "select file_path, line_number, read_error, run_id from stg_log_lines order by file_path, line_number"
        ).fetchall()
    assert rows == [
        ("locked.jsonl", 0, "unreadable: Permission denied", None),
        ("readable.jsonl", 0, None, None),
        ("readable.jsonl", 1, None, "r"),
    ]


def text_storage(connection: duckdb.DuckDBPyConnection) -> set[str]:
    """How DuckDB stores log_lines.text: its segments' compressions but the constant ones."""
    connection.execute("checkpoint")
    rows = connection.execute(
        "select distinct compression from pragma_storage_info('main_raw.log_lines') where column_name = 'text'"
    ).fetchall()
    return {compression for (compression,) in rows} - {"Constant"}


def test_the_lines_text_is_kept_in_zstd_and_a_full_reading_makes_an_older_table_again(tmp_path):
    """The reader stores the lines' text in zstd (duckdb_reader.COMPRESSION); a database an earlier
    runlens made keeps its table until a full reading, which makes it again in zstd."""
    from runlens.raw_logs.duckdb_reader import create_tables, refresh

    raw = tmp_path / "raw"
    lines = b"".join(
        b'{"run_id": "r%d", "event": "checkpoint", "ts": %d, "step": %d}\n' % (n % 7, n, n) for n in range(5000)
    )
    write(raw, "a.jsonl", lines)
    with duckdb.connect(str(tmp_path / "new.duckdb")) as connection:
        refresh(connection, str(raw), "main_raw")
        assert text_storage(connection) == {"ZSTD"}
    with duckdb.connect(str(tmp_path / "old.duckdb")) as connection:
        connection.execute("create schema main_raw")
        connection.execute(
            "create table main_raw.log_lines (file_path varchar, file_fingerprint varchar, line_number bigint, "
            "text varchar, is_invalid_utf8 boolean, is_blank boolean)"
        )
        create_tables(connection, "main_raw")  # the other tables, as that runlens made them
        refresh(connection, str(raw), "main_raw")
        assert "ZSTD" not in text_storage(connection)  # an incremental reading keeps the table as it is
        refresh(connection, str(raw), "main_raw", full=True)
        assert text_storage(connection) == {"ZSTD"}
        assert connection.execute(
            "select count(*), count(distinct line_number) from main_raw.log_lines"
        ).fetchone() == (
            5000,
            5000,
        )
