"""Decode attention over only the columns each slot holds (`decode_attention: blocks`).

Through SDPA a decode step reads every slot's keys and values over the whole width of the slot
cache, masked: at batch 32 that is the longest prompt's columns (plus the answers' room) for
every slot, and on a GPU this traffic, not the weights, bounds the step (a short request's
masked padding costs as much as its own keys). FlexAttention instead takes a `BlockMask`: for
every slot, the 128-column blocks to read. A slot's sequence fills the columns from its first
own column to the write column (the slot cache is right-aligned), so its blocks are one run,
from the block of its first column to the block of the write column; inside the blocks at the
two ends the slot's own boolean mask still decides column by column, so the answer is the
masked SDPA answer (the same in float32; in bfloat16 as close as two kernels get).

The block lists live in fixed tensors that `SlotBlocks.refresh` rewrites on the device from the
cache's mask at each step, so a captured CUDA graph replays with the current lists. On CUDA the
attention is compiled (the fused kernel that skips unlisted blocks); elsewhere it runs
FlexAttention's reference implementation, which gives the same numbers, for the CPU tests.
Outside a decode step (prefill, `generate`) the mask is a plain tensor and SDPA answers.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

import torch
from torch.nn.attention.flex_attention import BlockMask, flex_attention

from vlmscope.models.hf_slots import SlotCache

BLOCK_ATTENTION = "vlmscope_slot_blocks"
BLOCK = 128  # columns per block: FlexAttention's default, and a divisor of the cache widths


class SlotBlocks:
    """The `BlockMask` of one slot cache (made again when the cache grows: new tensors)."""

    def __init__(self, cache: SlotCache) -> None:
        if cache.capacity % BLOCK:
            raise ValueError(f"a {cache.capacity}-column cache is not a whole number of blocks")
        self.cache = cache
        device, blocks = cache.mask.device, cache.capacity // BLOCK
        self.counts = torch.ones(cache.slots, 1, 1, dtype=torch.int32, device=device)
        self.indices = torch.zeros(cache.slots, 1, 1, blocks, dtype=torch.int32, device=device)
        self._offsets = torch.arange(blocks, device=device)
        own = cache.mask

        def own_columns(batch: Any, head: Any, query: Any, column: Any) -> Any:
            return own[batch, 0, 0, column]

        self.mask = BlockMask.from_kv_blocks(
            self.counts,
            self.indices,
            BLOCK_SIZE=BLOCK,
            mask_mod=own_columns,
            seq_lengths=(1, cache.capacity),
            compute_q_blocks=False,  # the backward pass's lists: never used here
        )

    def refresh(self) -> None:
        """Each slot's run of blocks, from its first own column to the write column (whose
        mask column is already set). A slot freed since its last request (its mask cleared)
        reads from the column it was freed at."""
        own = self.cache.mask[:, 0, 0]
        first = own.to(torch.uint8).argmax(-1) // BLOCK  # argmax: the first True column
        last = self.cache.write_at // BLOCK
        self.counts.copy_((last - first + 1).view(-1, 1, 1))
        blocks = (first.unsqueeze(-1) + self._offsets).clamp_(max=len(self._offsets) - 1)
        self.indices.copy_(blocks.view(self.indices.shape))

    def columns_read(self) -> int:
        """Columns the last step read over all slots: what its lists held (a host sync)."""
        return BLOCK * int(self.counts.sum())


def block_attention(
    module: Any,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: Any,
    scaling: float | None = None,
    dropout: float = 0.0,
    **kwargs: Any,
) -> tuple[torch.Tensor, Any]:
    """FlexAttention over the listed blocks in a decode step; SDPA otherwise.

    Shapes as `transformers` passes them; returns [batch, query length, heads, dim] like its
    other attentions. Models with a logit soft cap or attention sinks go through
    `transformers`' own FlexAttention forward, which knows them.
    """
    if not isinstance(attention_mask, BlockMask):
        from transformers.integrations.sdpa_attention import sdpa_attention_forward

        return sdpa_attention_forward(
            module, query, key, value, attention_mask, scaling=scaling, dropout=dropout, **kwargs
        )
    if kwargs.get("softcap") is not None or kwargs.get("s_aux") is not None:
        from transformers.integrations.flex_attention import flex_attention_forward

        return flex_attention_forward(
            module, query, key, value, attention_mask, scaling=scaling, **kwargs
        )
    output = flex_kernel(query.device.type)(
        query,
        key,
        value,
        block_mask=attention_mask,
        scale=scaling,
        enable_gqa=query.shape[1] != key.shape[1],
    )
    return output.transpose(1, 2).contiguous(), None


@functools.cache
def flex_kernel(device_type: str) -> Any:
    """FlexAttention compiled for CUDA (a fused kernel that reads the listed blocks only, and
    that a CUDA graph can capture); on other devices its reference implementation, which
    masks instead of skipping, with the same numbers and no compiler."""
    if device_type == "cuda":
        return torch.compile(flex_attention, dynamic=False)
    return _reference_flex


def _reference_flex(*args: Any, **kwargs: Any) -> torch.Tensor:
    """FlexAttention uncompiled: it warns that it materialises the scores, which is what a CPU
    test on a tiny model wants (the same numbers, no compiler)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        output: torch.Tensor = flex_attention(*args, **kwargs)
    return output


def register_block_attention() -> None:
    """Make `BLOCK_ATTENTION` a name `transformers` models accept (idempotent); its masks
    outside decode steps are SDPA's."""
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

    AttentionInterface.register(BLOCK_ATTENTION, block_attention)
    AttentionMaskInterface.register(BLOCK_ATTENTION, sdpa_mask)
