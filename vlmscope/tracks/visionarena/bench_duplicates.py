"""Exact and near duplicates among candidate prompts, so a bench never asks the same thing twice.

Conversations are read in order and the first of a group is kept; each later one names the kept
conversation it repeats:

- exact: the same question text (whitespace runs collapsed, ends stripped) and the same image
  bytes, in the same order;
- near: question texts whose MinHash estimate of the Jaccard similarity of their character
  `shingle_chars`-grams (lower-cased, whitespace collapsed) is at least `text_jaccard`, found
  with datasketch's MinHash LSH, AND images that are perceptually the same: as many images,
  each pair's pHash (imagehash, 64 bits) within `max_image_distance` bits. A re-encoded or
  resized upload of the same picture with a retyped question is a near duplicate; the same
  question about a different picture ("Describe this image") is not.

`fingerprints` reads the images (the costly part, once per candidate); `find_duplicates` works
on fingerprints only, so the benchmark can time it on synthetic ones.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vlmscope.tracks.visionarena.bench_candidates import EXACT_DUPLICATE, NEAR_DUPLICATE, Candidate


@dataclass(frozen=True)
class DuplicateRules:
    shingle_chars: int = 5
    text_jaccard: float = 0.8
    num_perm: int = 128
    """MinHash permutations (datasketch's default); the LSH bands follow from the threshold."""
    minhash_seed: int = 1
    max_image_distance: int = 8
    """pHash bits (of 64) two images may differ in and still be the same picture."""

    def to_json(self) -> dict[str, Any]:
        return {"image_hash": "imagehash.phash (8x8, 64 bits)", **asdict(self)}


@dataclass(frozen=True)
class Fingerprint:
    """What duplicate detection compares: the question (normalised when compared), image
    digests and perceptual hashes."""

    text: str
    image_digests: tuple[str, ...]
    image_hashes: tuple[int, ...]


@dataclass(frozen=True)
class Duplicate:
    kind: str
    """`exact_duplicate` or `near_duplicate`."""
    of: int
    """Index of the kept candidate it repeats."""


def normalised(text: str) -> str:
    """Whitespace runs as one space, ends stripped: what "the same text" means here."""
    return " ".join(text.split())


def image_hash(data: bytes) -> int:
    """The 64-bit perceptual hash (imagehash's pHash) of encoded image bytes."""
    import imagehash
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        return int(str(imagehash.phash(image.convert("RGB"))), 16)


def fingerprints(candidates: Iterable[Candidate]) -> list[Fingerprint]:
    return [
        Fingerprint(
            c.question,
            tuple(hashlib.sha256(data).hexdigest() for data in c.images),
            tuple(image_hash(data) for data in c.images),
        )
        for c in candidates
    ]


def shingles(text: str, size: int) -> set[bytes]:
    """Character `size`-grams of the lower-cased text (the whole text when it is shorter)."""
    folded = text.lower()
    if len(folded) <= size:
        return {folded.encode("utf-8")}
    return {folded[i : i + size].encode("utf-8") for i in range(len(folded) - size + 1)}


def find_duplicates(
    prints: Sequence[Fingerprint], rules: DuplicateRules, *, chunk: int = 10_000
) -> list[Duplicate | None]:
    """For each fingerprint in order: None when it is kept, else what it duplicates."""
    from datasketch import MinHash, MinHashLSH

    texts = [normalised(p.text) for p in prints]
    out: list[Duplicate | None] = [None] * len(prints)
    first: dict[tuple[str, tuple[str, ...]], int] = {}
    lsh = MinHashLSH(threshold=rules.text_jaccard, num_perm=rules.num_perm)
    signatures: dict[int, NDArray[np.uint64]] = {}
    for start in range(0, len(prints), chunk):
        window = range(start, min(start + chunk, len(prints)))
        fresh = []
        for i in window:
            key = (texts[i], prints[i].image_digests)
            if key in first:
                out[i] = Duplicate(EXACT_DUPLICATE, first[key])
            else:
                first[key] = i
                fresh.append(i)
        hashes = MinHash.bulk(
            [shingles(texts[i], rules.shingle_chars) for i in fresh],
            num_perm=rules.num_perm,
            seed=rules.minhash_seed,
        )
        for i, signature in zip(fresh, hashes, strict=True):
            match = _near(i, signature, prints, signatures, lsh.query(signature), rules)
            if match is not None:
                out[i] = Duplicate(NEAR_DUPLICATE, match)
                continue
            lsh.insert(i, signature)
            signatures[i] = signature.hashvalues
    # an exact copy of a near duplicate repeats what that one repeats
    for i, found in enumerate(out):
        if found is not None and found.kind == EXACT_DUPLICATE:
            copied = out[found.of]
            if copied is not None:
                out[i] = Duplicate(NEAR_DUPLICATE, copied.of)
    return out


def _near(
    i: int,
    signature: Any,
    prints: Sequence[Fingerprint],
    signatures: dict[int, NDArray[np.uint64]],
    found: list[int],
    rules: DuplicateRules,
) -> int | None:
    """The earliest kept candidate LSH found whose text and images are both near `i`'s."""
    for j in sorted(found):
        similar = float(np.mean(signatures[j] == signature.hashvalues))
        if similar >= rules.text_jaccard and same_pictures(
            prints[i].image_hashes, prints[j].image_hashes, rules.max_image_distance
        ):
            return j
    return None


def same_pictures(a: Sequence[int], b: Sequence[int], max_distance: int) -> bool:
    """As many images, each pair (in order) within `max_distance` differing hash bits."""
    return len(a) == len(b) and all(
        (x ^ y).bit_count() <= max_distance for x, y in zip(a, b, strict=True)
    )
