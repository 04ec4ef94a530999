"""One model's ProBench numbers: its official table per track and breakdown, and the files.

The summary holds ProBench's printed line for every track (score, CI bounds and win rate as its
`show_result.py` prints them, ints truncated) and every breakdown subset, the subsets that could
not be fitted with the reason, the judged and unparseable counts, and how lengths were counted.
`probench_table.md` is the same table in ProBench's own print layout.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vlmscope.atomic_files import write_text_atomic
from vlmscope.ratings.boards.judge_agreement import HumanLabel, judge_human_agreement
from vlmscope.ratings.boards.verdict_presets import VerdictSettings
from vlmscope.ratings.inputs.verdict_records import VerdictRecord
from vlmscope.shown_numbers import token_count
from vlmscope.tracks.base import Scored
from vlmscope.tracks.pairwise import PairwiseEvidence
from vlmscope.tracks.probench.tables import Subsets, official_tables

TABLE_FILE = "probench_table.md"
BASELINE_ROLE = "baseline"


def evidence_of(scored: Scored) -> PairwiseEvidence | None:
    return PairwiseEvidence.from_extra(scored.extra)


def records_of(model: str, scored: Sequence[Scored]) -> list[VerdictRecord]:
    """The verdict records of one model's judged samples, in sample order."""
    return [
        evidence.record(s.sample_id, model)
        for s in scored
        if (evidence := evidence_of(s)) is not None
    ]


@dataclass(frozen=True)
class ProBenchReport:
    scores: dict[str, Any]
    tracks: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        scored: Sequence[Scored],
        settings: VerdictSettings,
        subsets: Subsets,
        *,
        with_breakdowns: bool,
        token_counter: str,
        baseline_source: str,
        human_labels: Sequence[HumanLabel] = (),
    ) -> ProBenchReport:
        """`human_labels` (of any model): the judge's agreement with those of this model is
        reported (ProBench paper Sec. 3.4), next to how many labels had no verdict."""
        outcomes = dict(sorted(Counter(s.outcome for s in scored).items()))
        if any(s.extra.get("role") == BASELINE_ROLE for s in scored):
            return cls({"role": BASELINE_ROLE, "judged_prompts": 0, "outcomes": outcomes})
        model = next((str(s.extra["model"]) for s in scored if "model" in s.extra), None)
        records = [] if model is None else records_of(model, scored)  # None: nothing judged
        unparseable = sum(
            g["outcome"] != "parsed" for s in scored if (e := evidence_of(s)) for g in e.games
        )
        scores: dict[str, Any] = {
            "baseline": settings.baseline,
            "baseline_source": baseline_source,
            "token_counter": token_counter,
            "judged_prompts": len(records),
            "unparseable_games": unparseable,
            "outcomes": outcomes,
        }
        if model is not None and records:
            tables = official_tables(
                records, model, settings, subsets, with_breakdowns=with_breakdowns
            )
            scores |= {
                "tracks": tables.tracks,
                "breakdowns": tables.breakdowns,
                "skipped": tables.skipped,
            }
        if human_labels and model is not None:
            own = [label for label in human_labels if label.model == model]
            scores["judge_agreement"] = judge_human_agreement(records, own).to_json()
        return cls(scores, scores.get("tracks", {}))

    def summary(self) -> dict[str, Any]:
        return dict(self.scores)

    def write_files(self, out_dir: Path) -> None:
        if not self.tracks:
            return
        lines = [
            "# ProBench (official table: this model against the baseline, style control on)",
            "",
            "| track | score | 95% CI | average #tokens | win rate vs baseline |",
            "| --- | ---: | --- | ---: | ---: |",
        ]
        for chat_type, entry in self.tracks.items():
            ci = str((entry["lower"] - entry["score"], entry["upper"] - entry["score"]))
            lines.append(
                f"| {chat_type} | {entry['score']} | {ci} | {token_count(entry['avg_tokens'])} "
                f"| {entry['win_rate']:.2f}% |"
            )
        write_text_atomic(out_dir / TABLE_FILE, "\n".join(lines) + "\n")
