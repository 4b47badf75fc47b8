"""The benchmark behind scripts/bench.py, one job a module.

datasets          the logs of each size (scripts/generate_sample.py), the appends and new runs of the
                  refreshes, files and lines counted
measure           the Meter: wall time and peak memory of a process, dbt run in a copied project, and
                  where the time of one build goes (run_results.json, `runlens build --timings`)
agreement         a baseline's per-run figures and collection rollup against the marts
simple_floor      the floor: one hand-written DuckDB query over the raw files
fair_floor        the fair floor (written separately)
pandas_baseline   the script a user would write today: json.loads per line, a DataFrame, groupby
fixed_cost        the installation every `runlens` command runs (project copy, cache folder, pinned
                  as-of time); the fixed cost: `runlens build` over 3 runs into a fresh database; the
                  plans later builds replay; a plain `dbt build` over the same runs
watch_refresh     a refresh inside `runlens watch` after one new file
make_sample       `make sample` from an empty database to rendered reports
fresh_clone_tests pytest on a fresh clone of the committed HEAD
other_engines     the same marts on PostgreSQL and Spark, checked against DuckDB's; Spark by size
one_size          one size end to end, every build `runlens build`
utilization       the utilization step: builds with and without samples, their floor, the refreshes
utilization_logs  its logs: runs of 6 h with samples of 8 GPUs and the host every 15 s, one file a run
utilization_floor its floor: one DuckDB query giving every interval's time-weighted mean GPU use
runner            the whole run: every step, the targets, the files written
targets           ratios and the target rows (figure, threshold, verdict)
machine           what the machine is
markdown          docs/benchmarks.md and benchmarks.json (utilization_markdown: its utilization section)
console           the summary printed at the end
formatting        numbers as the tables show them
"""
