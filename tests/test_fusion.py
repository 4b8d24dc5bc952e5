"""Reciprocal rank fusion on rankings whose fused scores are computed here by hand."""

from __future__ import annotations

import pytest

from askai_graph.retrieval.fusion import reciprocal_rank_fusion


def test_an_item_both_rankings_hold_beats_the_top_of_one() -> None:
    # lexical: a b c      dense: b d a      k = 60
    # a = 1/61 + 1/63 = 0.032266   b = 1/62 + 1/61 = 0.032522
    # c = 1/63 = 0.015873          d = 1/62 = 0.016129
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["b", "d", "a"]], k=60)
    assert [item for item, _ in fused] == ["b", "a", "d", "c"]
    assert [round(score, 6) for _, score in fused] == [0.032522, 0.032266, 0.016129, 0.015873]


def test_a_small_constant_lets_one_ranking_s_top_item_win() -> None:
    # k = 1: a = 1/2 + 1/4 = 0.75 (top of one, 3rd of the other); b = 1/3 + 1/3 = 0.667
    fused = reciprocal_rank_fusion([["a", "b"], ["c", "b", "a"]], k=1)
    assert fused[0] == ("a", pytest.approx(0.75))
    assert fused[1] == ("b", pytest.approx(2 / 3))
    assert fused[2] == ("c", pytest.approx(0.5))


def test_equal_scores_keep_the_order_items_first_appear() -> None:
    # a and x are both rank 1 of one ranking: 1/61 each; the first ranking's comes first.
    assert [item for item, _ in reciprocal_rank_fusion([["a"], ["x"]], k=60)] == ["a", "x"]


def test_a_repeated_item_counts_once_per_ranking_at_its_best_rank() -> None:
    (only,) = reciprocal_rank_fusion([["a", "a", "a"]], k=60)
    assert only == ("a", pytest.approx(1 / 61))


def test_empty_rankings_fuse_to_nothing() -> None:
    assert reciprocal_rank_fusion([[], []]) == []


def test_a_constant_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        reciprocal_rank_fusion([["a"]], k=0)
