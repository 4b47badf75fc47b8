"""Distributed training with a real torch.distributed process group (issue 12).

Two processes join a gloo group on 127.0.0.1 with no rank environment variable set, so the writer
can only learn its rank from torch.distributed. By default only global rank 0 writes; with
per_rank_files=True each rank writes its own file and run. (Rank environment variables and
explicit ranks are tested without torch in tests/test_writer.py.)
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

from pipeline import REPO
from writer_trainings import framework_module

RANKED_WRITER = """
import sys
import torch.distributed as distributed
import runlens_writer

folder, port, rank = sys.argv[1], sys.argv[2], int(sys.argv[3])
distributed.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2)
for per_rank_files in (False, True):
    with runlens_writer.start_run(f"{folder}/ddp.jsonl", collection="ddp", task="t",
                                  config={"writer_rank": rank}, per_rank_files=per_rank_files) as log:
        with log.section("train_step"):
            distributed.barrier()
        log.checkpoint(1)
distributed.destroy_process_group()
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_only_rank_zero_of_a_process_group_writes_unless_each_rank_has_its_own_file(tmp_path):
    framework_module("torch.distributed")
    environment = {
        name: value
        for name, value in os.environ.items()
        if name not in ("RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "LOCAL_RANK", "WORLD_SIZE")
    }
    environment["PYTHONPATH"] = str(REPO / "writer")
    port = free_port()
    ranks = [
        subprocess.Popen([sys.executable, "-c", RANKED_WRITER, str(tmp_path), str(port), str(rank)], env=environment)
        for rank in (0, 1)
    ]
    assert [process.wait(timeout=120) for process in ranks] == [0, 0]

    assert sorted(path.name for path in tmp_path.iterdir()) == ["ddp.jsonl", "ddp.rank0.jsonl", "ddp.rank1.jsonl"]
    shared = [json.loads(line) for line in (tmp_path / "ddp.jsonl").read_text().splitlines()]
    assert [event["event"] for event in shared] == ["run_start", "checkpoint", "profile", "profile", "run_end"]
    assert shared[0]["config"] == {"writer_rank": 0} and {event["run_id"] for event in shared} == {"ddp"}
    for rank in (0, 1):
        own = [json.loads(line) for line in (tmp_path / f"ddp.rank{rank}.jsonl").read_text().splitlines()]
        assert {event["run_id"] for event in own} == {f"ddp.rank{rank}"}
        assert own[0]["config"] == {"writer_rank": rank}
