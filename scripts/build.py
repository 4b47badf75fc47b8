"""`python scripts/build.py [DBT BUILD OPTIONS]` is `runlens build -- [DBT BUILD OPTIONS]`."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runlens.cli import main  # noqa: E402
from runlens.refresh.build import REFRESH  # noqa: E402, F401 (scripts/benchmark/ builds with it)

if __name__ == "__main__":
    sys.exit(main(["build", "--", *sys.argv[1:]]))
