"""How the judge replies of the pairwise tracks and of MEGA-Bench's judged fields hold a verdict,
for a judge panel (`vlmscope.judges.panel.VerdictCodec`).

- pairwise labels (ProBench, VisionArena-Bench): a `[[...]]` label read with the track's rules;
  a mirrored spelling (`B<A`, arena-hard v2) is the canonical label it means; on the number
  line `A>>B` 2, `A>B` 1, `A=B` 0, `B>A` -1, `B>>A` -2;
- MEGA-Bench's judge: the first `**Score**: N`, N on the number line.
"""

from __future__ import annotations

from vlmscope.judges.panel import round_half_up
from vlmscope.judges.verdicts import (
    CANONICAL_LABELS,
    STRICT_RULES,
    VerdictRules,
    label_preference,
    parse_verdict,
)
from vlmscope.metrics.megabench.judge import SCORE_PATTERN

LABEL_SCALE = {"A>>B": 2, "A>B": 1, "A=B": 0, "B>A": -1, "B>>A": -2}


class PairwiseLabels:
    """Pairwise verdict labels under the track's verdict rules."""

    numeric = True
    neutral = "A=B"

    def __init__(self, rules: VerdictRules = STRICT_RULES) -> None:
        self.rules = rules

    def read(self, reply: str) -> str | None:
        verdict = parse_verdict(reply, self.rules)
        preference = label_preference(verdict.label, accept_mirrored=True)
        if not verdict.parsed or preference is None:
            return None
        return next(label for label in CANONICAL_LABELS if label_preference(label) == preference)

    def write(self, verdict: str) -> str:
        return f"[[{verdict}]]"

    def value(self, verdict: str) -> float:
        return float(LABEL_SCALE[verdict])

    def nearest(self, value: float) -> str:
        point = max(-2, min(2, round_half_up(value)))
        return next(label for label, at in LABEL_SCALE.items() if at == point)


class JudgeScores:
    """MEGA-Bench's `**Score**: N` replies."""

    numeric = True
    neutral = "5"

    def read(self, reply: str) -> str | None:
        match = SCORE_PATTERN.search(reply)
        return None if match is None else str(int(match.group(1)))

    def write(self, verdict: str) -> str:
        return f"**Score**: {verdict}"

    def value(self, verdict: str) -> float:
        return float(verdict)

    def nearest(self, value: float) -> str:
        return str(round_half_up(value))
