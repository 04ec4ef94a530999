"""Arena ratings (Bradley-Terry or online Elo with bootstrap CIs) as one `evaluate` module.

    >>> metric = evaluate.load("evaluate_metrics/arena_ratings", "bt")
    >>> metric.compute(model_a=["x", "y"], model_b=["y", "x"], winner=["model_a", "tie"])
    {'models': {'x': {'rating': ..., 'lower': ..., 'upper': ..., 'win_rate': ..., ...}}, ...}

A thin adapter over `vlmscope.ratings.boards.battle_presets.rate_table`, the function behind
`vlmscope ratings battles`: the config name picks the system ("bt", the default, or "elo");
rows are battles in time order (online Elo depends on it); `weight` (optional) repeats a row.
Every item is checked (`vlmscope.ratings.inputs.battles.battles_from_columns`): a null, non-string or
empty model, a model against itself, an unknown winner or a weight that is not a positive finite
number raises ValueError naming the index and the field (before `evaluate`, which would check
only the first item and cast the rest to text), and so does an `anchor` that is not
MODEL=VALUE with a finite value and a model that has battles, as `--anchor` is refused.
"""

import datasets
import evaluate

from vlmscope.metrics.columns import column, whole_number
from vlmscope.ratings.boards.battle_presets import SYSTEMS, BattleSettings, rate_table
from vlmscope.ratings.inputs.anchor_text import parse_anchor, require_rated
from vlmscope.ratings.inputs.battles import battles_from_columns

_DESCRIPTION = (
    "Pairwise battles -> Bradley-Terry (or Elo) ratings with bootstrap confidence intervals."
)
_KWARGS_DESCRIPTION = """
Args:
    model_a (list of str), model_b (list of str): the two models of each battle.
    winner (list of str): "model_a", "model_b", "tie" or "tie (bothbad)" (ties count half).
    weight (list of float, optional): how many battles each row stands for (positive, finite).
    anony (list of bool, optional): a clean-battle file's `anony` column; the battles that were
        not anonymous are left out, as `vlmscope ratings battles` (and FastChat) leave them out,
        so the same file gives the same board either way. Without it every row is rated.
    A bad item raises ValueError naming its index and field.
    rounds (int): bootstrap rounds (default 100). seed (int): generator seed (default 0).
    anchor (str "MODEL=VALUE", optional): pin a model's rating (default: ratings average 1000).
Returns:
    models (dict): per model rating, lower / upper (2.5 / 97.5 percentiles), win_rate (share of
    points, %), battles, rank; settings (dict): what produced them.
"""
_CITATION = """@article{chiang2024chatbot,
  title={Chatbot Arena: An Open Platform for Evaluating LLMs by Human Preference},
  author={Chiang, Wei-Lin and others}, journal={arXiv preprint arXiv:2403.04132}, year={2024}}"""

# `weight` is a keyword argument, not a feature: evaluate cannot mix optional columns.
_BATTLE = {
    "model_a": datasets.Value("string"),
    "model_b": datasets.Value("string"),
    "winner": datasets.Value("string"),
}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ArenaRatings(evaluate.Metric):
    BUILDER_CONFIG_NAMES = list(SYSTEMS)

    def _info(self):
        if self.config_name not in (*SYSTEMS, "default"):
            raise KeyError(f"unknown rating system {self.config_name!r}; one of {list(SYSTEMS)}")
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(_BATTLE),
        )

    def add_batch(self, *, model_a=None, model_b=None, winner=None, **kwargs):
        """Check every item: `evaluate` checks only the first and casts the rest to text."""
        battles_from_columns(
            column("model_a", model_a), column("model_b", model_b), column("winner", winner)
        )
        return super().add_batch(model_a=model_a, model_b=model_b, winner=winner, **kwargs)

    def _compute(
        self, model_a, model_b, winner, weight=None, anony=None, rounds=100, seed=0, anchor=None
    ):
        model, rating = parse_anchor(anchor)
        settings = BattleSettings(
            system="bt" if self.config_name == "default" else self.config_name,
            rounds=whole_number("rounds", rounds, minimum=1),
            seed=whole_number("seed", seed, minimum=0),
            anchor_model=model,
            anchor_rating=rating,
        )
        battles = battles_from_columns(model_a, model_b, winner, weight, anony)
        require_rated(model, battles.models)
        result = rate_table(battles, settings)
        return {"models": result["models"], "settings": result["settings"]}
