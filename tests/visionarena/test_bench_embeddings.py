"""The embeddings file: a second curation of the same prompts embeds nothing again, and a file
made by another embedder is not reused."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vlmscope.tracks.visionarena.bench_embeddings import CachedEmbedder, prompt_key


class Counting:
    """Vectors made from the text's length; counts the prompts it was asked to embed."""

    def __init__(self, model: str = "m", batch_size: int = 4) -> None:
        self.model, self.batch_size, self.asked = model, batch_size, 0

    def settings(self) -> dict[str, Any]:
        return {"model": self.model, "batch_size": self.batch_size}

    def embed(self, texts: Sequence[str], images: Sequence[Sequence[bytes]]) -> np.ndarray:
        self.asked += len(texts)
        return np.array([[len(t), len(i)] for t, i in zip(texts, images, strict=True)], "float32")


def test_vectors_are_reused_by_content_and_kept_in_order(tmp_path: Path) -> None:
    path = tmp_path / "emb.npz"
    first = Counting()
    texts, images = ["a", "bb", "a"], [[b"x"], [], [b"x"]]
    out = CachedEmbedder(first, path).embed(texts, images)
    assert first.asked == 2  # the repeated prompt is embedded once
    assert out.tolist() == [[1, 1], [2, 0], [1, 1]]
    second = Counting(batch_size=64)  # another batch size is the same embedder
    cached = CachedEmbedder(second, path)
    again = cached.embed(["bb", "ccc", "a"], [[], [], [b"x"]])
    assert second.asked == 1  # only the new prompt; the other two are read from the file
    assert again.tolist() == [[2, 0], [3, 0], [1, 1]]


def test_another_model_reuses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "emb.npz"
    CachedEmbedder(Counting("m"), path).embed(["a"], [[]])
    other = Counting("other")
    CachedEmbedder(other, path).embed(["a"], [[]])
    assert other.asked == 1


def test_the_key_covers_text_and_every_image() -> None:
    assert prompt_key("a", [b"1"]) != prompt_key("a", [b"2"])
    assert prompt_key("a", [b"1", b"2"]) != prompt_key("a", [b"2", b"1"])
    assert prompt_key("a", []) != prompt_key("b", [])
