"""Token bitsets → the tensors the decode loop applies to logits, on the logits' device.

The engine hands out each state's mask as an int32 bitset (bit ``i % 32`` of word ``i // 32``
set when token ``i`` is allowed: the layout llguidance's and XGrammar's torch helpers take) and
knows no torch. Here a bitset becomes the bool tensor ``masked_fill`` wants — *blocked* tokens
True, and every logit past the vocabulary (padding rows of a wider head) blocked too:

* unpacked on the logits' device by a shift-and-and over the int32 words, so a GPU receives the
  6 KB bitset, not a 49 KB row of bools nor a list of ids (on the CPU numpy's ``unpackbits`` does
  the same job and torch shares its buffer);
* kept per (state, device, width), least recently used dropped past ``BYTES_MAX``: a state met
  again (most steps of a long output) costs a dict lookup, not an unpack.

No token-id list is built on the way: the bitset is cached by the engine per state, the tensor
here per state and device.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from gramwright.engine.matcher import GrammarEngine, Matcher

# Blocked-token tensors kept per engine (bytes of bool tensors): 64 MiB is ~1,300 states of a
# 49,152-token vocabulary, more than the states of a long generation.
BYTES_MAX = 64 << 20

_SHIFTS: dict[torch.device, torch.Tensor] = {}


def _shifts(device: torch.device) -> torch.Tensor:
    got = _SHIFTS.get(device)
    if got is None:
        got = _SHIFTS[device] = torch.arange(32, dtype=torch.int32, device=device)
    return got


def blocked_from_bitmask(words: npt.NDArray[np.int32], width: int, device: Any = None) -> torch.Tensor:
    """The bool tensor of ``width`` on ``device``, True where the bitset ``words`` has no bit
    (and past its end): what ``logits.masked_fill(blocked, value)`` takes."""
    dev = torch.device(device) if device is not None else torch.device("cpu")
    covered = min(width, words.size * 32)
    if dev.type == "cpu":
        allowed_np = np.unpackbits(words.view(np.uint8), bitorder="little")[:covered].view(bool)
        blocked = torch.from_numpy(~allowed_np)
    else:
        blocked = _unpack_on_device(words, covered, dev)
    if covered < width:
        blocked = torch.cat([blocked, torch.ones(width - covered, dtype=torch.bool, device=dev)])
    return blocked


def _unpack_on_device(words: npt.NDArray[np.int32], covered: int, dev: torch.device) -> torch.Tensor:
    """The first ``covered`` bits of ``words`` (one bitset, or one per row), inverted, computed on
    ``dev``: the 6 KB bitsets cross, then each word's 32 bits are shifted out and tested there."""
    packed = torch.from_numpy(words.astype(np.int32, copy=True)).to(dev, non_blocking=True)
    bits = (packed.unsqueeze(-1) >> _shifts(dev)) & 1
    return (bits == 0).flatten(-2)[..., :covered]


def blocked_rows(words: npt.NDArray[np.int32], width: int, device: torch.device) -> torch.Tensor:
    """The ``(rows, width)`` bool tensor, True where a row's bitset has no bit (and past its end),
    unpacked in one operation on ``device``: the batched loop's masks (``rows.fill_bitmask``)."""
    rows, count = words.shape
    covered = min(width, count * 32)
    if device.type == "cpu":
        allowed = np.unpackbits(words.view(np.uint8), axis=1, bitorder="little")[:, :covered]
        blocked = torch.from_numpy(allowed == 0)
    else:
        blocked = _unpack_on_device(words, covered, device)
    if covered < width:
        blocked = torch.cat(
            [blocked, torch.ones(rows, width - covered, dtype=torch.bool, device=device)], dim=1
        )
    return blocked


class TensorMasks:
    """Blocked-token tensors of one engine's states, per (state, device, width), bounded (see
    above). The states are the matcher's ``mask_state``s (a configuration, and the tokens left
    in the closing zone): one ``TensorMasks`` per engine."""

    def __init__(self, bytes_max: int = BYTES_MAX) -> None:
        self.bytes_max = bytes_max
        self._tensors: OrderedDict[tuple[int, int, torch.device, int], torch.Tensor] = OrderedDict()
        self._bytes = 0
        self.builds = 0  # tensors unpacked (a state met for the first time on a device)

    def blocked(self, matcher: Matcher, width: int, device: Any, budget: bool = True) -> torch.Tensor:
        """The matcher's current mask as a blocked-token tensor; raises EmptyMaskError (with a
        diagnosis) where no token is allowed, never a silent EOS. ``budget=False``: the engine's
        own mask, not narrowed by the matcher's token budget (``Matcher.fits`` decides then)."""
        words = matcher.bitmask(budget)
        dev = device if isinstance(device, torch.device) else torch.device(device or "cpu")
        # a stopped matcher (EOS consumed) allows nothing, whatever state it stopped in; in the
        # closing zone the mask depends on the tokens left too (``engine/budget.py``)
        key = (*matcher.mask_state(budget), dev, width)
        tensors = self._tensors
        got = tensors.get(key)
        if got is not None:
            tensors.move_to_end(key)
            return got
        got = blocked_from_bitmask(words, width, dev)
        self.builds += 1
        tensors[key] = got
        self._bytes += width
        while self._bytes > self.bytes_max and len(tensors) > 1:
            _, old = tensors.popitem(last=False)
            self._bytes -= old.numel()
        return got

    def clear(self) -> None:
        self._tensors.clear()
        self._bytes = 0


_PER_ENGINE: weakref.WeakKeyDictionary[GrammarEngine, TensorMasks] = weakref.WeakKeyDictionary()


def tensor_masks(engine: GrammarEngine) -> TensorMasks:
    """The engine's tensor masks: one per engine, alive as long as the engine (held weakly
    here), so requests on a shared engine reuse the tensors of states met before."""
    got = _PER_ENGINE.get(engine)
    if got is None:
        got = _PER_ENGINE[engine] = TensorMasks()  # holds no reference back to the engine
    return got
