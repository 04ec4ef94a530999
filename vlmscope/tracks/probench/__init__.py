"""ProBench: open-ended expert queries in three tracks, judged pairwise against a baseline."""

BASELINE_NAME = "gpt-4o-2024-05-13"
"""ProBench's baseline: the model whose answers are the rows' `gpt` turns."""
