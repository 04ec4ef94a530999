"""SimpleVQA factuality (CO, IN, NA, CGA, F with bootstrap CIs) as an `evaluate` module.

    >>> metric = evaluate.load("evaluate_metrics/simplevqa_factuality")
    >>> metric.compute(predictions=["correct", "incorrect", "not_attempted", "correct"])["CO"]
    0.5

A thin adapter over `vlmscope.tracks.simplevqa.metrics`: the predictions are grader outcomes,
not model answers (grading needs a judge, see the SimpleVQA track). Every item is checked first
(`vlmscope.metrics.columns`): a grade or group label that is not a string, or a bootstrap
argument that is not a whole number, raises ValueError naming the row or the argument.
"""

import datasets
import evaluate

from vlmscope.metrics.columns import column, same_length, text_column, whole_number
from vlmscope.tracks.simplevqa.grading import Grade
from vlmscope.tracks.simplevqa.metrics import factuality_table, group_rng, grouped_tables

_DESCRIPTION = "SimpleVQA factuality rates over graded items, with seeded bootstrap 95% CIs."
_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): one grade per item: "correct", "incorrect", "not_attempted", or
        "judge_unparseable" (counted apart, excluded from the rates).
    groups (list of str, optional): a group label per item (language, category); adds `by_group`.
    bootstrap_rounds (int, default 1000), seed (int, default 0): the CI bootstrap.
Returns:
    F, CO, CGA, NA, IN (float, or None when nothing was graded: no rate, never 0),
    n_graded, n_judge_unparseable (int), counts (dict), ci95 (dict of [low, high], or None when
    nothing was graded), note (only when nothing was graded: why), by_group (when groups given).
"""
_CITATION = """@article{cheng2025simplevqa,
  title={SimpleVQA: Multimodal Factuality Evaluation for Multimodal Large Language Models},
  author={Cheng, Xianfu and others}, journal={arXiv preprint arXiv:2502.13059}, year={2025}}"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class SimplevqaFactuality(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string")}),
        )

    def add_batch(self, *, predictions=None, **kwargs):
        """Check every item: `evaluate` checks only the first and casts the rest to text."""
        return super().add_batch(predictions=text_column("predictions", predictions), **kwargs)

    def _compute(self, predictions, groups=None, bootstrap_rounds=1000, seed=0):
        rounds = whole_number("bootstrap_rounds", bootstrap_rounds, minimum=0)
        seed = whole_number("seed", seed, minimum=0)
        grades = [_grade(p, index) for index, p in enumerate(predictions)]
        result = factuality_table(grades, rounds=rounds, rng=group_rng(seed, "overall"))
        if groups is not None:
            same_length(len(predictions), {"groups": groups})
            labels = [_label(g, index) for index, g in enumerate(column("groups", groups))]
            result["by_group"] = grouped_tables(grades, labels, rounds=rounds, seed=seed)
        return result


def _grade(prediction, index):
    try:
        return Grade(prediction)
    except ValueError:
        from vlmscope.config.hints import did_you_mean  # only on this error path

        known = ", ".join(repr(g.value) for g in Grade)
        hint = (
            did_you_mean(prediction, [g.value for g in Grade])
            if isinstance(prediction, str)
            else ""
        )
        raise ValueError(
            f"predictions[{index}]: {prediction!r} is not one of {known}{hint}"
        ) from None


def _label(group, index):
    """A group label as the track writes it (`str`, so 2024 is "2024"); None has no label."""
    if group is None:
        raise ValueError(f'groups[{index}]: None is not a label ("" groups an item as "(none)")')
    return str(group)
