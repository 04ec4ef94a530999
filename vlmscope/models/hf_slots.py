"""The key/value memory of the `hf` decode engine: a fixed number of slots, one sequence each.

Every layer keeps its keys and values in two tensors of a fixed shape, [slots, heads, capacity,
head_dim], allocated once, so that a decode step always runs on the same tensors (a CUDA graph
can replay it) and a finished sequence's slot is reused without moving the others. All slots
write their next token at one shared column, `write_at`; a sequence occupies the columns just
left of it (right-aligned), and a boolean mask per slot says which columns are its own. A new
sequence is prefilled alone and copied into a free slot so that it ends at the write column.
When the write column reaches the end, or a longer prompt arrives, every slot is shifted
(`shift`).
"""

from __future__ import annotations

from typing import Any

import torch
from transformers.cache_utils import Cache


class SlotCache(Cache):
    """A `transformers` cache over fixed slot tensors (see the module docstring).

    Only what a decoder layer calls during a forward pass is implemented: `update` writes the
    new token of every slot at `write_at` and returns the whole tensors; the attention mask is
    always given as a 4D tensor by the engine, so no mask size is derived from the cache.
    """

    def __init__(self, keys: list[torch.Tensor], values: list[torch.Tensor]) -> None:
        super().__init__(layers=[])
        self.keys = keys
        self.values = values
        self.slots, _, self.capacity, _ = keys[0].shape
        device = keys[0].device
        self.write_at = torch.zeros(1, dtype=torch.long, device=device)
        # which columns each slot attends to: [slots, 1, 1, capacity], the 4D mask itself
        self.mask = torch.zeros(self.slots, 1, 1, self.capacity, dtype=torch.bool, device=device)
        self.column = 0  # host copy of write_at
        # what one decode step reads: every column is attended to through the mask
        self.nbytes = _bytes(keys, values)

    @classmethod
    def like(cls, layer_kv: list[tuple[torch.Tensor, torch.Tensor]], slots: int, capacity: int):
        """Zeroed slot tensors shaped after one prefilled sequence's keys and values."""
        keys = [torch.zeros(_shape(k, slots, capacity), dtype=k.dtype, device=k.device)
                for k, _ in layer_kv]  # fmt: skip
        values = [torch.zeros(_shape(v, slots, capacity), dtype=v.dtype, device=v.device)
                  for _, v in layer_kv]  # fmt: skip
        return cls(keys, values)

    def fits(self, layer_kv: list[tuple[torch.Tensor, torch.Tensor]]) -> bool:
        """Whether a prefilled sequence has this cache's layer count, heads, dims and dtype."""
        return len(layer_kv) == len(self.keys) and all(
            k.shape[1] == sk.shape[1] and k.shape[3] == sk.shape[3] and k.dtype == sk.dtype
            and v.shape[1] == sv.shape[1] and v.shape[3] == sv.shape[3]
            for (k, v), sk, sv in zip(layer_kv, self.keys, self.values, strict=True)
        )  # fmt: skip

    def place(self, slot: int, layer_kv: list[tuple[torch.Tensor, torch.Tensor]]) -> None:
        """Copy one prefilled sequence into `slot`, ending just before the write column."""
        length = layer_kv[0][0].shape[2]
        start = self.column - length
        if start < 0:
            raise ValueError(f"a {length}-token sequence does not fit left of column {self.column}")
        for (key, value), keys, values in zip(layer_kv, self.keys, self.values, strict=True):
            keys[slot, :, start : self.column] = key[0]
            values[slot, :, start : self.column] = value[0]
        self.mask[slot].zero_()
        self.mask[slot, :, :, start : self.column] = True

    def shift(self, offset: int) -> None:
        """Move every slot's columns and the write column by `offset` (left if negative).

        Only unused columns may fall off: left of every sequence when moving left, right of
        the write column when moving right. The tensors stay where they are (a captured CUDA
        graph keeps pointing at them); each is shifted through a copy of itself.
        """
        if offset == 0:
            return
        if not -self.column <= offset <= self.capacity - self.column:
            raise ValueError(f"cannot shift column {self.column} by {offset}")
        for tensor in (*self.keys, *self.values):
            _shift_columns(tensor, offset, dim=2)
        _shift_columns(self.mask, offset, dim=3)
        self.column += offset
        self.write_at.fill_(self.column)

    def grow(self, capacity: int) -> None:
        """More columns on the right, keeping every slot's columns where they are (new tensors:
        a CUDA graph captured on the old ones must be captured again)."""
        if capacity <= self.capacity:
            return
        for tensors in (self.keys, self.values):
            for layer, old in enumerate(tensors):
                new = old.new_zeros(_shape(old, self.slots, capacity))
                new[:, :, : self.capacity] = old
                tensors[layer] = new  # the old one is freed before the next layer's is made
        mask = self.mask.new_zeros(self.slots, 1, 1, capacity)
        mask[..., : self.capacity] = self.mask
        self.mask, self.capacity = mask, capacity
        self.nbytes = _bytes(self.keys, self.values)

    # what decoder layers call
    def update(
        self, key_states: torch.Tensor, value_states: torch.Tensor, layer_idx: int, *args: Any,
        **kwargs: Any,
    ) -> tuple[torch.Tensor, torch.Tensor]:  # fmt: skip
        keys, values = self.keys[layer_idx], self.values[layer_idx]
        keys.index_copy_(2, self.write_at, key_states)
        values.index_copy_(2, self.write_at, value_states)
        return keys, values

    def get_seq_length(self, layer_idx: int = 0) -> int:
        return self.column

    def get_mask_sizes(self, query_length: int, layer_idx: int = 0) -> tuple[int, int]:
        return self.capacity, 0

    def get_query_offset(self, layer_idx: int = 0) -> int:
        return self.column

    @property
    def is_compileable(self) -> bool:
        return True

    def __len__(self) -> int:
        return len(self.keys)


def _bytes(keys: list[torch.Tensor], values: list[torch.Tensor]) -> int:
    return sum(t.numel() * t.element_size() for t in (*keys, *values))


def _shape(like: torch.Tensor, slots: int, capacity: int) -> tuple[int, int, int, int]:
    return (slots, like.shape[1], capacity, like.shape[3])


def _shift_columns(tensor: torch.Tensor, offset: int, dim: int) -> None:
    """Shift `tensor` along `dim` in place by `offset`, clearing the columns it leaves."""
    width, size = tensor.shape[dim], abs(offset)
    moved = tensor.narrow(dim, max(0, -offset), width - size).clone()
    tensor.narrow(dim, max(0, offset), width - size).copy_(moved)
    tensor.narrow(dim, 0 if offset > 0 else width - size, size).zero_()
