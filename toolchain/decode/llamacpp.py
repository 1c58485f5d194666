"""gramwright's masks inside llama.cpp: a logits processor for ``llama_cpp.Llama.generate``.

llama-cpp-python runs a Python logits processor as the first sampler of llama.cpp's chain (before
penalties, top-k/top-p and the draw), on the candidate array in token-id order. The processor
here blocks every token the engine's matcher refuses — with the token budget, so an output is
closed in time as in the transformers loop — and measures what the masking cost and the
probability mass it removed. Exceptions cannot cross llama.cpp's C callback, so one raised while
masking is kept and re-raised by the loop that drives ``generate``.

Numpy only: ``llama_cpp`` is imported by the caller (:mod:`gramwright.llamacpp_generation`).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from gramwright.engine.matcher import Matcher

__all__ = ["LlamaCppMasks", "MaskStep"]

MASK_VALUE = np.float32(-1e9)  # large and finite, as the transformers path masks
_KEEP = 4096  # blocked arrays kept per processor (a long generation meets far fewer states)


@dataclass
class MaskStep:
    mask_us: float
    clipped_mass: float
    closing: bool


@dataclass
class LlamaCppMasks:
    """Call it as llama-cpp-python calls a logits processor: ``(input_ids, logits) → logits``.
    The caller consumes each token drawn into ``matcher`` before asking for the next."""

    matcher: Matcher
    steps: list[MaskStep] = field(default_factory=list)
    error: BaseException | None = None
    _blocked: OrderedDict[tuple[int, int], npt.NDArray[np.bool_]] = field(default_factory=OrderedDict)

    def __call__(self, input_ids: Any, logits: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        try:
            t0 = time.perf_counter()
            blocked = self._blocked_now(int(logits.shape[0]))
            mask_us = (time.perf_counter() - t0) * 1e6
            mass = _clipped_mass(logits, blocked)
            logits[blocked] = MASK_VALUE
            closing = self.matcher.mask_state()[1] >= 0
            self.steps.append(MaskStep(mask_us, mass, closing))
        except Exception as exc:  # noqa: BLE001 - cannot cross the C callback: kept, re-raised by the loop
            self.error = self.error or exc
        return logits

    def _blocked_now(self, width: int) -> npt.NDArray[np.bool_]:
        state = self.matcher.mask_state()
        got = self._blocked.get(state)
        if got is not None and got.shape[0] == width:
            self._blocked.move_to_end(state)
            return got
        words = self.matcher.bitmask()
        allowed = np.unpackbits(words.view(np.uint8), bitorder="little")[:width].astype(bool)
        if allowed.shape[0] < width:  # logits past the vocabulary: never allowed
            allowed = np.concatenate([allowed, np.zeros(width - allowed.shape[0], dtype=bool)])
        if not allowed.any():
            self.matcher.allowed_token_ids()  # raises EmptyMaskError with the diagnosis
        blocked = ~allowed
        self._blocked[state] = blocked
        if len(self._blocked) > _KEEP:
            self._blocked.popitem(last=False)
        return blocked


def _clipped_mass(logits: npt.NDArray[np.float32], blocked: npt.NDArray[np.bool_]) -> float:
    """1 − Σ p(t) over allowed t under the unmasked distribution."""
    z = logits.astype(np.float64)
    z -= z.max()
    p = np.exp(z)
    total = p.sum()
    return float(p[blocked].sum() / total) if total > 0 else 0.0
