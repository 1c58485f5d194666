"""The cyclic garbage collector around cold mask computations: an application's opt-in.

A cold mask allocates many small objects that the engine keeps (memo tables, dict rows), and full
collections scanning millions of them cost up to ~0.4 s each (measured on the JSONSchemaBench mask
replay: with the collector paused during cold masks and the survivors frozen afterwards, the replay
total drops by about a third). But ``gc.freeze()`` is process-wide: cyclic garbage that exists at
that moment is never collected, whoever made it. So a library never does it behind its user's back:

* by default, ``cold_work()`` does nothing — the collector runs as the application set it;
* ``freeze_after_cold_masks()`` (the CLI's generation path calls it: one short process that owns
  its heap) turns on pausing the collector while a cold mask is computed and moving the objects
  alive then to the permanent generation afterwards (they live as long as the engine anyway);
  ``freeze_after_cold_masks(False)`` turns it off again. ``frozen_after_cold_masks()`` scopes it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_freeze = False


def freeze_after_cold_masks(enabled: bool = True) -> None:
    """Opt in (or out) of pausing the collector during cold masks and freezing afterwards."""
    global _freeze
    _freeze = enabled


def freezes_after_cold_masks() -> bool:
    return _freeze


@contextmanager
def frozen_after_cold_masks() -> Iterator[None]:
    """``freeze_after_cold_masks()`` for the duration of a block, restored afterwards."""
    was = _freeze
    freeze_after_cold_masks(True)
    try:
        yield
    finally:
        freeze_after_cold_masks(was)


class _ColdWork:
    """``cold_work``'s context (a class, not a generator: entered once per cold mask, where a
    generator-based context manager cost ~2 µs each)."""

    __slots__ = ("_was",)

    def __enter__(self) -> None:
        self._was: bool | None = None
        if _freeze:
            self._was = gc.isenabled()
            gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self._was is not None:
            gc.freeze()
            if self._was:
                gc.enable()


def cold_work() -> _ColdWork:
    """Around one cold mask computation: nothing unless the application opted in (see above)."""
    return _ColdWork()
