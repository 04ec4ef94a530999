"""Batch-invariant mode: a request's answer does not depend on the batch it runs in, in
bfloat16, because every product and reduction sees the same shapes and attention reads only the
request's own keys."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from pydantic import ValidationError

from tests.models.helpers import backend, mixed_requests
from vlmscope.config import HFModelConfig
from vlmscope.messages import cache_key
from vlmscope.models.batch_invariant import RowInvariantMatmul, rowwise_attention, rowwise_step
from vlmscope.models.tiny import build_tiny_model
from vlmscope.runner.run_facts import generation_facts

# wide enough that bfloat16 products take the kernels whose sums depend on the row count
WIDE = {"hidden_size": 512, "intermediate_size": 2048, "num_attention_heads": 8,
        "num_key_value_heads": 4}  # fmt: skip


@pytest.fixture(scope="module")
def wide_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("wide")
    for arch in ("llava", "idefics3"):
        build_tiny_model(root / arch, arch, text=WIDE)
    return {arch: root / arch for arch in ("llava", "idefics3")}


@pytest.mark.parametrize("arch", ["llava", "idefics3"])
def test_answers_are_identical_across_batch_sizes_in_bfloat16(
    wide_dirs: dict[str, Path], arch: str
) -> None:
    """Also with prefills on a worker thread, beside decode steps whose products run in row
    blocks: those blocks are the decode thread's own, never the prefill's."""
    requests = mixed_requests(16)
    got = {}
    for batch_size, overlap in ((1, False), (3, False), (8, False), (8, True)):
        invariant = backend(
            wide_dirs[arch], batch_size=batch_size, dtype="bfloat16", batch_invariant=True,
            max_new_tokens=24, overlap_prefill=overlap,
        )  # fmt: skip
        responses = invariant.generate(requests)
        assert all(r.ok for r in responses)
        got[batch_size, overlap] = [(r.text, r.usage.completion_tokens) for r in responses]
    alone = got[1, False]
    assert got[3, False] == alone and got[8, False] == alone and got[8, True] == alone
    assert sum(n for _, n in alone) > 16 * 4  # real answers, not a stop at the first token


@pytest.mark.parametrize("op", ["linear", "addmm", "matmul", "mean", "sum"])
def test_row_blocks_make_each_row_independent_of_the_others(op: str) -> None:
    generator = torch.Generator().manual_seed(1)
    rows = torch.randn(40, 1, 512, generator=generator).bfloat16()
    weight = torch.randn(2048, 512, generator=generator).bfloat16()
    bias = torch.randn(2048, generator=generator).bfloat16()
    apply = {
        "linear": lambda x: torch.nn.functional.linear(x, weight, bias),
        "addmm": lambda x: torch.addmm(bias, x[:, 0], weight.t()),
        "matmul": lambda x: x @ weight.t(),
        "mean": lambda x: x.float().pow(2).mean(-1, keepdim=True),
        "sum": lambda x: x.sum(-1),
    }[op]
    with RowInvariantMatmul(rows=16):
        alone = apply(rows[:1])
        for count in (2, 3, 8, 16, 17, 40):  # one block, a full block, several blocks
            assert torch.equal(apply(rows[:count])[:1], alone), count
    assert torch.allclose(alone.float(), apply(rows[:1]).float(), rtol=1e-2, atol=1e-2)


def test_rowwise_attention_reads_each_slot_s_own_keys_only() -> None:
    generator = torch.Generator().manual_seed(2)
    query = torch.randn(3, 8, 1, 16, generator=generator)
    key = torch.randn(3, 4, 20, 16, generator=generator)
    value = torch.randn(3, 4, 20, 16, generator=generator)
    spans = [(5, 20), (0, 0), (12, 20)]
    with rowwise_step(spans, rows=4):
        out, _ = rowwise_attention(None, query, key, value, None, scaling=0.25)
        noisy_key = key.clone()
        noisy_key[:, :, :5] = 99.0  # columns outside slot 0's and slot 2's spans
        again, _ = rowwise_attention(None, query, noisy_key, value, None, scaling=0.25)
    assert torch.equal(out, again)
    assert torch.equal(out[:, :, :, :][1], torch.zeros_like(out[1]))  # an empty slot
    expected = torch.nn.functional.scaled_dot_product_attention(
        query[:1], key[:1, :, 5:20], value[:1, :, 5:20], scale=0.25, enable_gqa=True
    )
    assert torch.allclose(out[0], expected[0].transpose(0, 1), atol=1e-6)


def test_the_mode_is_in_the_cache_key_and_the_summary(tiny_dirs: dict[str, Path]) -> None:
    plain = backend(tiny_dirs["llava"])
    invariant = backend(tiny_dirs["llava"], batch_invariant=True)
    assert invariant.identity == {**plain.identity, "batch_invariant": True}
    request = mixed_requests(1)[0]
    assert cache_key(plain.identity, request) != cache_key(invariant.identity, request)
    for other in (
        {"engine": "generate"},
        {"prefill_batch": 2},
        {"cuda_graphs": False},
        {"decode_attention": "blocks"},
    ):
        assert backend(tiny_dirs["llava"], **other).identity == plain.identity  # same answers
    assert generation_facts([], plain.identity)["batch_invariant"] is False
    assert generation_facts([], invariant.identity)["batch_invariant"] is True
    assert "batch_invariant" not in generation_facts([], {"backend": "openai"})
    with pytest.raises(ValidationError, match="batch_invariant needs engine: slots"):
        HFModelConfig(backend="hf", name="m", path="x", batch_invariant=True, engine="generate")


def test_a_model_the_slots_cannot_hold_refuses_the_mode(tmp_path: Path) -> None:
    from vlmscope.models.tiny import needs_torchvision, torchvision_works

    if needs_torchvision("gemma3") and not torchvision_works():
        pytest.skip("gemma3's processor needs torchvision, which does not import here")
    build_tiny_model(tmp_path / "gemma3", "gemma3")
    with pytest.raises(ValueError, match="batch_invariant needs the slots engine.*gemma3"):
        backend(tmp_path / "gemma3", batch_invariant=True).generate(mixed_requests(2))
