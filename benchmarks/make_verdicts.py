"""Seeded judge-verdict records in arena-hard v2's judgment shape, for timing its boards.

Each record is one prompt judged for one model against one baseline, as a line of an
arena-hard v2 ``model_judgment`` file with its answers' ``metadata``: ``uid``, ``category``,
``model``, ``baseline``, two ``games`` (the judge's reply with a ``[[A>B]]``-style label, the
second game with the answers swapped), and both answers' style counts (``token_len`` and the
header / list / bold sub-counts, the shape upstream's ``model_answer`` files hold). Models have
latent strengths and answer-length habits, so the boards have something to separate; a few
games are ties. The records come grouped by model, as upstream reads one file per model.

``verdict_rows`` cuts the exploded score rows (a strong verdict counts ``weight`` times) to an
exact count, each model an equal share, so a size names the number of rows a board fits.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vlmscope.ratings.inputs.verdict_battles import JudgedScore, scores_from_verdicts  # noqa: E402
from vlmscope.ratings.inputs.verdict_records import verdict_record_from_dict  # noqa: E402

BASELINE = "o3-mini-2025-01-31"
CATEGORY = "hard_prompt"
WEIGHT = 3


def _style(rng: np.random.Generator, log_tokens: float) -> dict[str, Any]:
    return {
        "token_len": int(np.rint(rng.lognormal(log_tokens, 0.5))) + 1,
        "header_count": {f"h{i}": int(rng.poisson(0.4)) for i in range(1, 7)},
        "list_count": {"ordered": int(rng.poisson(1.5)), "unordered": int(rng.poisson(2.0))},
        "bold_count": {"**": int(rng.poisson(2.5)), "__": int(rng.poisson(0.2))},
    }


def _label(rng: np.random.Generator, edge: float, first_is_model: bool) -> str:
    """A judge label for one game; ``edge`` is the model's logit against the baseline."""
    if rng.random() < 0.15:
        return "A=B"
    better = rng.random() < 1.0 / (1.0 + np.exp(-edge))
    strong = rng.random() < 0.4
    model_side, baseline_side = ("A", "B") if first_is_model else ("B", "A")
    winner, loser = (model_side, baseline_side) if better else (baseline_side, model_side)
    return f"{winner}{'>>' if strong else '>'}{loser}"


def verdict_records(n_models: int, n_prompts: int, seed: int) -> list[dict[str, Any]]:
    """``n_models * n_prompts`` records, grouped by model (``vm-00``, ``vm-01``, ...)."""
    rng = np.random.default_rng(seed)
    strengths = rng.normal(0.0, 0.8, n_models)
    log_tokens = rng.normal(6.0, 0.4, n_models)
    baseline_meta = [_style(rng, 6.0) for _ in range(n_prompts)]
    records = []
    for m in range(n_models):
        for k in range(n_prompts):
            model_meta = _style(rng, log_tokens[m])
            length_edge = 0.5 * np.tanh(
                (model_meta["token_len"] - baseline_meta[k]["token_len"]) / 400.0
            )
            edge = float(strengths[m] + length_edge)
            games = [  # game 1: baseline is A; game 2: the model is A
                {"judgment": f"My final verdict: [[{_label(rng, edge, first_is_model=False)}]]"},
                {"judgment": f"My final verdict: [[{_label(rng, edge, first_is_model=True)}]]"},
            ]
            records.append(
                {
                    "uid": f"q{k:06d}",
                    "category": CATEGORY,
                    "model": f"vm-{m:02d}",
                    "baseline": BASELINE,
                    "games": games,
                    "model_metadata": model_meta,
                    "baseline_metadata": baseline_meta[k],
                }
            )
    return records


def verdict_rows(
    n_rows: int, n_models: int = 8, seed: int = 2024
) -> tuple[list[JudgedScore], list[dict[str, Any]]]:
    """Exactly ``n_rows`` score rows (each model ``n_rows / n_models``, the first ones one more
    where it does not divide), and the records they came from."""
    # a record gives 2 to 6 rows (about 3.6): enough prompts for the largest share
    n_prompts = max(2, -(-n_rows // n_models) // 2 + 2)
    records = verdict_records(n_models, n_prompts, seed)
    rows = scores_from_verdicts([verdict_record_from_dict(r) for r in records], weight=WEIGHT).rows
    share = [n_rows // n_models + (1 if m < n_rows % n_models else 0) for m in range(n_models)]
    kept: list[JudgedScore] = []
    taken = dict.fromkeys(range(n_models), 0)
    for row in rows:
        m = int(row.model.removeprefix("vm-"))
        if taken[m] < share[m]:
            kept.append(row)
            taken[m] += 1
    assert len(kept) == n_rows, (len(kept), n_rows)
    return kept, records
