"""`decode_attention: blocks`: each slot's decode attention reads only the column blocks its own
sequence fills, and gives the masked SDPA answer."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import torch
from pydantic import ValidationError

from tests.models.helpers import backend, mixed_requests
from vlmscope.config import HFModelConfig
from vlmscope.models import hf_blocks, hf_decode
from vlmscope.models.hf_blocks import BLOCK, SlotBlocks, block_attention
from vlmscope.models.hf_slots import SlotCache


def cache_with(starts: list[int | None], column: int, capacity: int = 4 * BLOCK) -> SlotCache:
    """A slot cache whose slot i holds columns starts[i]..column (None: a free slot), with the
    write column's mask set as a decode step sets it."""
    keys = [torch.zeros(len(starts), 2, capacity, 4)]
    cache = SlotCache(keys, [k.clone() for k in keys])
    cache.shift(column)
    for slot, start in enumerate(starts):
        if start is not None:
            cache.mask[slot, ..., start:column] = True
    cache.mask.index_fill_(3, cache.write_at, True)
    return cache


def test_each_slot_lists_the_run_of_blocks_from_its_first_column_to_the_write_column() -> None:
    cache = cache_with([100, 230, None, 383, 300], column=383)
    blocks = SlotBlocks(cache)
    blocks.refresh()
    assert blocks.counts.flatten().tolist() == [3, 2, 1, 1, 1]
    listed = [
        row[:count].tolist()
        for row, count in zip(blocks.indices.flatten(1), blocks.counts.flatten(), strict=True)
    ]
    assert listed == [[0, 1, 2], [1, 2], [2], [2], [2]]
    assert blocks.columns_read() == 8 * BLOCK

    cache.shift(-100)  # the lists follow the cache's columns
    cache.mask.index_fill_(3, cache.write_at, True)
    blocks.refresh()
    assert blocks.counts.flatten().tolist() == [3, 2, 1, 1, 2]  # slot 4 now starts in block 1


@pytest.mark.skipif(
    shutil.which("g++") is None, reason="compiling FlexAttention for the CPU needs a C++ compiler"
)
def test_block_attention_is_masked_sdpa_and_never_reads_an_unlisted_block() -> None:
    generator = torch.Generator().manual_seed(3)
    cache = cache_with([5, 200, 300], column=300, capacity=3 * BLOCK)
    blocks = SlotBlocks(cache)
    blocks.refresh()
    query = torch.randn(3, 8, 1, 16, generator=generator)
    key = torch.randn(3, 4, 3 * BLOCK, 16, generator=generator)
    value = torch.randn(3, 4, 3 * BLOCK, 16, generator=generator)

    out, _ = block_attention(None, query, key, value, blocks.mask, scaling=0.25)
    expected = torch.nn.functional.scaled_dot_product_attention(
        query, key, value, attn_mask=cache.mask, scale=0.25, enable_gqa=True
    )
    assert out.shape == (3, 1, 8, 16)
    assert torch.allclose(out, expected.transpose(1, 2), atol=1e-5)

    # the compiled kernel (what CUDA runs; compiled here for the CPU) reads the listed blocks
    # only: NaNs in every other block do not reach a slot's answer, as they would through SDPA
    poisoned_key, poisoned_value = key.clone(), value.clone()
    poisoned_key[1:, :, :BLOCK] = poisoned_value[1:, :, :BLOCK] = float("nan")
    compiled = hf_blocks.flex_kernel("cuda")(
        query, poisoned_key, poisoned_value, block_mask=blocks.mask, scale=0.25, enable_gqa=True
    )
    assert torch.allclose(compiled.transpose(1, 2), out, atol=1e-5)
    assert torch.isnan(
        torch.nn.functional.scaled_dot_product_attention(
            query, poisoned_key, poisoned_value, attn_mask=cache.mask, enable_gqa=True
        )[1:]
    ).any()


def test_outside_a_decode_step_the_attention_is_sdpa() -> None:
    generator = torch.Generator().manual_seed(4)
    query, key, value = (torch.randn(2, 4, 6, 8, generator=generator) for _ in range(3))
    mask = torch.ones(2, 1, 6, 6, dtype=torch.bool).tril()

    class Module:
        is_causal = True
        training = False

    out, _ = block_attention(Module(), query, key, value, mask, scaling=0.5)
    expected = torch.nn.functional.scaled_dot_product_attention(
        query, key, value, attn_mask=mask, scale=0.5
    )
    assert torch.allclose(out, expected.transpose(1, 2), atol=1e-6)


def test_blocks_give_the_dense_answers_and_read_fewer_bytes(
    tiny_dirs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = []
    real = hf_blocks.flex_attention

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(args[0].shape)
        return real(*args, **kwargs)

    monkeypatch.setattr(hf_blocks, "flex_attention", counted)
    requests = mixed_requests(12)
    dense = backend(tiny_dirs["llava"], batch_size=5)
    blocks = backend(tiny_dirs["llava"], batch_size=5, decode_attention="blocks")
    responses = blocks.generate(requests)
    assert [r.text for r in responses] == [r.text for r in dense.generate(requests)]
    dense_stats, block_stats = dense.engine_stats, blocks.engine_stats
    assert dense_stats is not None and block_stats is not None
    layers = blocks._load().model.config.get_text_config().num_hidden_layers
    assert len(calls) == block_stats.steps * layers  # every decode step, every layer
    assert all(shape[0] == 5 and shape[2] == 1 for shape in calls)  # slots, one query each
    engine = blocks._engine
    assert engine is not None and engine.cache is not None
    # a freed slot lists only the columns written since (none of its last sequence's prompt)
    shortest = min(r.usage.prompt_tokens for r in responses)
    assert int(engine.cache.mask.sum(-1).max()) < shortest
    # per step (how many steps there are depends on when encoded inputs arrive)
    per_step = [s.cache_bytes_read / s.steps for s in (block_stats, dense_stats)]
    assert per_step[0] < per_step[1]


def test_blocks_need_the_slots_engine_without_batch_invariance() -> None:
    for other in ({"engine": "generate"}, {"batch_invariant": True}):
        with pytest.raises(ValidationError, match="decode_attention: blocks needs engine: slots"):
            HFModelConfig.model_validate(
                {"backend": "hf", "name": "m", "path": "x", "decode_attention": "blocks", **other}
            )
    with pytest.raises(ValidationError, match="decode_attention"):
        HFModelConfig.model_validate(
            {"backend": "hf", "name": "m", "path": "x", "decode_attention": "sparse"}
        )


def test_block_lists_that_fail_on_the_first_step_give_way_to_dense_attention(
    tiny_dirs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A device or model where FlexAttention does not run answers as before, and says why."""

    def no_kernel(device_type: str) -> Any:
        def kernel(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("no kernel for this device")

        return kernel

    def no_block_mask(cache: Any) -> Any:
        raise TypeError("BlockMask.from_kv_blocks() got an unexpected keyword argument")

    requests = mixed_requests(6)
    dense = backend(tiny_dirs["llava"], batch_size=3).generate(requests)
    for target, broken, why in (
        (hf_blocks, {"flex_kernel": no_kernel}, "no kernel for this device"),
        (hf_decode, {"SlotBlocks": no_block_mask}, "BlockMask.from_kv_blocks() got an"),
    ):
        with monkeypatch.context() as patch:
            for name, value in broken.items():
                patch.setattr(target, name, value)
            blocks = backend(tiny_dirs["llava"], batch_size=3, decode_attention="blocks")
            assert [r.text for r in blocks.generate(requests)] == [r.text for r in dense]
        [note] = blocks.batching_notes
        assert note.startswith(f"decode attention is dense: the block lists failed ({why}")
