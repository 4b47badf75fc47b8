"""`python scripts/import_logs.py ...` is `runlens import ...` (runlens/commands/import_logs.py)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runlens.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(["import", *sys.argv[1:]]))
