"""The generated logs of sections on the timeline (issue 49) in tests/generated/timeline.

`python -m tests.support.timeline_fixture` writes them again (they are committed, so the parity test and
tests/pipeline/test_timeline_sections.py read the same files). Every run writes cumulative profiles, as the
writer does, so what each section took between two profiles is known; each figure the tests expect is
worked out by hand below (collection timeline-a, 1 GPU per run; times are seconds after the run's start;
a stretch is the time from one profile to the next, or from the session's run_start to its first profile).

- `steady`: run_start 0, train_start 10; profiles at 60 (train_step 40, data_loading 5), 110 (80, 10,
  checkpoint_save 5), 160 (120, 15, 5), 210 (160, 20, 5) and 270 (160, 20, 10, eval 40); checkpoint 100
  at 110, epoch_end (step 200) at 210, run_end at 270. Stretches: [0, 60] train 40, data 5; [60, 110]
  train 40, data 5, save 5; [110, 160] and [160, 210] train 40, data 5 each; [210, 270] save 5, eval 40.
  Intervals: run_start -> step_100 [0, 110]: train 80, data 10, save 5, in no section 15;
  step_100 -> epoch_end [110, 210]: train 80, data 10, in no section 10; epoch_end -> run_end
  [210, 270]: save 5, eval 40, in no section 15. Goodput: start-up 10; the final tail 60 holds the
  save and the eval timed in it (not carved from training again); kept training [10, 210] = 200:
  save 5, data loading 20, productive 160, unattributed 15.
- `crashy`: run_start 0, train_start 10 (step 0); checkpoint 100 at 100 and profile (train 80);
  profile at 150 (120); checkpoint 200 at 200 and profile (160, save 10); profiles at 250 (200, 10)
  and 270 (216, 10); a crash. run_start at 300 (down 30); its checkpoint 200 is unreadable, so
  train_start at 320 names step 100: the training from 100 to 270 is redone (170). The writer carries
  its totals over the resume: profiles at 400 (wall 370: train 276, save 10, restore 15), checkpoint 200
  again at 420 with a profile (296, save 15), 500 (356) with epoch_end (step 300), and the final
  profile at 520 (eval 10) with run_end. Stretches: [0, 100] train 80 (kept); [100, 150], [150, 200]
  (save 10), [200, 250], [250, 270]: train 40, 40, 40, 16, in the redone stretch; [300, 400] (carried
  over: wall 370 is 270 + the 100 s since the run_start) train 60 and restore 15 (start-up
  [300, 320]); [400, 420] train 20, save 5; [420, 500] train 60; [500, 520] eval 10 (the final tail).
  Goodput: start-up 10 + 20 less restore 15 = 15, restore 15, kept training 90 + 180 = 270: save 5,
  productive 80 + 60 + 20 + 60 = 220, unattributed 45; redone 170, down 30, final tail 20.
  Intervals (the crash's step_200 -> run_start is downtime, none): [0, 100] train 80, in no section
  20; [100, 200] train 80, save 10, in no section 10; [300, 420] train 80, restore 15, save 5, in no
  section 20; [420, 500] train 60, in no section 20; [500, 520] eval 10, in no section 10.
- `failing`: run_start 0, train_start 5; checkpoint 10 at 50 with a profile (train 40), a profile at
  100 (80), the final profile at 130 (100, eval 10) and run_end `failed: RuntimeError`, never
  resumed: lost [50, 130] = 80 (the train and eval timed there are inside it); start-up 5, kept
  training [5, 50] = 45: productive 40, unattributed 5. Intervals: [0, 50] train 40, in no section
  10; step_10 -> run_end [50, 130]: train 60, eval 10, in no section 10.
- `stuck`: starts 1150 s before the as-of time, train_start 10, checkpoint 100 at 100 with a profile
  (train 80), a profile at 150 (120), then silent for 1000 s: stalled (its task has no completed
  run; the collection's runs that passed step_100 took 100 s for the next interval, so the
  600 s minimum holds; it is short of the abandon threshold, `long`'s 2000 s): start-up 10, kept
  training [10, 150] = 140: productive 120, unattributed 20; silent 1000. Intervals: [0, 100] train
  80, in no section 20.
- `long`: run_start 0, checkpoint 5000 at 1000, one final profile at 2000 (train 1500, eval 300) and
  run_end: one profile places nothing on the timeline, so today's rule holds: its sections are
  carved from its training time (2000, no train_start: start-up unmeasured), evaluation 300,
  productive 1500, unattributed 200; no interval sections.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.support.goodput_fixture import run_lines, write_folder

FOLDER = Path(__file__).parents[1] / "generated" / "timeline"
BASE = datetime(2025, 3, 2, tzinfo=UTC)
AS_OF = datetime(2025, 3, 10, 12, tzinfo=UTC)  # the sample's as-of time, which every test build uses
COLLECTION = "timeline-a"


def starts(task: str) -> dict:
    return {"collection": COLLECTION, "task": task, "resources": {"gpus": 1}}


def profile(wall: float, final: bool = False, **sections: float) -> dict:
    return {"wall_seconds": wall, "sections": sections, "final": final}


def steady() -> list[str]:
    return run_lines(
        "steady",
        BASE,
        [
            (0, "run_start", starts("steady")),
            (10, "train_start", {"step": 0}),
            (60, "profile", profile(60, train_step=40, data_loading=5)),
            (110, "checkpoint", {"step": 100}),
            (110, "profile", profile(110, train_step=80, data_loading=10, checkpoint_save=5)),
            (160, "profile", profile(160, train_step=120, data_loading=15, checkpoint_save=5)),
            (210, "epoch_end", {"epoch": 0, "step": 200}),
            (210, "profile", profile(210, train_step=160, data_loading=20, checkpoint_save=5)),
            (270, "profile", profile(270, True, train_step=160, data_loading=20, checkpoint_save=10, eval=40)),
            (270, "run_end", {"status": "completed"}),
        ],
    )


def crashy() -> list[str]:
    return run_lines(
        "crashy",
        BASE + timedelta(hours=1),
        [
            (0, "run_start", starts("crashy")),
            (10, "train_start", {"step": 0}),
            (100, "checkpoint", {"step": 100}),
            (100, "profile", profile(100, train_step=80)),
            (150, "profile", profile(150, train_step=120)),
            (200, "checkpoint", {"step": 200}),
            (200, "profile", profile(200, train_step=160, checkpoint_save=10)),
            (250, "profile", profile(250, train_step=200, checkpoint_save=10)),
            (270, "profile", profile(270, train_step=216, checkpoint_save=10)),
            (300, "run_start", starts("crashy")),
            (320, "train_start", {"step": 100}),
            (400, "profile", profile(370, train_step=276, checkpoint_save=10, restore=15)),
            (420, "checkpoint", {"step": 200}),
            (420, "profile", profile(390, train_step=296, checkpoint_save=15, restore=15)),
            (500, "epoch_end", {"epoch": 0, "step": 300}),
            (500, "profile", profile(470, train_step=356, checkpoint_save=15, restore=15)),
            (520, "profile", profile(490, True, train_step=356, checkpoint_save=15, restore=15, eval=10)),
            (520, "run_end", {"status": "completed"}),
        ],
    )


def failing() -> list[str]:
    return run_lines(
        "failing",
        BASE + timedelta(hours=2),
        [
            (0, "run_start", starts("failing")),
            (5, "train_start", {"step": 0}),
            (50, "checkpoint", {"step": 10}),
            (50, "profile", profile(50, train_step=40)),
            (100, "profile", profile(100, train_step=80)),
            (130, "profile", profile(130, True, train_step=100, eval=10)),
            (130, "run_end", {"status": "failed: RuntimeError"}),
        ],
    )


def stuck() -> list[str]:
    return run_lines(
        "stuck",
        AS_OF - timedelta(seconds=1150),
        [
            (0, "run_start", starts("stuck")),
            (10, "train_start", {"step": 0}),
            (100, "checkpoint", {"step": 100}),
            (100, "profile", profile(100, train_step=80)),
            (150, "profile", profile(150, train_step=120)),
        ],
    )


def long() -> list[str]:
    return run_lines(
        "long",
        BASE + timedelta(hours=3),
        [
            (0, "run_start", starts("long")),
            (1000, "checkpoint", {"step": 5000}),
            (2000, "profile", profile(2000, True, train_step=1500, eval=300)),
            (2000, "run_end", {"status": "completed"}),
        ],
    )


def files() -> dict[str, list[str]]:
    return {
        "steady.jsonl": steady(),
        "crashy.jsonl": crashy(),
        "failing.jsonl": failing(),
        "stuck.jsonl": stuck(),
        "long.jsonl": long(),
    }


def write(folder: Path = FOLDER) -> None:
    write_folder(folder, files(), COLLECTION, "Timeline")


if __name__ == "__main__":
    write()
