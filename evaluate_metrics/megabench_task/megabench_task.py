"""A whole MEGA-Bench task scored from raw responses, as one `evaluate` module.

    >>> task = evaluate.load("evaluate_metrics/megabench_task")
    >>> task.compute(predictions=["Answer: B", "Answer: C"], references=[{"Answer": "B"}, {"Answer": "A"}],
    ...              metric_info={"field_score_function": {"Answer": "exact_str_match"},
    ...                           "aggregation": {"function": "mean", "field_weights": {"Answer": 1}},
    ...                           "response_parse_function": "answer_string"})["mean_task_score"]
    0.5

A thin adapter over `vlmscope.metrics.megabench.query.score_query` (answer parsing, every field's
metric, field aggregation) and `vlmscope.tracks.megabench.aggregation.score_task` (the sum of
non-negative query scores over the number of queries), the functions the runner uses.
Every item is checked first (`vlmscope.metrics.columns`): a response that is not a string, an
answer that is not a dict (or its JSON text), or a per-query list of another length raises
ValueError naming the row and the field.
"""

import json

import datasets
import evaluate

from vlmscope.metrics.columns import answer_dicts, same_length, text_column
from vlmscope.metrics.megabench.metric_types import unknown_metrics
from vlmscope.metrics.megabench.query import score_query
from vlmscope.tracks.megabench.aggregation import score_task

_DESCRIPTION = (
    "One MEGA-Bench task: raw responses -> field, query and task scores (official parity)."
)
_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): the model's raw responses, one per query.
    references (list of dict): each query's answer dict (field -> gold value).
    metric_info (dict): the task's metric_info (field_score_function, aggregation, parser).
    eval_context (list of dict, optional), query_text (list of str, optional),
    task_name (str, optional), task_description (str, optional),
    judge_replies (list of dict, optional): judge reply per judged field, for open tasks.
Returns:
    mean_task_score (float), task_score (float), query_scores (list of float),
    field_scores (list of dict), outcomes (list of dict): fields not scored normally
    (metric errors, unparseable or missing judge replies) and why.
"""
_CITATION = """@article{chen2024megabench,
  title={MEGA-Bench: Scaling Multimodal Evaluation to over 500 Real-World Tasks},
  author={Chen, Jiacheng and others}, journal={arXiv preprint arXiv:2410.10563}, year={2024}}"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class MegabenchTask(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            # answer dicts travel as JSON text: their fields differ from task to task
            features=datasets.Features(
                {"predictions": datasets.Value("string"), "references": datasets.Value("string")}
            ),
        )

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Check every item: `evaluate` checks only the first and casts the rest to text. Answer
        dicts may be given as dicts (they are sent on as JSON text); `compute` comes here too."""
        predictions = text_column("predictions", predictions)
        references = [json.dumps(r) for r in answer_dicts("references", references)]
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def _compute(self, predictions, references, metric_info, eval_context=None, query_text=None,
                 task_name="", task_description="", judge_replies=None):  # fmt: skip
        if not isinstance(metric_info, dict) or not metric_info.get("field_score_function"):
            raise ValueError("metric_info: expected the task's dict with a field_score_function")
        if unknown := unknown_metrics(metric_info):
            raise ValueError(f"metric_info: unknown metric(s) {unknown} (field: metric)")
        n = len(predictions)
        same_length(
            n,
            {
                "eval_context": eval_context,
                "query_text": query_text,
                "judge_replies": judge_replies,
            },
        )
        contexts, texts = eval_context or [{}] * n, query_text or [""] * n
        replies = judge_replies or [None] * n
        results = [
            score_query(
                task_name=task_name,
                metric_info=metric_info,
                eval_context=contexts[i],
                correct_answer=json.loads(references[i]),
                response=predictions[i],
                query_text=texts[i],
                global_description=task_description,
                judge_replies=replies[i],
            )
            for i in range(n)
        ]
        task = score_task(r.query_score for r in results)
        return {
            "mean_task_score": task.mean_task_score,
            "task_score": task.task_score,
            "query_scores": [r.query_score for r in results],
            "field_scores": [dict(r.field_scores) for r in results],
            "outcomes": [
                {f: o for f, o in r.field_outcomes.items() if o != "scored"} for r in results
            ],
        }
