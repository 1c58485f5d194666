"""``BatchRun``'s full-batch throughput: only the decode steps with every slot busy count."""

from gramwright.decode.batch import BatchRun


def test_full_batch_tokens_per_s_counts_only_full_steps() -> None:
    run = BatchRun([], batch_size=4)
    run.decode_steps = [(4, 4, 0.5), (4, 6, 0.5), (3, 3, 1.0), (1, 1, 2.0)]
    assert run.full_batch_tokens_per_s() == 10.0  # (4 + 6) tokens over 1 s
    assert run.summary()["full_batch_steps"] == 2


def test_full_batch_tokens_per_s_is_zero_without_a_full_step() -> None:
    run = BatchRun([], batch_size=8)
    run.decode_steps = [(3, 3, 1.0)]
    assert run.full_batch_tokens_per_s() == 0.0
