"""The Spark session dbt-spark's session method would start for the profile (profiles.yml, target
`spark`), started first, so that the reader (runlens/raw_logs/spark_reader.py) and then dbt, in
the same process, work in one session: dbt-spark builds its session with
`SparkSession.builder.enableHiveSupport()`, the profile's server_side_parameters and
`getOrCreate()`, which then returns this one. The profile's values are rendered here as dbt
renders them (they read environment variables only)."""

from __future__ import annotations

import os
from pathlib import Path

import jinja2
import yaml


def env_var(name: str, default: str | None = None) -> str:
    value = os.environ.get(name, default)
    if value is None:
        raise ValueError(f"the profile needs the environment variable {name}")
    return value


def spark_schema() -> str:
    """The schema (Spark database) dbt builds into (profiles.yml: RUNLENS_SPARK_SCHEMA)."""
    return os.environ.get("RUNLENS_SPARK_SCHEMA", "runlens")


def profile_parameters(profiles_dir: Path) -> dict[str, str]:
    """The Spark target's server_side_parameters, rendered."""
    profiles = yaml.safe_load((Path(profiles_dir) / "profiles.yml").read_text(encoding="utf-8"))
    parameters = profiles["runlens"]["outputs"]["spark"]["server_side_parameters"]
    environment = jinja2.Environment(undefined=jinja2.StrictUndefined)
    return {name: environment.from_string(str(value)).render(env_var=env_var) for name, value in parameters.items()}


def profile_session(profiles_dir: Path):
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.enableHiveSupport()
    for name, value in profile_parameters(profiles_dir).items():
        builder = builder.config(name, value)
    return builder.getOrCreate()
