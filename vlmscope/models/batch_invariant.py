"""Batch-invariant decoding: a request's answer does not depend on what it is batched with.

Floating-point sums depend on their order, and the kernels behind a matrix product or an
attention pick their order (tiling, split reductions) by the shapes they are given. In a batch,
a request's rows are multiplied as part of a taller matrix and attend over keys padded to the
longest request, so in bfloat16 its logits, and sometimes its greedy answer, change with the
batch. The engine removes each source:

- prefill runs every request alone (the same shapes whatever the batch);
- during decoding, every matrix product `x @ W`, and every reduction over the last dim (a
  norm's mean of squares), is computed in blocks of exactly `rows` rows (the last block
  zero-padded), so the kernel always sees the same shape and a row's result depends on its own
  values only (`RowInvariantMatmul`);
- attention is computed per sequence, over its own keys only (no padding columns), in float32
  (`rowwise_attention`, registered with `transformers` under `ROWWISE_ATTENTION`);
- logits are compared in float32 and greedy ties go to the lowest token id.

The price is speed: per-sequence attention launches kernels per sequence and layer, and
products run on padded blocks; `benchmarks/batching.py` measures it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

ROWWISE_ATTENTION = "vlmscope_rowwise"

# (start, stop) of each slot's own key columns during a decode step; None outside one
_SPANS: ContextVar[Sequence[tuple[int, int]] | None] = ContextVar("vlmscope_spans", default=None)

_aten = torch.ops.aten


class RowInvariantMatmul(TorchDispatchMode):
    """Matrix products on fixed-height row blocks, so that rows never share a kernel choice."""

    def __init__(self, rows: int = 32) -> None:
        super().__init__()
        self.rows = rows

    def __torch_dispatch__(
        self,
        func: Any,
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        kwargs = kwargs or {}
        if func is _aten.linear.default:  # what nn.Linear dispatches to under inference mode
            left, weight, *rest = args
            bias = rest[0] if rest else kwargs.get("bias")
            return self._rows(left, lambda block: torch.nn.functional.linear(block, weight, bias))
        if func in (_aten.mm.default, _aten.matmul.default) and args[1].dim() == 2:
            left, right = args
            return self._rows(left, lambda block: torch.mm(block, right))
        if func is _aten.addmm.default:
            bias, left, right = args
            beta, alpha = kwargs.get("beta", 1), kwargs.get("alpha", 1)
            return self._rows(
                left, lambda block: torch.addmm(bias, block, right, beta=beta, alpha=alpha)
            )
        if func in _LAST_DIM_REDUCTIONS and _reduces_last_dim(args):
            return self._reduce_rows(func, args, kwargs)
        return func(*args, **kwargs)

    def _reduce_rows(self, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """A reduction over the last dim (a norm's mean of squares), on row blocks: on a GPU
        the reduction's split across threads is chosen by how many rows there are."""
        values, _, *rest = args
        keepdim = bool(rest[0]) if rest else bool(kwargs.pop("keepdim", False))
        flat = values.reshape(-1, values.shape[-1])
        out = self._blocks(flat, lambda block: func(block, [1], True, *rest[1:], **kwargs))
        return out.reshape(*values.shape[:-1], *([1] if keepdim else []))

    def _rows(self, left: torch.Tensor, product: Any) -> torch.Tensor:
        """`product` of every row of `left` (all dims but the last are rows), in blocks."""
        flat = left.reshape(-1, left.shape[-1])
        out = self._blocks(flat, product)
        return out.reshape(*left.shape[:-1], out.shape[-1])

    def _blocks(self, left: torch.Tensor, product: Any) -> torch.Tensor:
        parts = []
        for start in range(0, left.shape[0], self.rows):
            block = left[start : start + self.rows]
            height = block.shape[0]
            if height < self.rows:
                padding = block.new_zeros((self.rows - height, *block.shape[1:]))
                block = torch.cat([block, padding])
            parts.append(product(block.contiguous())[:height])
        return parts[0] if len(parts) == 1 else torch.cat(parts)


_LAST_DIM_REDUCTIONS = (_aten.mean.dim, _aten.sum.dim_IntList)


def _reduces_last_dim(args: tuple[Any, ...]) -> bool:
    values, dims = args[0], args[1]
    return dims is not None and [d % values.dim() for d in dims] == [values.dim() - 1]


@contextmanager
def rowwise_step(spans: Sequence[tuple[int, int]], rows: int) -> Iterator[None]:
    """Inside: attention per sequence over `spans`, products on `rows`-high blocks."""
    token = _SPANS.set(spans)
    try:
        with RowInvariantMatmul(rows):
            yield
    finally:
        _SPANS.reset(token)


def rowwise_attention(
    module: Any,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: torch.Tensor | None,
    scaling: float | None = None,
    dropout: float = 0.0,
    **kwargs: Any,
) -> tuple[torch.Tensor, None]:
    """Each slot's query over its own key columns, in float32; SDPA outside a decode step.

    Shapes as `transformers` passes them: query [slots, heads, 1, dim], key and value
    [slots, kv_heads, columns, dim]; returns [slots, 1, heads, dim] like its other attentions.
    One call per slot: its shapes, and so the kernel and its order of sums, are the slot's own.
    """
    spans = _SPANS.get()
    if spans is None:  # prefill (one request alone): the usual kernel
        from transformers.integrations.sdpa_attention import sdpa_attention_forward

        return sdpa_attention_forward(
            module, query, key, value, attention_mask, scaling=scaling, dropout=dropout, **kwargs
        )
    rows = []
    for slot, (start, stop) in enumerate(spans):
        if stop <= start:  # an empty slot: its output is never read
            rows.append(query.new_zeros(query.shape[1:], dtype=torch.float32))
            continue
        rows.append(
            torch.nn.functional.scaled_dot_product_attention(
                query[slot : slot + 1].float(),
                key[slot : slot + 1, :, start:stop].float(),
                value[slot : slot + 1, :, start:stop].float(),
                scale=scaling,
                enable_gqa=query.shape[1] != key.shape[1],
            )[0]
        )
    output = torch.stack(rows).to(query.dtype)
    return output.transpose(1, 2).contiguous(), None


def register_rowwise_attention() -> None:
    """Make `ROWWISE_ATTENTION` a name `transformers` models accept (idempotent)."""
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

    AttentionInterface.register(ROWWISE_ATTENTION, rowwise_attention)
    AttentionMaskInterface.register(ROWWISE_ATTENTION, sdpa_mask)
