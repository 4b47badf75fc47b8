"""Building the marts: the crash-safe build (build.py) and its closing lines (build_summary/), dbt in
this process (dbt_session.py), dbt's recorded plan run again (dbt_build.py, plan.py, plan_runner.py),
the database attached when dbt connects (database.py), the build's lock (file_lock.py), Ctrl-C and
SIGTERM (stopping.py), where the dbt project is (project.py) and the watch's loop (watch.py)."""
