"""The CPU thread policy (``models/threads.py``): option, then OMP_NUM_THREADS, then one core free —
lent to torch while other processes leave it free, where waiting threads sleep."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from gramwright.models.threads import (
    CoreMonitor,
    ThreadPolicy,
    Threads,
    apply_threads,
    available_cores,
    choose_threads,
)


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


# --- per pass: the free core lent to torch while the machine leaves it free ---


def test_the_default_lends_the_free_core_only_where_waiting_threads_sleep() -> None:
    passive = choose_threads(None, environ={}, cores=2, passive=True)
    assert (passive.threads, passive.most, passive.adaptive) == (1, 2, True)
    assert "1-2 torch threads" in passive.describe()
    spinning = choose_threads(None, environ={}, cores=2, passive=False)
    assert (spinning.threads, spinning.adaptive) == (1, False)
    assert not choose_threads(None, environ={}, cores=1, passive=True).adaptive  # nothing to lend


def test_an_option_or_omp_num_threads_fixes_the_count_for_every_pass() -> None:
    assert not choose_threads(2, environ={}, cores=4, passive=True).adaptive
    assert not choose_threads(None, environ={"OMP_NUM_THREADS": "1"}, cores=4, passive=True).adaptive


def _stat(busy0: int, busy1: int, idle: int = 0) -> str:
    # /proc/stat: ticks of user nice system idle iowait irq softirq steal per CPU
    return (
        f"cpu  {busy0 + busy1} 0 0 {2 * idle} 0 0 0 0 0 0\n"
        f"cpu0 {busy0} 0 0 {idle} 0 0 0 0 0 0\n"
        f"cpu1 {busy1} 0 0 {idle} 0 0 0 0 0 0\n"
        "intr 12345 0 0\nctxt 999\n"
    )


class _Machine:
    """A scripted /proc/stat, process CPU clock and wall clock."""

    def __init__(self) -> None:
        self.wall = 100.0
        self.own = 5.0
        self.busy = [1000, 1000]

    def run(self, seconds: float, own_cores: float, other_cores: float) -> None:
        self.wall += seconds
        self.own += own_cores * seconds
        total = (own_cores + other_cores) * seconds * 100  # ticks
        self.busy[0] += round(total / 2)
        self.busy[1] += round(total / 2)

    def monitor(self, cpus: frozenset[int] = frozenset({0, 1})) -> CoreMonitor:
        return CoreMonitor(
            cpus,
            read=lambda: _stat(*self.busy),
            own=lambda: self.own,
            clock=lambda: self.wall,
        )


def test_the_monitor_counts_other_processes_not_this_one() -> None:
    machine = _Machine()
    monitor = machine.monitor()
    assert monitor.others() is None  # nothing to compare with yet
    machine.run(2.0, own_cores=1.0, other_cores=0.0)  # our own decoding, a quiet machine
    assert monitor.others() == pytest.approx(0.0, abs=0.01)
    machine.run(2.0, own_cores=1.0, other_cores=1.0)  # a busy neighbour
    assert monitor.others() == pytest.approx(1.0, abs=0.01)


def test_the_monitor_answers_again_within_its_window_and_reads_only_its_cpus() -> None:
    machine = _Machine()
    monitor = machine.monitor()
    monitor.others()
    machine.run(1.0, own_cores=0.0, other_cores=0.6)
    first = monitor.others()
    machine.run(0.1, own_cores=0.0, other_cores=2.0)  # too short a window to tell
    assert monitor.others() == first
    only_cpu0 = machine.monitor(frozenset({0}))
    only_cpu0.others()
    machine.run(1.0, own_cores=0.0, other_cores=1.0)
    assert only_cpu0.others() == pytest.approx(0.5, abs=0.01)  # half of the load was on cpu1


def _threads(others: float | None) -> Threads:
    machine = _Machine()
    monitor = machine.monitor()
    monitor.others()
    if others is not None:
        machine.run(1.0, own_cores=1.0, other_cores=others)
    return Threads(ThreadPolicy(1, "default", most=2), monitor)


def test_every_pass_takes_the_free_core_on_a_quiet_machine() -> None:
    assert _threads(0.05).for_pass() == 2


def test_a_busy_neighbour_or_no_reading_keeps_the_base_count() -> None:
    assert _threads(1.0).for_pass() == 1
    assert _threads(0.3).for_pass() == 1
    assert _threads(None).for_pass() == 1  # no reading yet
    assert Threads(ThreadPolicy(1, "default", most=2), None).for_pass() == 1
    assert Threads(ThreadPolicy(3, "option")).for_pass() == 3


def test_the_lending_follows_the_machine_from_look_to_look() -> None:
    machine = _Machine()
    lent = Threads(ThreadPolicy(1, "default", most=2), machine.monitor())
    lent.for_pass()
    counts = []
    for others in (0.0, 1.0, 1.0, 0.0):
        machine.run(0.5, own_cores=1.0, other_cores=others)
        counts.append(lent.for_pass())
    assert counts == [2, 1, 1, 2]


def test_the_monitor_reads_this_machine() -> None:
    monitor = CoreMonitor.for_this_process()
    if monitor is None:
        pytest.skip("no /proc/stat here")
    import time

    time.sleep(monitor.window_s + 0.05)
    others = monitor.others()
    assert others is not None and others >= 0.0


def _fresh(code: str, env: dict[str, str]) -> str:
    import os

    environ = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "OMP_NUM_THREADS")}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env={**environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout.strip()


def test_waiting_threads_are_told_to_sleep_before_torch_loads_and_children_keep_their_defaults() -> None:
    out = _fresh(
        """
        import os
        from gramwright.models.threads import apply_threads, passive_waiting
        print(passive_waiting(), os.environ.get("OMP_WAIT_POLICY"))
        policy = apply_threads()
        print(os.environ.get("OMP_WAIT_POLICY"), policy.source)
        """,
        {},
    )
    assert out.splitlines() == ["True PASSIVE", "None default"]


@pytest.mark.parametrize(
    ("setup", "env", "expected"),
    [
        ("import torch", {}, "False"),  # too late: libgomp read its environment already
        ("", {"OMP_WAIT_POLICY": "active"}, "False"),  # the user's choice stands (and lends)
        ("", {"OMP_WAIT_POLICY": "passive"}, "True"),
    ],
)
def test_a_wait_policy_decided_elsewhere_stands(setup: str, env: dict[str, str], expected: str) -> None:
    out = _fresh(
        f"""
        {setup}
        import os
        from gramwright.models.threads import apply_threads, passive_waiting
        print(passive_waiting(), apply_threads().adaptive or None, os.environ.get("OMP_WAIT_POLICY"))
        """,
        env,
    )
    passive, adaptive, left = out.split()
    assert passive == expected
    assert left == env.get("OMP_WAIT_POLICY", "None")  # never changed where not set here
    if setup:
        assert adaptive == "None"  # threads spinning by default: the count stays fixed
    elif available_cores() > 1:
        assert adaptive == "True"  # sleeping waiters, or spinning ones the user chose
