"""The batched loop's KV cache as rows that join and leave: one ``transformers`` dynamic cache
whose batch rows are requests, with a 0/1 attention column per cached position and row. Its
layers append in place (``GrowingLayer``) rather than by copying the cache at every pass.

A request joins with its prompt prefilled on its own (the forward pass a request alone makes,
so its first logits are the same as alone), and its keys and values are
copied into a new row of the shared cache, right-aligned: the columns before its prompt are
zeros and masked out. Keys carry their rotary positions already, so each row keeps its own
position count and the model is given ``position_ids`` per row. A row that ends is dropped from
the batch dimension; columns that no row attends to any more are dropped too, so the cache does
not grow with every request that ever joined.
"""

from __future__ import annotations

from typing import Any

import torch
from transformers.cache_utils import DynamicCache, DynamicLayer


class GrowingLayer(DynamicLayer):  # type: ignore[no-untyped-call]
    """A dynamic cache layer that appends in place. transformers' ``DynamicLayer`` appends a pass's
    keys and values by concatenation, copying the whole cache in every layer at every pass (at
    1,500 cached tokens about a seventh of a one-token pass of the embedded model on a CPU). Here
    ``keys`` and ``values`` are views of the first positions of buffers with room to spare, and a
    pass writes after them. Whoever replaces ``keys``/``values`` (``KVRows``: a row joins or
    leaves) gets a fresh buffer at the next append; a crop (a view of the same buffer) keeps it,
    and the next pass overwrites what was cut."""

    def update(
        self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any, **kwargs: Any
    ) -> tuple[torch.Tensor, torch.Tensor]:
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        self.keys = self._append("_key_buffer", self.keys, key_states)
        self.values = self._append("_value_buffer", self.values, value_states)
        return self.keys, self.values

    def _append(self, name: str, current: torch.Tensor | None, new: torch.Tensor) -> torch.Tensor:
        buffer: torch.Tensor | None = getattr(self, name, None)
        held = int(current.shape[-2]) if current is not None and current.dim() == 4 else 0
        total = held + int(new.shape[-2])
        # in place only into this layer's own buffer, as it left it: a tensor put there by anyone
        # else (a row joined or left) has another address or layout, and is copied over once
        in_place = (
            buffer is not None
            and new.shape[:2] == buffer.shape[:2]
            and total <= buffer.shape[-2]
            and (
                current is None
                or not held
                or (current.data_ptr() == buffer.data_ptr() and current.stride() == buffer.stride())
            )
        )
        if not in_place:
            # room for half as much again: appends stay in place for many passes, and memory
            # stays within 1.5x of the positions held
            room = total + max(64, total // 2)
            buffer = new.new_empty((*new.shape[:2], room, new.shape[-1]))
            if current is not None and held:
                buffer[:, :, :held, :] = current
            setattr(self, name, buffer)
        assert buffer is not None
        buffer[:, :, held:total, :] = new
        return buffer[:, :, :total, :]


def growing_cache(config: Any) -> Any:
    """A ``DynamicCache`` for ``config``'s model whose full-attention layers are ``GrowingLayer``s
    (sliding-window and other layers as transformers makes them): pass it to the prefill."""
    cache = DynamicCache(config=config)
    cache.layers = [
        GrowingLayer() if type(layer) is DynamicLayer else layer  # type: ignore[no-untyped-call]
        for layer in cache.layers
    ]
    return cache


def _layers(cache: Any) -> list[Any]:
    layers = getattr(cache, "layers", None)
    if layers is None:
        raise TypeError(
            f"batched generation needs a transformers dynamic cache with .layers, not {type(cache).__name__}"
        )
    return list(layers)


class KVRows:
    """The shared cache, the attention columns per row, and each row's next position."""

    def __init__(self) -> None:
        self.cache: Any = None
        self.attention = torch.zeros(0, 0, dtype=torch.long)  # (rows, cached columns)
        self.positions: list[int] = []  # the position of each row's next token

    @property
    def rows(self) -> int:
        return len(self.positions)

    @property
    def columns(self) -> int:
        return int(self.attention.shape[1])

    def join(self, cache: Any, length: int, device: torch.device | None = None) -> None:
        """Add a row from a one-row cache holding ``length`` positions (its prompt), on
        ``device`` (default: the cache's). The first row's cache is kept as it is, uncopied:
        a batch of one works with any cache the model returns, ``.layers`` or not."""
        if self.cache is None or self.rows == 0:
            if device is None:
                device = _layers(cache)[0].keys.device
            self.cache = cache
            self.attention = torch.ones(1, length, dtype=torch.long, device=device)
            self.positions = [length]
            return
        width = self.columns
        if length > width:  # the newcomer's prompt is longer than the cache: widen every row
            self._pad_left(length - width)
            width = length
        for mine, theirs in zip(_layers(self.cache), _layers(cache), strict=True):
            for name in ("keys", "values"):
                new = getattr(theirs, name)
                row = new.new_zeros((1, new.shape[1], width, new.shape[3]))
                row[:, :, width - length :, :] = new
                setattr(mine, name, torch.cat([getattr(mine, name), row], dim=0))
        row_mask = torch.zeros(1, width, dtype=torch.long, device=self.attention.device)
        row_mask[0, width - length :] = 1
        self.attention = torch.cat([self.attention, row_mask], dim=0)
        self.positions.append(length)

    def _pad_left(self, n: int) -> None:
        for layer in _layers(self.cache):
            for name in ("keys", "values"):
                old = getattr(layer, name)
                pad = old.new_zeros((old.shape[0], old.shape[1], n, old.shape[3]))
                setattr(layer, name, torch.cat([pad, old], dim=2))
        pad_mask = torch.zeros(self.rows, n, dtype=torch.long, device=self.attention.device)
        self.attention = torch.cat([pad_mask, self.attention], dim=1)

    def leave(self, keep: list[int]) -> None:
        """Keep only the rows ``keep`` (in that order), then drop columns no row attends to."""
        if len(keep) == self.rows:
            return
        self.positions = [self.positions[i] for i in keep]
        if not keep:
            self.cache = None
            self.attention = torch.zeros(0, 0, dtype=torch.long)
            return
        index = torch.tensor(keep, dtype=torch.long, device=self.attention.device)
        for layer in _layers(self.cache):
            layer.keys = layer.keys.index_select(0, index.to(layer.keys.device))
            layer.values = layer.values.index_select(0, index.to(layer.values.device))
        self.attention = self.attention.index_select(0, index)
        live = self.attention.any(dim=0)
        if not bool(live.all()):
            cols = torch.nonzero(live).flatten()
            for layer in _layers(self.cache):
                layer.keys = layer.keys.index_select(2, cols.to(layer.keys.device))
                layer.values = layer.values.index_select(2, cols.to(layer.values.device))
            self.attention = self.attention.index_select(1, cols)

    def reject(self, drops: list[int]) -> None:
        """Forget the last ``drops[r]`` positions of each row ``r`` (draft tokens the
        verification did not keep, ``speculate.py``): their columns are masked out and the row's
        next position moves back; trailing columns no row attends to are cut off (a view of the
        same buffers: the next pass writes over them). At one row that is a plain crop."""
        if not any(drops):
            return
        width = self.columns
        for r, drop in enumerate(drops):
            if drop:
                self.attention[r, width - drop :] = 0
                self.positions[r] -= drop
        live = torch.nonzero(self.attention.any(dim=0)).flatten()
        keep = int(live[-1]) + 1 if live.numel() else 0
        if keep < width:
            for layer in _layers(self.cache):
                layer.keys = layer.keys[:, :, :keep, :]
                layer.values = layer.values[:, :, :keep, :]
            self.attention = self.attention[:, :keep]

    def chunk(self, feeds: list[list[int]], pad_id: int) -> dict[str, torch.Tensor]:
        """The forward pass's inputs for one token list per row (1 or more tokens: a sampled
        token and the forced ones after it), left-padded to the longest so that every row's
        last token is the chunk's last column; the attention columns grow by the chunk's."""
        width = max(len(f) for f in feeds)
        device = self.attention.device
        ids = torch.full((self.rows, width), pad_id, dtype=torch.long)
        mask = torch.zeros(self.rows, width, dtype=torch.long)
        pos = torch.zeros(self.rows, width, dtype=torch.long)
        for r, feed in enumerate(feeds):
            k = len(feed)
            ids[r, width - k :] = torch.tensor(feed, dtype=torch.long)
            mask[r, width - k :] = 1
            start = self.positions[r]
            pos[r, width - k :] = torch.arange(start, start + k)
            # pad slots still need a position; the row's next one keeps rotary angles in range
            pos[r, : width - k] = start
            self.positions[r] = start + k
        self.attention = torch.cat([self.attention, mask.to(device)], dim=1)
        return {
            "input_ids": ids.to(device),
            "attention_mask": self.attention,
            "position_ids": pos.to(device),
        }
