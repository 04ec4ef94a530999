"""Parse pairwise judge verdicts such as ``[[A>>B]]`` the way the reference scorers do.

Two rule sets exist upstream and they disagree on purpose-relevant edge cases, so both are kept:

* ``STRICT_RULES`` (ProBench ``get_score``, arena-hard-auto v0.1 ``get_score``): one regex
  ``\\[\\[([AB<>=]+)\\]\\]`` on the raw, case-sensitive text; the verdict is accepted only when all
  matches name the same label. No label, or two different labels, cannot be scored.
* ``LAST_MATCH_RULES`` (arena-hard-auto v2 ``get_score``): the text is upper-cased, the patterns
  ``[[..]]`` then ``[..]`` are tried in order, and the first pattern with any match returns its
  *last* match (conflicting labels are not rejected).

A verdict that cannot be scored is a typed outcome (:class:`VerdictOutcome`), never a tie: the
battle builders drop it exactly where the reference drops it, and count it so summaries can show
how many judgments were lost.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

DOUBLE_BRACKET_PATTERN = r"\[\[([AB<>=]+)\]\]"
SINGLE_BRACKET_PATTERN = r"\[([AB<>=]+)\]"

#: The five labels the judge prompts ask for, strongest preference for A first.
CANONICAL_LABELS: tuple[str, ...] = ("A>>B", "A>B", "A=B", "B>A", "B>>A")


class VerdictOutcome(str, Enum):
    """Why a judgment did or did not yield a label."""

    PARSED = "parsed"
    NO_LABEL = "no_label"
    CONFLICTING_LABELS = "conflicting_labels"
    NO_JUDGMENT = "no_judgment"


@dataclass(frozen=True)
class VerdictRules:
    """How to pull one label out of judge text (see module docstring for the two presets)."""

    patterns: tuple[str, ...]
    uppercase: bool
    reject_conflicts: bool


STRICT_RULES = VerdictRules(
    patterns=(DOUBLE_BRACKET_PATTERN,), uppercase=False, reject_conflicts=True
)
LAST_MATCH_RULES = VerdictRules(
    patterns=(DOUBLE_BRACKET_PATTERN, SINGLE_BRACKET_PATTERN),
    uppercase=True,
    reject_conflicts=False,
)


@dataclass(frozen=True)
class ParsedVerdict:
    """A label (possibly non-canonical, e.g. ``B<A``) or the reason there is none."""

    label: str | None
    outcome: VerdictOutcome

    @property
    def parsed(self) -> bool:
        return self.outcome is VerdictOutcome.PARSED


def parse_verdict(judgment: str | None, rules: VerdictRules = STRICT_RULES) -> ParsedVerdict:
    """Extract the verdict label from one judgment text under ``rules``.

    ``None`` (a game the judge never answered, ``judgment: null``) gives ``NO_JUDGMENT``. The
    returned label is stripped of newlines like upstream; it may be a non-canonical spelling
    that the regex admits (``A<B``, ``B=A``): whether such a label counts is the battle
    builder's decision, because the references differ there.
    """
    if judgment is None:
        return ParsedVerdict(None, VerdictOutcome.NO_JUDGMENT)
    text = judgment.upper() if rules.uppercase else judgment
    for pattern in rules.patterns:
        matches = [match for match in re.findall(pattern, text) if match != ""]
        if not matches:
            continue
        if rules.reject_conflicts and len(set(matches)) > 1:
            return ParsedVerdict(None, VerdictOutcome.CONFLICTING_LABELS)
        label = matches[-1] if not rules.reject_conflicts else matches[0]
        return ParsedVerdict(label.strip("\n"), VerdictOutcome.PARSED)
    return ParsedVerdict(None, VerdictOutcome.NO_LABEL)


@dataclass(frozen=True)
class Preference:
    """What a label says about Assistant A: its score (1, 0.5, 0) and whether it is strong."""

    a_score: float
    strong: bool


# Every spelling arena-hard-auto v2 maps to a score; the canonical five are a subset.
_ALL_SPELLINGS: dict[str, Preference] = {
    "A>>B": Preference(1.0, True),
    "A>B": Preference(1.0, False),
    "A=B": Preference(0.5, False),
    "B>A": Preference(0.0, False),
    "B>>A": Preference(0.0, True),
    "A<<B": Preference(0.0, True),
    "A<B": Preference(0.0, False),
    "B=A": Preference(0.5, False),
    "B<A": Preference(1.0, False),
    "B<<A": Preference(1.0, True),
}


def label_preference(label: str | None, accept_mirrored: bool = False) -> Preference | None:
    """Map a label to a preference for Assistant A, or ``None`` when the reference drops it.

    ProBench and arena-hard v0.1 only know the five canonical labels (``accept_mirrored=False``);
    arena-hard v2 also accepts mirrored spellings such as ``B<A`` (``accept_mirrored=True``).
    """
    if label is None:
        return None
    if not accept_mirrored and label not in CANONICAL_LABELS:
        return None
    return _ALL_SPELLINGS.get(label)
