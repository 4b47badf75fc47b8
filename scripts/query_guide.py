"""Write the answers of docs/queries.md again from a database (default: the sample's, runlens.duckdb).

    python scripts/query_guide.py [--db runlens.duckdb] [--check]

Every question of the guide is a ```sql block followed by its answer between `<!-- answer -->` and
`<!-- end answer -->`: a Markdown table of what the query returns. This script runs each query and
writes its table; with --check it writes nothing and exits 1 when a written answer differs from
what the query returns. tests/pipeline/test_query_guide.py runs the same check over the sample and checks
the answers against figures worked out from the raw logs.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import duckdb

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "queries.md"
BLOCK = re.compile(
    r"```sql\n(?P<sql>.*?)```\n\n<!-- answer -->\n(?P<answer>.*?)(?:<!-- end answer -->\n|(?=\n## |\Z))", re.S
)


@dataclass(frozen=True)
class Question:
    title: str
    sql: str
    answer: str  # the answer as written, between the markers


def questions(text: str) -> list[Question]:
    """The guide's questions in order: each heading's query and written answer."""
    found = []
    for match in BLOCK.finditer(text):
        title = text[: match.start()].rsplit("\n## ", 1)[-1].split("\n", 1)[0]
        found.append(Question(title, match.group("sql"), match.group("answer")))
    return found


def cell(value) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, float):
        return f"{value:g}" if abs(value) >= 1e-4 or value == 0 else repr(value)
    return str(value).replace("|", "\\|")


def answer_table(connection: duckdb.DuckDBPyConnection, sql: str) -> str:
    """What the query returns, as the Markdown table the guide shows."""
    cursor = connection.execute(sql)
    names = [description[0] for description in cursor.description]
    lines = ["| " + " | ".join(names) + " |", "|" + "|".join("---" for _ in names) + "|"]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in cursor.fetchall()]
    return "\n".join(lines) + "\n"


def rewritten(text: str, connection: duckdb.DuckDBPyConnection) -> str:
    def answer(match: re.Match) -> str:
        table = answer_table(connection, match.group("sql"))
        return (
            f"```sql\n{match.group('sql')}```\n\n<!-- answer -->\n"
            f"Answer over the bundled sample:\n\n{table}<!-- end answer -->\n"
        )

    return BLOCK.sub(answer, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=Path("runlens.duckdb"))
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when an answer differs")
    args = parser.parse_args(argv)
    if not args.db.is_file():
        print(f"runlens: no database at {args.db}: run `make sample` first, or pass --db", file=sys.stderr)
        return 2
    text = GUIDE.read_text(encoding="utf-8")
    with duckdb.connect(str(args.db), read_only=True) as connection:
        new = rewritten(text, connection)
    if args.check:
        if new != text:
            print(f"runlens: the answers in {GUIDE} differ from the marts: run scripts/query_guide.py", file=sys.stderr)
            return 1
        return 0
    GUIDE.write_text(new, encoding="utf-8")
    print(f"runlens: wrote {len(questions(new))} answers into {GUIDE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
