"""One name, one figure (issue 49, point 4): every page figure with a given name equals every other
figure with that name on that page, or the two get two names. The names and the forms a figure is
read in are tests/support/page_figures.py's. Every golden page is held to it here; the golden
tests, which render every golden page from a real build (test_pages, test_shapes, test_goodput,
test_ranks, test_many_epochs), check each page they render the same way (golden_pages.py)."""

from __future__ import annotations

import pytest

from tests.support.golden_pages import GOLDEN_ROOT
from tests.support.page_figures import clashes, page_figures

GOLDEN_PAGES = sorted(path for path in GOLDEN_ROOT.rglob("*.md") if "_mismatches" not in path.parts)


def read(text: str) -> list[tuple[str, str, str, str]]:
    return [(figure.name, figure.measure, figure.subject, figure.text) for figure in page_figures(text)]


def test_a_sentence_gives_a_figure_after_its_name_before_it_and_of_it():
    page = (
        "- **Goodput: at most 87.3%** of 46.0 h of run time trained the model; the final tail 5.46 h,"
        " disruptions cost 23.2 min (20.0 min down, 3.20 min redone).\n"
        "- run time: 45.7 h over 38 runs (restart downtime left out)\n"
    )
    assert read(page) == [
        ("goodput", "share", "", "at most 87.3%"),
        ("run time", "total", "", "46.0 h"),
        ("final tail", "total", "", "5.46 h"),
        ("down", "total", "", "20.0 min"),
        ("redone", "total", "", "3.20 min"),
        ("run time", "total", "", "45.7 h"),
    ]


def test_a_name_inside_a_longer_name_is_the_longer_one_and_words_between_break_the_form():
    page = (
        "- mean final tail 9.10 min, mean tail share 12.5%\n"
        "- The final tail after the last epoch end takes 9.10 min on average.\n"
        "- 20.0 min down between sessions\n"
    )
    assert read(page) == [("mean final tail", "per run", "", "9.10 min"), ("mean tail share", "share", "", "12.5%")]


def test_a_table_gives_a_named_column_per_row_and_a_named_row_by_its_measure_column():
    page = (
        "| task | run time | productive | unattributed |\n"
        "|---|---:|---:|---:|\n"
        "| base_conversion | 51.6 h | 18.2% | 5.4% |\n"
        "\n"
        "| section | share of profiled wall time | total | mean per run |\n"
        "|---|---:|---:|---:|\n"
        "| train | 18.1% | 44.5 h | 111 min |\n"
        "| `unattributed` | 3.7% | 9.17 h | 22.9 min |\n"
    )
    assert read(page) == [
        ("run time", "total", "base_conversion", "51.6 h"),
        ("unattributed", "share", "base_conversion", "5.4%"),
        ("unattributed", "share", "", "3.7%"),
        ("unattributed", "total", "", "9.17 h"),
        ("unattributed", "per run", "", "22.9 min"),
    ]


def test_a_row_label_is_read_without_the_parenthesis_that_explains_it_and_a_mean_is_per_run():
    """The goodput buckets against the baseline give the final tail per run over every run (8.62
    min); the parts of the difference gave it as a mean over the analyzed runs (9.10 min) under the
    same name: the clash the sample's continuous-v3 page had."""
    page = (
        "| bucket | share here | per run here |\n|---|---:|---:|\n| final tail | 11.9% | 8.62 min |\n\n"
        "| part of each run | this collection | baseline |\n|---|---:|---:|\n"
        "| final tail (the final epoch end to run_end) | 9.10 min | 0 min |\n\n"
        "- mean final tail 9.10 min, 29.1 min in the slowest run\n"
    )
    assert read(page) == [
        ("final tail", "share", "", "11.9%"),
        ("final tail", "per run", "", "8.62 min"),
        ("final tail", "per run", "", "9.10 min"),
        ("mean final tail", "per run", "", "9.10 min"),
    ]
    assert len(clashes(page)) == 1
    assert clashes(page.replace("| final tail (the", "| mean final tail (the")) == []


def test_a_figure_before_a_name_that_is_a_unit_is_the_name_s():
    """goodput-a's page gave 3.60 GPU-hours (goodput's: every second of run time times GPUs) and
    "GPU-hours: 3.06" (the span's: active hours times GPUs)."""
    page = "- **Goodput: at most 51.7%** of 3.60 GPU-hours trained the model\n- GPU-hours: 3.06\n"
    assert [figure[:2] + figure[3:] for figure in read(page)] == [
        ("goodput", "share", "at most 51.7%"),
        ("GPU-hours", "number", "3.60"),
        ("GPU-hours", "number", "3.06"),
    ]
    assert len(clashes(page)) == 1
    assert clashes(page.replace("- GPU-hours: 3.06", "- active GPU-hours: 3.06")) == []


def test_figures_are_equal_when_their_printed_digits_allow_one_value():
    """328 min is 327.5 to 328.5 min, 5.46 h 327.3 to 327.9 min: one value can print as both."""
    same = "- the final tail 5.46 h\n\n| kind | total |\n|---|---:|\n| final tail | 328 min |\n"
    assert clashes(same) == []
    other = "- of 46.0 h of run time trained the model\n- run time: 45.7 h over 38 runs\n"
    assert clashes(other) == [
        "run time (total): '46.0 h' in line 1: - of 46.0 h of run time trained the model;"
        " '45.7 h' in line 2: - run time: 45.7 h over 38 runs"
    ]


def test_one_task_is_held_against_its_own_figures_only():
    page = "| task | run time |\n|---|---:|\n| a | 1.00 h |\n| b | 2.00 h |\n\n- run time: 3.00 h over 2 runs\n"
    assert clashes(page) == []


@pytest.mark.parametrize("path", GOLDEN_PAGES, ids=lambda path: str(path.relative_to(GOLDEN_ROOT)))
def test_every_golden_page_gives_one_figure_per_name(path):
    assert clashes(path.read_text(encoding="utf-8")) == []
