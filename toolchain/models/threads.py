"""How many threads torch computes with on the CPU, chosen once per process, on purpose.

torch's default is one intra-op (OpenMP) thread per core. A decode step of a 135M model is a
chain of small matrix-vector products: split over every core, each product ends in a barrier
where the threads wait for the slowest, and a core that another process (or our own mask worker,
``decode/batch``) holds makes every barrier wait for it. On 2 cores with one other busy
process a step took 188 ms with two threads and 58 ms with one; under a load average of 17, 2.9 s
and 1.2 s (``bench/threads.py`` measures it; ``docs/throughput.md``). So the default leaves one core
free: ``cores - 1`` threads, at least one — on 2 cores one thread for torch and one core for the
masks computed beside it.

Who decides, first match wins: the ``threads`` option (``--threads``), ``OMP_NUM_THREADS`` (the
standard knob: a user or a job scheduler that set it is obeyed), then the default above. On a GPU
the forward runs on the device; the setting still bounds the host's share (sampling, masks).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class ThreadPolicy:
    threads: int  # torch intra-op threads
    source: str  # "option" | "OMP_NUM_THREADS" | "default"

    def describe(self) -> str:
        return f"{self.threads} torch thread{'s' if self.threads != 1 else ''} ({self.source})"


def choose_threads(
    requested: int | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    cores: int | None = None,
) -> ThreadPolicy:
    """The thread count by the rules above. ``requested`` below 1 is refused (ValueError);
    an ``OMP_NUM_THREADS`` that is not a positive integer is ignored, as OpenMP ignores it."""
    if requested is not None:
        if requested < 1:
            raise ValueError(f"--threads must be at least 1, not {requested}")
        return ThreadPolicy(requested, "option")
    env = os.environ if environ is None else environ
    raw = env.get("OMP_NUM_THREADS", "").strip()
    if raw.isdigit() and int(raw) > 0:
        return ThreadPolicy(int(raw), "OMP_NUM_THREADS")
    count = cores if cores is not None else (os.cpu_count() or 1)
    return ThreadPolicy(max(1, count - 1), "default")


def apply_threads(requested: int | None = None) -> ThreadPolicy:
    """Choose (``choose_threads``) and set torch's intra-op thread count for this process."""
    import torch

    policy = choose_threads(requested)
    if torch.get_num_threads() != policy.threads:
        torch.set_num_threads(policy.threads)
    return policy
