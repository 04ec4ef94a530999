"""Prompt embeddings kept in a file, so a second curation of the same chats embeds nothing again.

Embedding is the slow step (a real CLIP on a CPU embeds tens of prompts a second), and building
a bench, then the topic map, then a bench of another size all embed the same prompts. A
`CachedEmbedder` wraps any embedder: each prompt is keyed by the SHA-256 of its text and image
bytes, vectors found in the file are reused, the others are embedded and the file is rewritten
(atomically) with all of them. The file belongs to one embedder: when the embedder's settings
(model, how vectors are combined, versions) differ from the file's, nothing in it is reused
and it is replaced. The batch size is left out of that comparison: it only groups the work.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vlmscope.atomic_files import write_bytes_atomic
from vlmscope.tracks.visionarena.bench_curation import Embedder


def prompt_key(text: str, images: Sequence[bytes]) -> str:
    digest = hashlib.sha256(text.encode("utf-8"))
    for data in images:
        digest.update(b"\0image\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()


class CachedEmbedder:
    def __init__(self, inner: Embedder, path: str | Path) -> None:
        self.inner = inner
        self.path = Path(path)

    def settings(self) -> dict[str, Any]:
        return self.inner.settings()

    def _identity(self) -> str:
        settings = {k: v for k, v in self.inner.settings().items() if k != "batch_size"}
        return json.dumps(settings, sort_keys=True)

    def _load(self) -> dict[str, NDArray[np.float32]]:
        if not self.path.is_file():
            return {}
        with np.load(self.path, allow_pickle=False) as stored:
            if str(stored["identity"]) != self._identity():
                return {}
            return dict(zip(stored["keys"].tolist(), stored["vectors"], strict=True))

    def embed(self, texts: Sequence[str], images: Sequence[Sequence[bytes]]) -> NDArray[np.float32]:
        keys = [prompt_key(t, i) for t, i in zip(texts, images, strict=True)]
        known = self._load()
        first: dict[str, int] = {}
        for n, k in enumerate(keys):
            if k not in known:
                first.setdefault(k, n)
        missing = list(first)
        if missing:
            fresh = self.inner.embed(
                [texts[first[k]] for k in missing], [images[first[k]] for k in missing]
            )
            known.update(zip(missing, fresh, strict=True))
            self._save(known)
        if not keys:
            return self.inner.embed([], [])
        return np.stack([known[k] for k in keys]).astype(np.float32)

    def _save(self, vectors: dict[str, NDArray[np.float32]]) -> None:
        ordered = sorted(vectors)
        buffer = io.BytesIO()
        np.savez(
            buffer,
            identity=np.array(self._identity()),
            keys=np.array(ordered),
            vectors=np.stack([vectors[k] for k in ordered]).astype(np.float32),
        )
        write_bytes_atomic(self.path, buffer.getvalue())
