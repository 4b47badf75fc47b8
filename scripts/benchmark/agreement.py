"""Agreement with the marts: a baseline's per-run figures (wall and tail seconds, collection,
is_analyzed) against fct_runs, and its collection rollup (runs analyzed, mean and median wall)
against agg_collection_runtime, to TOLERANCE_S. Mismatches are counted and shown, never hidden."""

from __future__ import annotations

from pathlib import Path

TOLERANCE_S = 1e-6


def compare_with_marts(connection, runs_table: str, collections_table: str, marts_db: Path) -> dict:
    """Compare a candidate's per-run figures and rollup with fct_runs and agg_collection_runtime."""
    connection.execute(f"attach '{marts_db}' as marts (read_only)")

    def differs(a: str, b: str) -> str:
        return f"not ({a} is null and {b} is null or abs({a} - {b}) <= {TOLERANCE_S})"

    runs = connection.execute(f"""
        select
            count(*) filter (where m.run_id is not null and c.run_id is not null) as runs_compared,
            count(*) filter (where c.run_id is null) as missing_in_candidate,
            count(*) filter (where m.run_id is null) as extra_in_candidate,
            count(*) filter (where {differs("c.wall_seconds", "m.wall_seconds")}) as wall_mismatches,
            count(*) filter (where {differs("c.tail_seconds", "m.tail_seconds")}) as tail_mismatches,
            count(*) filter (where c.is_analyzed is distinct from m.is_analyzed) as analyzed_mismatches,
            count(*) filter (where c.collection is distinct from m.collection) as collection_mismatches,
            max(abs(c.wall_seconds - m.wall_seconds)) as max_wall_difference
        from {runs_table} as c
        full outer join marts.fct_runs as m on c.run_id = m.run_id
    """).fetchone()
    names = (
        "runs_compared missing_in_candidate extra_in_candidate wall_mismatches tail_mismatches "
        "analyzed_mismatches collection_mismatches max_wall_difference"
    ).split()
    check = dict(zip(names, runs, strict=True))
    examples = connection.execute(f"""
        select coalesce(c.run_id, m.run_id), c.wall_seconds, m.wall_seconds, c.tail_seconds, m.tail_seconds,
               c.is_analyzed, m.is_analyzed
        from {runs_table} as c
        full outer join marts.fct_runs as m on c.run_id = m.run_id
        where c.run_id is null or m.run_id is null
            or {differs("c.wall_seconds", "m.wall_seconds")} or {differs("c.tail_seconds", "m.tail_seconds")}
            or c.is_analyzed is distinct from m.is_analyzed or c.collection is distinct from m.collection
        order by 1
        limit 5
    """).fetchall()
    collections = connection.execute(f"""
        select
            coalesce(c.collection, m.collection) as collection,
            c.runs_analyzed, m.runs_analyzed,
            c.mean_wall_seconds, m.mean_wall_seconds,
            c.median_wall_seconds, m.median_wall_seconds
        from {collections_table} as c
        full outer join (select * from marts.agg_collection_runtime where runs_analyzed > 0) as m
            on c.collection = m.collection
        order by 1
    """).fetchall()
    collection_rows, collection_mismatches = [], 0
    for name, c_runs, m_runs, c_mean, m_mean, c_median, m_median in collections:
        ok = (
            c_runs == m_runs
            and c_mean is not None
            and m_mean is not None
            and abs(c_mean - m_mean) <= TOLERANCE_S
            and c_median is not None
            and m_median is not None
            and abs(c_median - m_median) <= TOLERANCE_S
        )
        collection_mismatches += not ok
        collection_rows.append(
            {
                "collection": name,
                "runs_analyzed": [c_runs, m_runs],
                "mean_wall_seconds": [c_mean, m_mean],
                "median_wall_seconds": [c_median, m_median],
                "agrees": ok,
            }
        )
    connection.execute("detach marts")
    check["rollup_mismatches"] = collection_mismatches
    check["collections"] = collection_rows
    check["examples"] = [[str(value) for value in row] for row in examples]
    check["ok"] = (
        check["missing_in_candidate"] == 0
        and check["extra_in_candidate"] == 0
        and check["wall_mismatches"] == 0
        and check["tail_mismatches"] == 0
        and check["analyzed_mismatches"] == 0
        and check["collection_mismatches"] == 0
        and collection_mismatches == 0
        and bool(collection_rows)
    )
    return check
