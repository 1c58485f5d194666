"""How many threads torch computes with on the CPU, chosen on purpose, per forward pass.

torch's default is one intra-op (OpenMP) thread per core. A forward pass is a chain of matrix
products, each ending in a barrier where the threads wait for the slowest. Two things decide
whether a second thread pays:

- **How the waiting threads wait.** torch's OpenMP runtime (libgomp) lets a thread that reached
  a barrier spin for a long while before it sleeps. On a core that another process also wants,
  the spinning thread burns the time slice its partner needs: on 2 cores with one other busy
  process a decode step took 188 ms with two threads and 58 ms with one. With
  ``OMP_WAIT_POLICY=PASSIVE`` a waiting thread sleeps at once, and two threads there cost about
  what one does, while on a quiet machine they still take 0.55-0.8 of one thread's time
  (``bench/threads.py``; docs/throughput.md). libgomp reads the setting once, when torch loads
  it, so ``passive_waiting`` sets it before torch is imported (the CLI does so first thing;
  ``load_model`` too, which is in time where nothing imported torch before) and takes it out
  of the environment again once torch is loaded, so that child processes keep their defaults.
  Where torch was imported earlier, the thread count stays fixed; where the user set the
  variable, their choice stands (with ``active`` the free core is still lent as below).
- **What else wants the cores.** The base count leaves one core free (``cores - 1``, at least
  one) for other processes and for the worker thread that fills the next step's masks beside the
  forward pass (``decode/batch``). On a quiet machine that core idles most of the time (the masks
  take 2–4% of a batch's step), so there it is lent to torch for every pass — a prompt's
  prefill, a lone row's pass, a batch's step — and the mask worker shares the cores (sleeping
  waiters make that cheap). It is lent only while other processes leave it free:
  ``CoreMonitor`` reads how much of this process's cores the rest of the machine used since it
  last looked (``/proc/stat`` minus this process's own CPU time).

Who decides, first match wins: the ``threads`` option (``--threads``), ``OMP_NUM_THREADS`` (the
standard knob: a user or a job scheduler that set it is obeyed), then the policy above. The first
two fix the count for every pass. On a GPU the forward runs on the device; the setting still
bounds the host's share (sampling, masks).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path

# other processes' use of this process's cores, in cores, below which the core kept for masks is
# lent to torch: a busy neighbour shows up as ~1.0, a quiet machine's daemons as a few hundredths
IDLE_BELOW = 0.25


@dataclass(frozen=True)
class ThreadPolicy:
    threads: int  # torch intra-op threads: every pass (fixed) or the base count (adaptive)
    source: str  # "option" | "OMP_NUM_THREADS" | "default"
    most: int = 0  # threads a pass may use while the cores are free; 0: fixed

    @property
    def adaptive(self) -> bool:
        return self.most > self.threads

    def describe(self) -> str:
        if self.adaptive:
            return f"{self.threads}-{self.most} torch threads (default: {self.most} while the cores are free)"
        return f"{self.threads} torch thread{'s' if self.threads != 1 else ''} ({self.source})"


def available_cores() -> int:
    """The cores this process may run on: its CPU affinity, bounded by a cgroup CPU quota."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        cores = os.cpu_count() or 1
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            cores = min(cores, max(1, int(int(quota) // int(period))))
    except (OSError, ValueError):
        pass
    return max(1, cores)


def choose_threads(
    requested: int | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    cores: int | None = None,
    passive: bool = False,
) -> ThreadPolicy:
    """The thread count by the rules above. ``requested`` below 1 is refused (ValueError);
    an ``OMP_NUM_THREADS`` that is not a positive integer is ignored, as OpenMP ignores it.
    ``passive``: waiting threads sleep (``passive_waiting``) or the user chose how they wait;
    only then may the default lend the free core to torch."""
    if requested is not None:
        if requested < 1:
            raise ValueError(f"--threads must be at least 1, not {requested}")
        return ThreadPolicy(requested, "option")
    env = os.environ if environ is None else environ
    raw = env.get("OMP_NUM_THREADS", "").strip()
    if raw.isdigit() and int(raw) > 0:
        return ThreadPolicy(int(raw), "OMP_NUM_THREADS")
    count = cores if cores is not None else available_cores()
    base = max(1, count - 1)
    return ThreadPolicy(base, "default", most=count if passive and count > base else 0)


_PASSIVE: bool | None = None
_SET_HERE = False  # OMP_WAIT_POLICY was set by passive_waiting (and is unset once torch loaded)


def passive_waiting() -> bool:
    """Whether torch's OpenMP threads sleep when they wait. Before torch is imported in this
    process and when nobody set ``OMP_WAIT_POLICY``, makes it so (``apply_threads`` takes the
    variable out of the environment again once torch is loaded); afterwards it only tells."""
    global _PASSIVE, _SET_HERE
    if _PASSIVE is None:
        said = os.environ.get("OMP_WAIT_POLICY")
        if said is not None:
            _PASSIVE = said.strip().lower() == "passive"
        elif "torch" in sys.modules:
            _PASSIVE = False  # libgomp read its environment already: waiting threads spin
        else:
            os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
            _PASSIVE = _SET_HERE = True
    return _PASSIVE


def _busy_seconds(cpus: Collection[int], text: str, ticks: int) -> float:
    """Seconds the given CPUs spent busy (user, nice, system, irq, softirq, steal) by /proc/stat."""
    busy = 0
    for line in text.splitlines():
        name, _, rest = line.partition(" ")
        if not name.startswith("cpu") or not name[3:].isdigit() or int(name[3:]) not in cpus:
            continue
        fields = [int(x) for x in rest.split()]
        user, nice, system, _idle, _iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
        busy += user + nice + system + irq + softirq + steal
    return busy / ticks


@dataclass
class CoreMonitor:
    """How many of this process's cores other processes kept busy: the CPUs' busy time
    (``/proc/stat``) less this process's own CPU time, over the wall time between two looks.
    A look less than ``window_s`` after the last one returns the last answer (the kernel counts
    in 10 ms ticks)."""

    cpus: frozenset[int]
    read: Callable[[], str] = field(default=lambda: Path("/proc/stat").read_text())
    own: Callable[[], float] = time.process_time
    clock: Callable[[], float] = time.monotonic
    ticks: int = 100
    window_s: float = 0.25
    _last: tuple[float, float, float] | None = None
    _answer: float | None = None

    @classmethod
    def for_this_process(cls) -> CoreMonitor | None:
        """A monitor of this process's CPUs; None where ``/proc/stat`` cannot be read."""
        try:
            cpus = frozenset(os.sched_getaffinity(0))
            monitor = cls(cpus, ticks=os.sysconf("SC_CLK_TCK"))
            monitor.others()
        except (AttributeError, OSError, ValueError):
            return None
        return monitor

    def _sample(self) -> tuple[float, float, float]:
        return self.clock(), _busy_seconds(self.cpus, self.read(), self.ticks), self.own()

    def others(self) -> float | None:
        """Cores used by other processes since the last look (None on the first look)."""
        if self._last is not None and self.clock() - self._last[0] < self.window_s:
            return self._answer
        now = self._sample()
        if self._last is not None:
            wall = now[0] - self._last[0]
            elsewhere = (now[1] - self._last[1]) - (now[2] - self._last[2])
            self._answer = max(0.0, elsewhere / wall)
        self._last = now
        return self._answer


@dataclass
class Threads:
    """The per-pass thread count of one process: ``most`` while other processes leave the cores
    free, else the policy's base count."""

    policy: ThreadPolicy
    monitor: CoreMonitor | None = None

    def for_pass(self) -> int:
        if not self.policy.adaptive or self.monitor is None:
            return self.policy.threads
        others = self.monitor.others()
        return self.policy.most if others is not None and others < IDLE_BELOW else self.policy.threads

    def use(self) -> int:
        """Set torch's thread count for the next pass; returns it."""
        return _set_torch_threads(self.for_pass())

    def rest(self) -> None:
        """Back to the base count (between runs: a caller's own torch work gets what it had)."""
        _set_torch_threads(self.policy.threads)


def _set_torch_threads(count: int) -> int:
    import torch

    if torch.get_num_threads() != count:
        torch.set_num_threads(count)
    return count


_CURRENT: Threads | None = None


def apply_threads(requested: int | None = None) -> ThreadPolicy:
    """Choose (``choose_threads``) and set torch's intra-op thread count for this process; the
    generation loop asks ``current()`` per pass from then on."""
    global _CURRENT, _SET_HERE
    passive = passive_waiting()
    import torch  # noqa: F401  (loaded, so libgomp has read the wait policy)

    if _SET_HERE:  # read by now: child processes (a llama.cpp server, git) keep their defaults
        os.environ.pop("OMP_WAIT_POLICY", None)
        _SET_HERE = False

    # spinning waiters are the user's explicit choice where they set OMP_WAIT_POLICY=active (a
    # machine of their own): the free core is lent then too, and taken back under load as ever
    spin_chosen = os.environ.get("OMP_WAIT_POLICY", "").strip().lower() == "active"
    policy = choose_threads(requested, passive=passive or spin_chosen)
    _CURRENT = Threads(policy, CoreMonitor.for_this_process() if policy.adaptive else None)
    _CURRENT.rest()
    return policy


def current() -> Threads:
    """The process's per-pass thread counts: those ``apply_threads`` set up, else torch's count
    as it is, fixed (a model loaded without gramwright's loader)."""
    if _CURRENT is not None:
        return _CURRENT
    import torch

    return Threads(ThreadPolicy(torch.get_num_threads(), "torch"))
