"""Iambic-meter check for constrained generation (official backtracking over pronunciations)."""

from __future__ import annotations

from vlmscope.metrics.megabench.pronunciation import phones_for_word, stresses

_IAMBIC_PAIRS = {(2, 1), (0, 2), (0, 1), (0, 0), (1, 1), (2, 2)}


def _stress_options(word: str) -> list[list[int]]:
    return [list(pattern) for pattern in {tuple(stresses(p)) for p in phones_for_word(word)}]


def is_line_iambic(line: str) -> bool:
    """Whether some choice of pronunciations makes the line a sequence of iambic pairs with an even
    number of syllables (pairs may straddle word boundaries)."""
    words = line.split()
    options = [_stress_options(word) for word in words]

    def backtrack(word_index: int, syllable_index: int, previous: int) -> bool:
        if word_index == len(words):
            return syllable_index % 2 == 0
        for pattern in options[word_index]:
            position = 0
            if syllable_index % 2 != 0:
                if (previous, pattern[position]) not in _IAMBIC_PAIRS:
                    continue
                position += 1
            rest = pattern[position:]
            pairs = list(zip(rest[0::2], rest[1::2], strict=False))
            if any(pair not in _IAMBIC_PAIRS for pair in pairs):
                continue
            position += 2 * len(pairs)
            if position < len(pattern):
                if backtrack(word_index + 1, syllable_index + position + 1, pattern[position]):
                    return True
            elif backtrack(word_index + 1, syllable_index + position, -1):
                return True
        return False

    return backtrack(0, 0, -1)
