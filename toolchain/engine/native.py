"""Which mask core runs: the compiled one (``_native.c``) or the pure-Python reference.

The compiled module is built by the package's own build where a C compiler and the Python
headers are present (``setup.py``: an optional extension); without one the install still works
and the pure-Python engine runs. ``GRAMWRIGHT_PURE_PYTHON=1`` forces the Python engine where the
module is built (the reference run of the digests, and CI's second pass). Both cores compute the
same masks bit for bit (``tests/engine/test_native_core.py`` compares the digests of long replays).

``CORE`` is the module or None; ``core_name()`` says which runs (``gramwright --version``,
``cache info``).
"""

from __future__ import annotations

import os
from types import ModuleType

PURE_PYTHON_ENV = "GRAMWRIGHT_PURE_PYTHON"


def _load() -> tuple[ModuleType | None, str]:
    """The compiled module, or None with the reason the Python engine runs."""
    if os.environ.get(PURE_PYTHON_ENV, "").strip() not in ("", "0"):
        return None, f"{PURE_PYTHON_ENV} is set"
    try:
        from gramwright.engine import _native  # type: ignore[attr-defined]
    except ImportError:
        return None, "the compiled core was not built (no C compiler at install time)"
    return _native, "compiled"


CORE, WHY = _load()


def core_name() -> str:
    """``native`` or ``python``: which core computes masks in this process."""
    return "native" if CORE is not None else "python"


def core_line() -> str:
    """One line for a user: which core runs, and why the Python one where it does."""
    if CORE is not None:
        return "mask core: native (compiled C, GIL released, batches filled in parallel threads)"
    return f"mask core: python ({WHY})"
