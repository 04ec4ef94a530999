"""How a track asks its judge, and the one rule for how many tokens a reply may take.

Each track holds its `JudgeSettings` as `judge_settings`: the official limits (MEGA-Bench's
judged metrics 1024 new tokens, SimpleVQA's grader 512, the pairwise references 4096, or 16000
for arena-hard-auto v2's, so a pairwise track's follow its `reference` option). Every
judge request is built from them (`vlmscope.judges.request`). A model config may cap `max_new_tokens` further
(`max_new_tokens:` on the judge's or the model's config); `vlmscope.messages.
effective_max_new_tokens` is that rule, used by every backend and reported in each summary.
"""

from __future__ import annotations

from dataclasses import dataclass

from vlmscope.messages import GenerationParams


@dataclass(frozen=True)
class JudgeSettings:
    max_new_tokens: int = 512
    temperature: float = 0.0
    """Greedy by default: a judge sampled at temperature 1 makes a leaderboard unrepeatable."""

    def params(self) -> GenerationParams:
        return GenerationParams(max_new_tokens=self.max_new_tokens, temperature=self.temperature)
