"""The words the pages use for the marts' codes, in a researcher's terms (rules.md, "Words")."""

from __future__ import annotations

from datetime import datetime

from runlens.plural import plural

SOURCE_WORDS = {
    "event_log": "the event log's run_start and run_end",
    "profiler": "the in-process profiler",
    "mixed": "a mix of the event log and the profiler",
}
# how a run's time lost to its slowest rank was measured (def_ranks, lost_basis)
# what an abandoned run's silence was judged against (fct_run_live_status.abandon_threshold_basis)
ABANDON_BASIS_WORDS = {
    "task": "its task's longest completed run",
    "collection": "its collection's longest completed run (none of its task completed)",
    "no_completed_run": "the horizon alone (no run of its collection completed)",
    "horizon": "the horizon (shorter than its peers' longest run)",
    "stall_threshold": "its stall threshold (longer than its peers' longest run)",
}
RANK_BASIS_WORDS = {
    "arrival": "arrival at the markers",
    "busy_time": "the ranks' busy time",
}
# what each kind of interval usually holds (def_interval_kinds in models/marts/epochs/_epochs__docs.md)
KIND_WORDS = {
    "run_start -> checkpoint": "start-up and the first stretch of training, or training resumed after a restart",
    "run_start -> epoch_end": "start-up and a whole first epoch without a save",
    "run_start -> run_end": "a run without checkpoints or epoch ends",
    "checkpoint -> checkpoint": "training between two saves",
    "checkpoint -> epoch_end": "the rest of an epoch after a save",
    "checkpoint -> run_end": "the final stretch after the last save",
    "epoch_end -> checkpoint": "after an epoch end up to the next save: validation and saving where the framework "
    "validates, then saves",
    "epoch_end -> epoch_end": "a whole epoch without a save",
    "epoch_end -> run_end": "the final tail after the last epoch end",
    "... -> run_start": "from the last marker before a crash to the restart: the work after that marker, then the"
    " time down",
}
# the parts of a run's wall time (def_wall_time_parts), as a researcher would name them
PART_WORDS = {
    "opening_block": "start-up to the first checkpoint (run_start to the first marker)",
    "later_windows": "checkpoint to checkpoint, up to the final epoch end",
    "final_tail": "mean final tail (the final epoch end to run_end)",
    "other": "outside those (after the last marker, or a run without markers)",
}
# the profiler's rest as its table names it (def_profile_sections): not goodput's `unattributed`, which
# also holds the sections that map to no goodput bucket
SECTION_WORDS = {"unattributed": "in no section"}
# the same parts, as the interval sections' sentence and table name them
INSIDE_PART_WORDS = {
    "opening_block": "the opening block",
    "later_windows": "the later windows",
    "final_tail": "the final tail",
    "other": "the other intervals (no epoch end before them, no final tail)",
}
# an interval's time no profile stretch covers (fct_run_interval_sections)
INTERVAL_SECTION_WORDS = {**SECTION_WORDS, "unprofiled": "not profiled"}
# the goodput buckets (def_goodput in models/marts/goodput/_goodput__docs.md); `restarts` is down
# and redone together, what the restarts cost (lost work is no restart's)
GOODPUT_WORDS = {
    "productive": "productive training",
    "start_up": "start-up",
    "checkpoint_restore": "checkpoint restores",
    "checkpoint_save": "checkpoint saves",
    "evaluation": "evaluation",
    "data_loading": "data loading",
    "rank_waiting": "waiting for the slowest rank",
    "down": "down between sessions",
    "redone": "redone after a restart",
    "lost": "lost by runs that failed or were abandoned",
    "silent": "silent in stalled runs",
    "final_tail": "the final tail",
    "unattributed": "unattributed",
    "restarts": "disruptions",
}
# the goodput buckets as table columns
GOODPUT_COLUMNS = {
    "productive": "productive",
    "start_up": "start-up",
    "checkpoint_restore": "restores",
    "checkpoint_save": "saves",
    "evaluation": "evaluation",
    "data_loading": "data loading",
    "rank_waiting": "rank waiting",
    "down": "down",
    "redone": "redone",
    "lost": "lost",
    "silent": "silent",
    "final_tail": "final tail",
    "unattributed": "unattributed",
}
REASON_WORDS = {
    "failed": "failed",
    "incomplete": "incomplete (no run_end, no profiler wall time)",
    "clock_skew": "clock skew (run_end before run_start)",
    "no_run_start": "without run_start",
}


def time(instant: datetime | None) -> str:
    """A UTC timestamp to the minute: ``2025-03-10 13:08 UTC`` (``n/a`` when unknown)."""
    return "n/a" if instant is None else instant.strftime("%Y-%m-%d %H:%M UTC")


def peer_words(peer_set: str, peer_runs: int) -> str:
    """Which completed runs a live run's estimate comes from (fct_run_live_status.peer_set)."""
    if peer_set == "task":
        return f"{plural(peer_runs, 'completed run')} of its task"
    if peer_set == "collection":
        return f"{plural(peer_runs, 'completed run')} of the collection"
    return "no completed run at its marker"
