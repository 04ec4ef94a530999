"""MEGA-Bench rule metrics as one `evaluate` module; the config name selects the metric.

    >>> metric = evaluate.load("evaluate_metrics/megabench", "exact_str_match")
    >>> metric.compute(predictions=["B"], references=["B"])
    {'score': 1.0, 'scores': [1.0], 'errors': [None]}
    >>> dicts = evaluate.load("evaluate_metrics/megabench", "dict_equality")
    >>> dicts.compute(predictions=[json.dumps({"Ref1": "C"}), json.dumps(None)],
    ...               references=[json.dumps({"Ref1": "C"})] * 2, json_inputs=True)["scores"]
    [1.0, 0.0]

A thin adapter over `vlmscope.metrics.megabench` (official semantics, quirks included): each pair is
scored by `score_field`, which scores a raising metric 0 and reports the error. Metrics that read
`eval_context` (program_judge, symbolic_planning_test, xml_norm_point_in_bbox,
constrained_generation) take it as the `eval_context` argument, one dict per prediction.
Every item is checked first (`vlmscope.metrics.columns`): a prediction or reference that is not a
string, or an `eval_context` of another length, raises ValueError naming the row and the field.

The official metrics also take a dict, a list, a number or None (a missing answer). `datasets`
columns hold one type, so such inputs travel as JSON text: with `json_inputs=True` every
prediction and reference is the JSON text of the value the metric receives (`null`, `{"a": 1}`,
`"B"` for the text B), decoded before scoring; an item that is not JSON is named by its row.
Without it, every item is the text itself, and a None stays an error rather than a quiet 0.
"""

import datasets
import evaluate

from vlmscope.metrics.columns import json_column, same_length, text_column
from vlmscope.metrics.megabench.fields import score_field
from vlmscope.metrics.megabench.metric_types import METRICS

_DESCRIPTION = "MEGA-Bench rule metrics with official-score parity; the config name is the metric."
_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): parsed model answers (after MEGA-Bench answer parsing).
    references (list of str): ground-truth field values ("" for eval_context metrics).
    json_inputs (bool, optional): each prediction and reference is the JSON text of the value the
        metric receives (a dict, list, number or None: `json.dumps(value)`); default False.
    eval_context (list of dict, optional): per-item eval_context for the metrics that need it.
    task_name (str, optional): the task, for the record; scores do not depend on it.
Returns:
    score (float): mean of the non-negative item scores (-1 marks an ignored field; 0.0 if none),
    scores (list): per-item scores, errors (list): per-item metric error or None.
"""
_OTHER_VALUES = "a dict, list, number or None is given as its JSON text, with json_inputs=True"
_CITATION = """@article{chen2024megabench,
  title={MEGA-Bench: Scaling Multimodal Evaluation to over 500 Real-World Tasks},
  author={Chen, Jiacheng and others}, journal={arXiv preprint arXiv:2410.10563}, year={2024}}"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Megabench(evaluate.Metric):
    BUILDER_CONFIG_NAMES = sorted(METRICS)

    def _info(self):
        if self.config_name not in METRICS:
            from vlmscope.config.hints import did_you_mean  # only on this error path

            hint = did_you_mean(self.config_name, sorted(METRICS))
            raise KeyError(
                f"unknown MEGA-Bench metric {self.config_name!r}{hint} (the config name "
                f"selects the metric: evaluate.load(path, NAME)); one of {sorted(METRICS)}"
            )
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {"predictions": datasets.Value("string"), "references": datasets.Value("string")}
            ),
        )

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Check every item: `evaluate` checks only the first and casts the rest to text."""
        predictions = text_column("predictions", predictions, hint=_OTHER_VALUES)
        references = text_column("references", references, hint=_OTHER_VALUES)
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def _compute(
        self, predictions, references, eval_context=None, task_name=None, json_inputs=False
    ):
        same_length(len(predictions), {"eval_context": eval_context})
        if not isinstance(json_inputs, bool):
            raise ValueError(f"json_inputs: expected True or False, got {json_inputs!r}")
        if json_inputs:
            predictions = json_column("predictions", predictions)
            references = json_column("references", references)
        contexts = eval_context if eval_context is not None else [None] * len(predictions)
        results = [
            score_field(self.config_name, prediction, reference, eval_context=context)
            for prediction, reference, context in zip(
                predictions, references, contexts, strict=True
            )
        ]
        scores = [float(result.score) for result in results]
        kept = [score for score in scores if score >= 0]
        return {
            "score": sum(kept) / len(kept) if kept else 0.0,
            "scores": scores,
            "errors": [result.error for result in results],
        }
