"""Synthetic VisionArena-Chat conversations with planted topic groups and planted duplicates,
and a fixed stand-in embedder under which the planted groups stay apart.

Each group has its own words and its own palette; every prompt is a fresh draw of the group's
words and every image a fresh drawing (random rectangles on the group's background), so no two
planted prompts are duplicates of each other. Then copies are planted: exact ones (the same
text and image bytes) and near ones (the text upper-cased, re-spaced and with a question mark; the image
re-encoded as JPEG and shrunk by 10%). Around them: a multi-turn, a Chinese and an imageless
conversation, which the screening drops. Rows are shuffled (seeded), so a copy may come before
its original: the one read first is kept.

The stand-in embedder is a fixed function, no weights: hashed bag of words of the text beside
the mean colour of a 4x4 grid of each image, each part scaled to unit length, concatenated and
scaled again. It keeps exactly the structure that was planted (words and colours), which a
random CLIP would not.
"""

from __future__ import annotations

import hashlib
import io
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image, ImageDraw

from vlmscope.datasets.visionarena import CHAT_FEATURES
from vlmscope.tracks.visionarena.rows import read_chat_rows

GROUPS: dict[str, tuple[tuple[int, int, int], tuple[str, ...]]] = {
    "math": ((200, 40, 40), ("solve", "equation", "integral", "derivative", "algebra",
                             "fraction", "polynomial", "calculate", "geometry", "triangle")),
    "art": ((40, 160, 60), ("painting", "artist", "brushstroke", "museum", "portrait",
                            "canvas", "impressionist", "sculpture", "gallery", "palette")),
    "ocr": ((40, 60, 200), ("receipt", "handwriting", "transcribe", "letters", "signboard",
                            "document", "invoice", "scanned", "typed", "label")),
    "code": ((220, 200, 40), ("python", "function", "debug", "stacktrace", "compiler",
                              "variable", "javascript", "syntax", "loop", "exception")),
    "food": ((150, 60, 180), ("recipe", "dish", "ingredients", "bake", "spicy", "dessert",
                              "noodles", "calories", "vegetables", "sauce")),
}  # fmt: skip
FILLER = ("please", "explain", "what", "this", "image", "shows", "about", "tell", "me")


@dataclass(frozen=True)
class Planted:
    folder: Path
    group_of: dict[str, str]
    """Conversation id -> planted group, for every original single-turn English prompt."""
    duplicate_of: dict[str, tuple[str, str]]
    """Planted copy id -> (kind, the original's id)."""
    dropped: dict[str, str]
    """Conversations the screening drops -> the decision they get."""


def _encode(image: Image.Image, kind: str = "PNG") -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, kind, **({"quality": 90} if kind == "JPEG" else {}))
    return buffer.getvalue()


def drawing(colour: tuple[int, int, int], rng: random.Random) -> Image.Image:
    image = Image.new("RGB", (64, 64), colour)
    draw = ImageDraw.Draw(image)
    for _ in range(6):
        x, y = rng.randrange(0, 48), rng.randrange(0, 48)
        shade = tuple(max(0, min(255, c + rng.randrange(-90, 90))) for c in colour)
        draw.rectangle((x, y, x + rng.randrange(6, 16), y + rng.randrange(6, 16)), fill=shade)
    return image


def _record(cid: str, text: str, images: Sequence[bytes], language: str = "English",
            turns: int = 1, stamp: float = 0.0) -> dict[str, Any]:  # fmt: skip
    conversation = [
        [{"role": "user", "content": text if k == 0 else f"and more {k}"},
         {"role": "assistant", "content": f"answer {k}"}]
        for k in range(turns)
    ]  # fmt: skip
    return {
        "images": [{"bytes": b, "path": f"{cid}-{k}.img"} for k, b in enumerate(images)],
        "conversation_id": cid,
        "model": "model-x",
        "num_turns": turns,
        "conversation": conversation,
        "translated_conversation": None,
        "language": language,
        "user_id": None,
        "tstamp": 1_720_000_000.0 + stamp,
        "is_preset": False,
        "preset_dataset": "",
        "categories": None,
    }


def write_planted(folder: Path, per_group: int = 40, seed: int = 7) -> Planted:
    """Write the planted Chat folder (`data/train-00000-of-00001.parquet`)."""
    rng = random.Random(seed)
    records: list[dict[str, Any]] = []
    group_of: dict[str, str] = {}
    originals: list[tuple[str, str, Image.Image]] = []
    for group, (colour, words) in GROUPS.items():
        for k in range(per_group):
            cid = f"{group}-{k:03d}"
            text = " ".join(rng.sample(words, 4) + rng.sample(FILLER, 3))
            image = drawing(colour, rng)
            records.append(_record(cid, text, [_encode(image)], stamp=len(records)))
            group_of[cid] = group
            originals.append((cid, text, image))
    duplicate_of: dict[str, tuple[str, str]] = {}
    copied = rng.sample(originals, 12)  # six get an exact copy, six others a near one
    for n, (cid, text, image) in enumerate(copied[:6]):
        copy = f"exact-{n}"
        records.append(_record(copy, f"  {text} ", [_encode(image)], stamp=len(records)))
        duplicate_of[copy] = ("exact_duplicate", cid)
    for n, (cid, text, image) in enumerate(copied[6:]):
        copy = f"near-{n}"
        retyped = text.upper().replace(" ", "  ", 1) + "?"
        smaller = image.resize((58, 58))
        records.append(_record(copy, retyped, [_encode(smaller, "JPEG")], stamp=len(records)))
        duplicate_of[copy] = ("near_duplicate", cid)
    colour, words = GROUPS["math"]
    extra = drawing(colour, rng)
    records.append(_record("multi", "solve this equation", [_encode(extra)], turns=2))
    records.append(_record("chinese", "解这个方程", [_encode(extra)], language="Chinese"))
    records.append(_record("imageless", "solve the integral please", []))
    order = rng.sample(range(len(records)), len(records))
    table = pa.Table.from_pylist([records[k] for k in order], schema=CHAT_FEATURES.arrow_schema)
    (folder / "data").mkdir(parents=True, exist_ok=True)
    pq.write_table(table, folder / "data" / "train-00000-of-00001.parquet")
    dropped = {"multi": "multi_turn", "chinese": "language", "imageless": "no_image"}
    return Planted(folder, group_of, duplicate_of, dropped)


class StandInEmbedder:
    """Hashed words beside grid colours (module doc); deterministic, no model."""

    WORD_DIMS = 64

    def settings(self) -> dict[str, Any]:
        return {"model": "stand-in: hashed words + 4x4 colour grid"}

    def embed(self, texts: Sequence[str], images: Sequence[Sequence[bytes]]) -> np.ndarray:
        rows = [
            np.concatenate([_unit(self._words(t)), _unit(self._colours(i))])
            for t, i in zip(texts, images, strict=True)
        ]
        return np.stack([_unit(r) for r in rows]).astype(np.float32)

    def _words(self, text: str) -> np.ndarray:
        vector = np.zeros(self.WORD_DIMS)
        for word in text.lower().split():
            digest = hashlib.sha256(word.strip("?").encode()).digest()
            vector[digest[0] % self.WORD_DIMS] += 1.0
        return vector

    def _colours(self, images: Sequence[bytes]) -> np.ndarray:
        grids = [
            np.asarray(Image.open(io.BytesIO(d)).convert("RGB").resize((4, 4)), dtype=float)
            for d in images
        ]
        return np.mean(grids, axis=0).ravel() / 255 if grids else np.zeros(48)


def _unit(v: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(v)
    return v / norm if norm else v


def planted_rows(folder: Path) -> list[Any]:
    return read_chat_rows(folder)
