"""Copy speculation's drafting (``decode/speculate.py``) and the cache's forgetting of rejected
draft positions (``KVRows.reject``); the verification against real greedy decoding is in
``test_batch_model.py``."""

from __future__ import annotations

import torch
from transformers import DynamicCache

from gramwright.decode.kv_rows import KVRows
from gramwright.decode.speculate import CopyDrafter

# a "file" in which the token pair (5, 6) occurs twice, followed by different lines
SOURCE = [1, 2, 5, 6, 10, 11, 12, 13, 3, 4, 5, 6, 20, 21, 22, 23, 24, 25]


def test_the_draft_is_what_followed_the_last_tokens_in_the_prompt() -> None:
    drafter = CopyDrafter(SOURCE, first_span=4)
    assert drafter.propose([99, 3, 4, 5, 6], limit=16) == [20, 21, 22, 23]
    assert drafter.propose([99, 3, 4, 5, 6], limit=2) == [20, 21]  # the budget's room
    assert drafter.propose([7, 8], limit=16) == []  # not in the prompt
    assert drafter.propose([6], limit=16) == []  # fewer tokens than the n-gram


def test_of_several_occurrences_the_one_agreeing_longest_with_the_output_wins() -> None:
    drafter = CopyDrafter(SOURCE, first_span=2)
    assert drafter.propose([1, 2, 5, 6], limit=16) == [10, 11]
    assert drafter.propose([4, 5, 6], limit=16) == [20, 21]
    assert drafter.propose([0, 5, 6], limit=16) == [10, 11]  # equals: the first


def test_a_one_token_pass_risks_a_span_only_where_it_is_likely_and_else_guesses_one_token() -> None:
    drafter = CopyDrafter(SOURCE, first_span=4, sure=4)
    # two tokens agree: a guess of one token, from that occurrence
    assert drafter.propose([0, 5, 6], limit=16, cheap=False) == [10] and drafter.guessing
    assert drafter.propose([2, 3, 4, 5, 6], limit=16, cheap=False) == [20, 21, 22, 23]
    assert not drafter.guessing
    assert drafter.propose([0, 5, 6], limit=16, cheap=True) == [10, 11, 12, 13]
    # the pair (9, 5) occurs nowhere: the guess follows the latest 5 alone
    assert drafter.propose([9, 5], limit=16, cheap=False) == [6] and drafter.guessing
    assert drafter.propose([9, 5], limit=16, cheap=True) == []  # a chunk anyway: no guessing
    assert drafter.propose([7, 99], limit=16, cheap=False) == []  # 99 occurs nowhere


def test_a_guess_leaves_the_span_alone_and_a_kept_one_continues_as_a_copy() -> None:
    drafter = CopyDrafter(SOURCE, first_span=4, sure=99)
    assert drafter.propose([9, 5], limit=16, cheap=False) == [6]
    drafter.verified(1, 0)  # wrong
    assert drafter.span == 4 and (drafter.drafts, drafter.drafted, drafter.accepted) == (1, 1, 0)
    assert drafter.propose([9, 5], limit=16, cheap=False) == [6]
    drafter.verified(1, 1)  # right, and the model chose 20 after it: the copy goes on
    assert drafter.span == 4
    assert drafter.propose([9, 5, 6, 20], limit=16, cheap=False) == [21, 22, 23, 24]
    assert not drafter.guessing


def test_the_span_grows_with_whole_drafts_and_the_copy_goes_on_where_it_was() -> None:
    drafter = CopyDrafter(SOURCE, first_span=2, max_span=8, min_span=2, sure=99)
    assert drafter.propose([4, 5, 6], limit=16) == [20, 21]
    drafter.verified(2, 2)  # both kept, and the model chose 22 after them
    assert drafter.span == 4
    # only two tokens agree with the first (5, 6) too, yet the copy in progress is followed
    assert drafter.propose([5, 6, 20, 21, 22], limit=16, cheap=False) == [23, 24, 25]
    drafter.verified(3, 1)
    assert drafter.span == 3 and (drafter.drafts, drafter.drafted, drafter.accepted) == (2, 5, 3)


def _cache(rows: int, columns: int) -> DynamicCache:
    cache = DynamicCache()
    for layer in range(2):
        keys = torch.arange(rows * columns, dtype=torch.float32).reshape(rows, 1, columns, 1)
        cache.update(keys, keys.clone(), layer)
    return cache


def test_rejected_positions_are_cropped_at_one_row_and_masked_in_a_shared_cache() -> None:
    kv = KVRows()
    kv.join(_cache(1, 5), 5)
    kv.chunk([[7, 8, 9, 10]], pad_id=0)  # a token and a 3-token draft: 9 columns once cached
    kv.cache = _cache(1, 9)
    kv.reject([2])  # the last two drafted positions were not kept
    assert kv.positions == [7] and kv.columns == 7
    assert kv.cache.layers[0].keys.shape[2] == 7 and kv.cache.layers[1].values.shape[2] == 7

    kv = KVRows()
    kv.join(_cache(1, 4), 4)
    kv.join(_cache(1, 4), 4)
    kv.chunk([[1, 2, 3], [4]], pad_id=0)
    kv.cache = _cache(2, 7)
    kv.reject([2, 0])
    # row 0's two rejected columns are masked; row 1 still reads its last column: nothing cut
    assert kv.positions == [5, 5] and kv.columns == 7
    assert kv.attention[0].tolist() == [1, 1, 1, 1, 1, 0, 0]
    assert kv.attention[1].tolist() == [1, 1, 1, 1, 0, 0, 1]
    kv.reject([0, 1])
    assert kv.columns == 5 and kv.positions == [5, 4]
    assert kv.attention.tolist() == [[1, 1, 1, 1, 1], [1, 1, 1, 1, 0]]


def test_the_output_so_far_is_searched_after_the_prompt() -> None:
    drafter = CopyDrafter([1, 2, 3], first_span=4)
    assert drafter.propose([0, 40, 41], limit=16) == []  # not in the prompt
    drafter.extend([40, 41, 42, 43, 44, 30, 40, 41])
    # the output's first (40, 41) is followed by 42 43 44 30; its last (40, 41), at the end of
    # the source, has no continuation and is not a candidate
    assert drafter.propose([30, 40, 41], limit=16) == [42, 43, 44, 30]
    drafter.extend([40, 41, 42, 43, 44, 30, 40, 41, 42])  # only what is new is appended
    assert drafter.source.tolist() == [1, 2, 3, 40, 41, 42, 43, 44, 30, 40, 41, 42]
    assert drafter.propose([41, 42], limit=3) == [43, 44, 30]
