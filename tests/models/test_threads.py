"""The CPU thread policy (``models/threads.py``): option, then OMP_NUM_THREADS, then one core free."""

from __future__ import annotations

import pytest

from gramwright.models.threads import apply_threads, choose_threads


def test_the_option_wins_over_the_environment() -> None:
    policy = choose_threads(3, environ={"OMP_NUM_THREADS": "5"}, cores=8)
    assert (policy.threads, policy.source) == (3, "option")


def test_omp_num_threads_is_obeyed_when_no_option_is_given() -> None:
    policy = choose_threads(None, environ={"OMP_NUM_THREADS": "5"}, cores=2)
    assert (policy.threads, policy.source) == (5, "OMP_NUM_THREADS")


@pytest.mark.parametrize("raw", ["", "0", "two", "-1"])
def test_an_unusable_omp_num_threads_is_ignored(raw: str) -> None:
    assert choose_threads(None, environ={"OMP_NUM_THREADS": raw}, cores=2).source == "default"


@pytest.mark.parametrize(("cores", "threads"), [(1, 1), (2, 1), (4, 3), (16, 15)])
def test_the_default_leaves_one_core_free(cores: int, threads: int) -> None:
    policy = choose_threads(None, environ={}, cores=cores)
    assert (policy.threads, policy.source) == (threads, "default")


def test_a_thread_count_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        choose_threads(0, environ={})


def test_apply_sets_torchs_thread_count() -> None:
    import torch

    before = torch.get_num_threads()
    try:
        assert apply_threads(1).threads == 1
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)
