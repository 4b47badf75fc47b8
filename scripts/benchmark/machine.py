"""What the machine is: date, CPU, memory, OS, the versions that matter, dbt's threads."""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import platform
import re


def read_first(path: str, pattern: str) -> str | None:
    try:
        with open(path) as handle:
            for line in handle:
                if re.match(pattern, line):
                    return line.split(":", 1)[1].strip() if ":" in line else line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return None


def machine() -> dict:
    mem_kb = read_first("/proc/meminfo", r"MemTotal")
    versions = {}
    for package in ("duckdb", "dbt-core", "dbt-duckdb", "pandas", "numpy"):
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            versions[package] = None
    return {
        "date_utc": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M"),
        "cpu_model": read_first("/proc/cpuinfo", r"model name"),
        "logical_cpus": os.cpu_count(),
        "usable_cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "memory_gb": round(int(mem_kb.split()[0]) / 1e6, 1) if mem_kb else None,
        "os": (read_first("/etc/os-release", r"PRETTY_NAME=") or platform.system()) + f", kernel {platform.release()}",
        "python": platform.python_version(),
        "versions": versions,
        "dbt_threads": int(os.environ.get("RUNLENS_THREADS", "2")),
    }
