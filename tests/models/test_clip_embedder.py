"""The tiny random CLIP loads as any CLIP checkpoint, and the embedder combines image and text
the way its docstring says: unit vectors, images of a prompt averaged, then image and text."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image

from vlmscope.cli import main as vlmscope_main
from vlmscope.models.clip_embedder import ClipEmbedder
from vlmscope.models.tiny_clip import PROJECTION_DIM, build_tiny_clip, ensure_tiny_clip


def png(colour: tuple[int, int, int], size: tuple[int, int] = (40, 30)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, "PNG")
    return buffer.getvalue()


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ensure_tiny_clip(tmp_path_factory.mktemp("clip") / "tiny-clip")


def unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def test_the_command_builds_it_and_the_same_seed_gives_the_same_files(tmp_path: Path) -> None:
    for name in ("a", "b"):
        assert vlmscope_main(["make-tiny-model", str(tmp_path / name), "--arch", "clip"]) == 0
    files = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert {"config.json", "model.safetensors", "tokenizer.json"} <= set(files)
    for name in files:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    assert build_tiny_clip(tmp_path / "c", seed=1) > 0
    weights = (tmp_path / "a" / "model.safetensors").read_bytes()
    assert weights != (tmp_path / "c" / "model.safetensors").read_bytes()


def test_texts_get_start_and_end_tokens_and_the_model_pools_the_end(clip: Path) -> None:
    embedder = ClipEmbedder(str(clip), progress=False)
    tokens = embedder.processor(text=["hi", "a longer prompt"], padding=True)["input_ids"]
    tokenizer = embedder.processor.tokenizer
    assert all(t[0] == tokenizer.bos_token_id for t in tokens)
    assert tokens[0].index(tokenizer.eos_token_id) == 3  # start, "h", "i", end
    assert tokenizer.eos_token_id != 2  # CLIP reads an end token of id 2 as "highest id"
    assert embedder.model.config.model_type == "clip"


def test_image_and_text_are_averaged_as_unit_vectors(clip: Path) -> None:
    embedder = ClipEmbedder(str(clip), batch_size=2, progress=False)
    texts = ["describe this", "compare the two", "no picture here"]
    images = [[png((255, 0, 0))], [png((0, 0, 255)), png((0, 255, 0), (20, 50))], []]
    vectors = embedder.embed(texts, images)
    assert vectors.shape == (3, PROJECTION_DIM) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-6)
    with torch.inference_mode():
        model, processor = embedder.model, embedder.processor
        text = unit(model.get_text_features(**processor(text=texts, return_tensors="pt",
                                                         padding=True)).pooler_output.numpy())  # fmt: skip
        pixels = processor(images=[Image.open(io.BytesIO(b)) for g in images for b in g],
                           return_tensors="pt")  # fmt: skip
        picture = unit(model.get_image_features(**pixels).pooler_output.numpy())
    expected = np.stack(
        [
            unit((picture[0] + text[0]) / 2),
            unit((unit(picture[1:3].mean(axis=0)) + text[1]) / 2),
            text[2],
        ]
    )
    assert np.allclose(vectors, expected, atol=1e-5)
    again = ClipEmbedder(str(clip), batch_size=1, progress=False).embed(texts, images)
    assert np.allclose(vectors, again, atol=1e-5)


def test_mismatched_inputs_and_no_prompts(clip: Path) -> None:
    embedder = ClipEmbedder(str(clip), progress=False)
    with pytest.raises(ValueError, match="2 texts but 1 image lists"):
        embedder.embed(["a", "b"], [[]])
    assert embedder.embed([], []).shape == (0, PROJECTION_DIM)
