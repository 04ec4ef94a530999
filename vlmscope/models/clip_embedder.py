"""Prompt embeddings from a CLIP-family model: image and text averaged (VisionArena Sec. 6).

"We extract image embeddings and text embeddings using a CLIP model (e.g. CLIP-ViT-B-32). We
then average the image and text embeddings so that each document corresponds to a single
embedding." Here each projected embedding is first scaled to unit length (CLIP's image and
text vectors differ in norm, so a plain mean would lean to one), a prompt's several images are
averaged into one image vector, the image and text vectors are averaged, and the mean is
scaled to unit length again. A prompt without an image is its text vector.

Any checkpoint `AutoModel` loads with `get_text_features` and `get_image_features` works, by Hub
name or local folder: `openai/clip-vit-base-patch32` (the paper's), other CLIP or SigLIP
checkpoints, or the tiny random CLIP of `tiny_clip`. Texts longer than the text tower's
positions are truncated (CLIP: 77 tokens); SigLIP pads to its full length, as it was trained.
Inference is deterministic: eval mode (no dropout), float32, a fixed batch size.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Sequence
from importlib.metadata import version
from typing import Any

import numpy as np
from numpy.typing import NDArray

DEFAULT_MODEL = "openai/clip-vit-base-patch32"


class ClipEmbedder:
    def __init__(
        self, model: str = DEFAULT_MODEL, *, batch_size: int = 32, progress: bool = True
    ) -> None:
        import torch
        from transformers import AutoModel, AutoProcessor

        self.name = model
        self.batch_size = batch_size
        self.progress = progress
        self.model = AutoModel.from_pretrained(model, dtype=torch.float32).eval()
        self.processor = AutoProcessor.from_pretrained(model)
        text = getattr(self.model.config, "text_config", self.model.config)
        self.max_tokens = int(text.max_position_embeddings)
        self.padding: str | bool = (
            "max_length" if self.model.config.model_type.startswith("siglip") else True
        )

    def settings(self) -> dict[str, Any]:
        return {
            "model": self.name,
            "model_type": self.model.config.model_type,
            "combine": "mean of unit image and unit text vectors (images of a prompt averaged "
            "first), scaled to unit length; text only without an image",
            "max_text_tokens": self.max_tokens,
            "batch_size": self.batch_size,
            "library": f"transformers {version('transformers')}, torch {version('torch')}",
        }

    def embed(self, texts: Sequence[str], images: Sequence[Sequence[bytes]]) -> NDArray[np.float32]:
        """One unit vector per prompt (prompts x projection dimensions)."""
        from tqdm.auto import tqdm

        if len(texts) != len(images):
            raise ValueError(f"{len(texts)} texts but {len(images)} image lists")
        out: list[NDArray[np.float32]] = []
        starts = range(0, len(texts), self.batch_size)
        bar = tqdm(
            starts, desc="embedding", unit="batch", file=sys.stderr, disable=not self.progress
        )
        for start in bar:
            end = start + self.batch_size
            out.append(self._batch(texts[start:end], images[start:end]))
        if not out:
            return np.zeros((0, self._dimensions()), dtype=np.float32)
        return np.concatenate(out)

    def _batch(
        self, texts: Sequence[str], images: Sequence[Sequence[bytes]]
    ) -> NDArray[np.float32]:
        import torch
        from PIL import Image

        with torch.inference_mode():
            tokens = self.processor(
                text=list(texts),
                return_tensors="pt",
                padding=self.padding,
                truncation=True,
                max_length=self.max_tokens,
            )
            text = _unit(_features(self.model.get_text_features(**tokens)))
            owners = [k for k, group in enumerate(images) for _ in group]
            if not owners:
                return text
            pictures = [
                Image.open(io.BytesIO(data)).convert("RGB") for group in images for data in group
            ]
            pixels = self.processor(images=pictures, return_tensors="pt")
            picture = _unit(_features(self.model.get_image_features(**pixels)))
        combined = text.copy()
        for k in sorted(set(owners)):
            mine = picture[[i for i, owner in enumerate(owners) if owner == k]]
            combined[k] = (_unit(mine.mean(axis=0, keepdims=True))[0] + text[k]) / 2
        return _unit(combined)

    def _dimensions(self) -> int:
        config = self.model.config
        return int(getattr(config, "projection_dim", None) or config.text_config.hidden_size)


def _features(output: Any) -> NDArray[np.float32]:
    """The projected vectors, whether the model returns a tensor or an output with a pooler."""
    tensor = getattr(output, "pooler_output", output)
    return np.asarray(tensor.detach().float().numpy(), dtype=np.float32)


def _unit(vectors: NDArray[np.float32]) -> NDArray[np.float32]:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.asarray(vectors / np.where(norms == 0, 1, norms), dtype=np.float32)
