"""Paired comparison of evaluation runs: the exact McNemar test and `compare_runs` on hand-made run folders."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from mobile_r1.core.errors import DataError
from mobile_r1.eval.compare import PairedTest, compare_runs, comparison_markdown, exact_mcnemar


def write_run(folder: Path, agent: str, verdicts: list[tuple[str, bool, str]],
              corrections: dict[str, int] | None = None) -> Path:
    """A run folder as `mobile-r1 eval --out` leaves it: run.json and one record per episode with its verdict
    (with `corrections`, each episode's count of steps back to a state the phone had left)."""
    folder.mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps({"agent": agent}), encoding="utf-8")
    extra = {} if corrections is None else {i: {"self_corrections": corrections.get(i, 0)} for i, _, _ in verdicts}
    lines = [json.dumps({"id": i, "verdict": {"episode_id": i, "success": ok, "inquiry": inquiry, "score": 4.0 * ok,
                                              **extra.get(i, {})}})
             for i, ok, inquiry in verdicts]
    (folder / "episodes.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def test_exact_mcnemar_is_the_two_sided_binomial_tail_of_the_discordant_pairs() -> None:
    assert exact_mcnemar(0, 7) == pytest.approx(2 / 2**7)  # all 7 discordant pairs one way
    assert exact_mcnemar(1, 9) == pytest.approx(2 * (1 + 10) / 2**10)
    assert exact_mcnemar(9, 1) == exact_mcnemar(1, 9)
    assert exact_mcnemar(4, 4) == 1.0 and exact_mcnemar(0, 0) == 1.0
    for b, c in [(2, 11), (5, 8), (0, 20)]:  # never below the one-sided tail, which it doubles
        one_sided = sum(math.comb(b + c, i) for i in range(min(b, c) + 1)) / 2 ** (b + c)
        assert exact_mcnemar(b, c) == pytest.approx(min(1.0, 2 * one_sided))
    with pytest.raises(ValueError):
        exact_mcnemar(-1, 3)


def test_paired_test_counts_only_the_episodes_where_the_runs_differ() -> None:
    test = PairedTest.of([True, True, False, False, False], [True, False, True, True, False])
    assert (test.base_only, test.other_only) == (1, 2)
    assert test.p == exact_mcnemar(1, 2)


def test_compare_runs_pairs_episodes_by_id_and_tests_each_run_against_the_first(tmp_path: Path) -> None:
    # e1, e2 need a question; e3, e4 do not. The base never succeeds and never asks; the other run asks on e1, e2,
    # completes e1 and e3, and asks needlessly on e4. The other run's records are written in another order.
    base = write_run(tmp_path / "base", "never-ask", [("e1", False, "missed"), ("e2", False, "missed"),
                                                       ("e3", False, "not_needed"), ("e4", False, "not_needed")])
    other = write_run(tmp_path / "other", "hf:m", [("e4", False, "over_asked"), ("e3", True, "not_needed"),
                                                   ("e2", False, "asked"), ("e1", True, "asked")])
    rows = compare_runs([base, other])
    assert [r.name for r in rows] == ["base", "other"] and rows[1].agent == "hf:m"
    assert rows[0].sr_test is None and rows[0].overall.sr.k == 0
    assert rows[1].overall.sr.k == 2 and rows[1].asked_where_needed.k == 2 and rows[1].asked_where_needed.n == 2
    assert (rows[1].sr_test.other_only, rows[1].sr_test.base_only) == (2, 0)
    # ISR: the other run gains e1 and e2 and loses e4
    assert (rows[1].isr_test.other_only, rows[1].isr_test.base_only) == (2, 1)
    assert (rows[1].asked_test.other_only, rows[1].asked_test.base_only) == (2, 0)
    table = comparison_markdown(compare_runs([base, other], ["untrained", "trained"]))
    assert "| trained | 2 of 4, 50.0% [15.0, 85.0] |" in table and "+2 / -0, p = 0.500" in table and "+2 / -1, p = 1.000" in table
    assert "asked vs untrained" in table and "| 2 of 2 |" in table


def test_the_ablation_table_counts_over_inquiry_where_no_question_is_needed_and_self_corrections(tmp_path: Path) -> None:
    # e1 needs a question; e2-e4 do not. The SFT-like run asks on e1 and needlessly on e2 and e3 and steps back
    # in e4; the other asks needlessly once (e2) and never steps back.
    sft = write_run(tmp_path / "sft", "a", [("e1", True, "asked"), ("e2", False, "over_asked"),
                                            ("e3", True, "over_asked"), ("e4", False, "not_needed")], {"e4": 2})
    rl = write_run(tmp_path / "rl", "b", [("e1", False, "missed"), ("e2", True, "over_asked"),
                                          ("e3", True, "not_needed"), ("e4", True, "not_needed")], {})
    rows = compare_runs([sft, rl], ["SFT only", "all three stages"])
    assert (rows[0].over_asked_where_not_needed.k, rows[0].over_asked_where_not_needed.n) == (2, 3)
    assert (rows[1].over_asked_where_not_needed.k, rows[1].over_asked_where_not_needed.n) == (1, 3)
    assert (rows[0].overall.self_correction.k, rows[1].overall.self_correction.k) == (1, 0)
    table = comparison_markdown(rows).split("95% Wilson intervals.")[1]
    # SR, ISR, asked where needed, over-inquiry where no question is needed, self-corrections
    assert ("| SFT only | 2 of 4, 50.0% [15.0, 85.0] | 2 of 4, 50.0% [15.0, 85.0] | 1 of 1, 100.0% [20.7, 100.0] | "
            "2 of 3, 66.7% [20.8, 93.9] | 1 of 4, 25.0% [4.6, 69.9] |") in table
    assert ("| all three stages | 3 of 4, 75.0% [30.1, 95.4] | 2 of 4, 50.0% [15.0, 85.0] | 0 of 1, 0.0% [0.0, 79.3] | "
            "1 of 3, 33.3% [6.1, 79.2] | 0 of 4, 0.0% [0.0, 49.0] |") in table
    # runs whose phone names no states have no self-corrections to count
    bare = write_run(tmp_path / "bare", "c", [("e1", True, "asked")])
    assert "| 1 of 1, 100.0% [20.7, 100.0] | - | - | 1 of 1," in comparison_markdown(compare_runs([bare, bare]))
    # Ask-F1 from the inquiry outcomes (these verdicts carry no timing): SFT asks 3 questions, 1 met the one need
    assert ("| 1 of 3, 33.3% [6.1, 79.2] | 1 of 1, 100.0% [20.7, 100.0] | - | - | 50.0% |") in table
    assert table.rstrip().endswith("| 0 of 1, 0.0% [0.0, 79.3] | 0 of 1, 0.0% [0.0, 79.3] | - | - | 0.0% |")


def test_compare_runs_refuses_runs_of_different_episodes(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a", "x", [("e1", True, "not_needed"), ("e2", False, "not_needed")])
    b = write_run(tmp_path / "b", "y", [("e1", True, "not_needed"), ("e3", False, "not_needed")])
    with pytest.raises(DataError, match="different episodes .*1 only in the base, 1 only in"):
        compare_runs([a, b])
    with pytest.raises(DataError, match="at least two"):
        compare_runs([a])
    with pytest.raises(DataError, match="2 names for 3"):
        compare_runs([a, a, a], ["one", "two"])
    c = write_run(tmp_path / "c", "z", [("e1", True, "missed"), ("e2", False, "not_needed")])
    with pytest.raises(DataError, match="needs a question in one run"):
        compare_runs([a, c])


def test_ask_f1_is_compared_with_a_paired_permutation_test(tmp_path: Path) -> None:
    # 20 episodes that need a question, 20 that do not: the base misses most needs and asks needlessly; the other asks
    # where needed and stays quiet where not
    base = [(f"n{i}", False, "asked" if i < 4 else "missed") for i in range(20)]
    base += [(f"c{i}", True, "over_asked" if i < 12 else "not_needed") for i in range(20)]
    better = [(f"n{i}", True, "asked" if i < 18 else "missed") for i in range(20)]
    better += [(f"c{i}", True, "over_asked" if i < 1 else "not_needed") for i in range(20)]
    a, b = write_run(tmp_path / "a", "x", base), write_run(tmp_path / "b", "y", better)
    test = compare_runs([a, b])[1].ask_f1_test
    assert test is not None and test.other > test.base and test.p < 0.01
    # 4 of 16 questions met a need, 4 of 20 needs asked: F1 = 2 * 0.25 * 0.2 / 0.45
    assert test.base == pytest.approx(2 * 0.25 * 0.2 / 0.45)
    same = compare_runs([a, write_run(tmp_path / "c", "z", base)])[1].ask_f1_test
    assert same is not None and same.p == 1.0 and same.base == same.other
    assert "Ask-F1 against `a`" in comparison_markdown(compare_runs([a, b]))
