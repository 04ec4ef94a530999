"""How stable is the Core score with ~15 queries per task? (MEGA-Bench paper, Sec. 4.3, Fig. 7 left)

The paper resamples, for every Core task, n of the model's query scores with replacement
(n = 3, 5, ..., 15), takes the task means and their macro mean, and repeats 10,000 times; the spread of
that distribution shows how much the benchmark score would move with fewer or more examples per task.

The randomness is an explicit `numpy.random.Generator`, so a seed reproduces a report exactly. Draws are
taken size by size, then task by task in the given order, one `(num_draws, n)` index block per task.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # numpy is imported where it is used: `vlmscope megabench` starts without it
    import numpy as np
    import numpy.typing as npt

DEFAULT_SAMPLE_SIZES: tuple[int, ...] = (3, 5, 7, 9, 11, 13, 15)
DEFAULT_NUM_DRAWS = 10_000


def query_scores_by_task(
    data_with_scores: Mapping[str, Any], eval_type: str = "rule"
) -> dict[str, list[float]]:
    """Per-task query scores of one eval type ("rule" = Core) from a `data_with_scores.json` document."""
    return {
        task["task_name"]: [query["scores"]["query"] for query in task["query_response"]]
        for task in data_with_scores["data"]
        if task.get("eval_type") == eval_type
    }


def _counted_scores(scores: Sequence[float]) -> npt.NDArray[np.float64]:
    """What each query adds to its task mean: negative (-1) and NaN query scores add 0, officially."""
    import numpy as np

    values = np.asarray(scores, dtype=np.float64)
    return np.where(values >= 0, values, 0.0)


def bootstrap_core_scores(
    task_query_scores: Mapping[str, Sequence[float]],
    *,
    rng: np.random.Generator,
    sample_sizes: Sequence[int] = DEFAULT_SAMPLE_SIZES,
    num_draws: int = DEFAULT_NUM_DRAWS,
) -> dict[int, npt.NDArray[np.float64]]:
    """Sample size n -> `num_draws` bootstrap Core scores (macro mean over tasks of resampled means).

    Every task is resampled to exactly n queries whatever its real count, as in the paper.
    """
    import numpy as np

    if not task_query_scores:
        raise ValueError("no tasks to resample")
    if num_draws < 1 or any(size < 1 for size in sample_sizes):
        raise ValueError("num_draws and every sample size must be positive")
    empty = [name for name, scores in task_query_scores.items() if len(scores) == 0]
    if empty:
        raise ValueError(f"tasks without query scores cannot be resampled: {empty}")
    counted = [_counted_scores(scores) for scores in task_query_scores.values()]
    distributions: dict[int, npt.NDArray[np.float64]] = {}
    for size in sample_sizes:
        total = np.zeros(num_draws, dtype=np.float64)
        for scores in counted:
            picks = rng.integers(0, len(scores), size=(num_draws, size))
            total += scores[picks].mean(axis=1)
        distributions[size] = total / len(counted)
    return distributions


@dataclass(frozen=True)
class BootstrapSummary:
    """One sample size's distribution: mean, standard deviation and a central interval."""

    sample_size: int
    mean: float
    std: float
    low: float
    high: float


def summarize_bootstrap(
    distributions: Mapping[int, npt.NDArray[np.float64]], coverage: float = 0.95
) -> list[BootstrapSummary]:
    """Mean, std (ddof 0) and the central `coverage` percentile interval for every sample size."""
    import numpy as np

    tail = (1.0 - coverage) / 2.0 * 100.0
    return [
        BootstrapSummary(
            sample_size=size,
            mean=float(np.mean(scores)),
            std=float(np.std(scores)),
            low=float(np.percentile(scores, tail)),
            high=float(np.percentile(scores, 100.0 - tail)),
        )
        for size, scores in sorted(distributions.items())
    ]


def format_bootstrap_report(summaries: Sequence[BootstrapSummary], coverage: float = 0.95) -> str:
    """A Markdown table of the bootstrap summaries (scores in percent, as the paper reports them)."""
    percent = f"{coverage:.0%}"
    lines = [
        f"| n per task | mean | std | {percent} low | {percent} high |",
        "|---:|---:|---:|---:|---:|",
    ]
    for row in summaries:
        lines.append(
            f"| {row.sample_size} | {100 * row.mean:.2f} | {100 * row.std:.2f} "
            f"| {100 * row.low:.2f} | {100 * row.high:.2f} |"
        )
    return "\n".join(lines)
