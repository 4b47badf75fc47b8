"""The contributor guide's walk-through (CONTRIBUTING.md, "Add a column and show it"), followed
once: a column added to the runs mart agg_collection_runtime reaches the page by touching the
model, its YAML and the template, and nothing else."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.support.pipeline import DATABASE, FAULTY, REPO, build, copy_project
from tests.support.prebuilt import Prebuilds, prebuilt

TEMPLATES = REPO / "runlens" / "report" / "templates"
# the three edits of the walk-through: (file, text before, text after)
EDITS = [
    (
        "models/marts/runs/agg_collection_runtime.sql",
        "        statistics.max_wall_seconds,\n",
        "        statistics.max_wall_seconds,\n"
        "        statistics.max_wall_seconds - statistics.min_wall_seconds as wall_range_seconds,\n",
    ),
    (
        "models/marts/runs/_runs__models.yml",
        "        description: Longest wall time of the analyzed runs, seconds.\n",
        "        description: Longest wall time of the analyzed runs, seconds.\n"
        "      - name: wall_range_seconds\n"
        "        data_type: \"{{ var('runlens_types')[target.type].double }}\"\n"
        "        description: Longest minus shortest wall time of the analyzed runs, seconds.\n",
    ),
    (
        "templates/profile.md.j2",
        "90th percentile {{ wall(s.p90_wall_seconds) }}.",
        "90th percentile {{ wall(s.p90_wall_seconds) }}, range {{ s.wall_range_seconds | duration }}.",
    ),
]
RENDER = (
    "import sys; from pathlib import Path; from runlens.report import render;"
    " render.TEMPLATES = Path(sys.argv[1]); render.render_reports(Path(sys.argv[2]), Path(sys.argv[3]))"
)


def edit(path: Path, before: str, after: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(before) == 1, f"{path}: the walk-through's anchor is gone: update CONTRIBUTING.md and this test"
    path.write_text(text.replace(before, after), encoding="utf-8")


@prebuilt()
def walkthrough_page(builds: Prebuilds) -> str:
    """fixture/alpha's page after the walk-through's three edits, on a copy of the project."""
    root = builds.mktemp("walkthrough")
    project = copy_project(root / "project")
    templates = shutil.copytree(TEMPLATES, root / "templates")
    for name, before, after in EDITS:
        edit((root if name.startswith("templates/") else project) / name, before, after)
    raw = shutil.copytree(FAULTY, root / "raw")
    database = root / "db" / DATABASE
    build(project, raw, database)
    result = subprocess.run(
        [sys.executable, "-c", RENDER, str(templates), str(database), str(root / "reports")],
        env={**os.environ, "RUNLENS_PROJECT_DIR": str(project)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return (root / "reports" / "fixture-alpha" / "profile.md").read_text(encoding="utf-8")


def test_a_column_added_to_the_runs_mart_reaches_the_page_through_model_yaml_and_template(walkthrough_page):
    # fixture/alpha's analyzed runs took 1500 s to 3000 s (tests/fixtures/faulty/expected.json, by hand)
    assert "90th percentile 48.5 min, range 25.0 min." in walkthrough_page
