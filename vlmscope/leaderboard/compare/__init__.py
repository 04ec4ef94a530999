"""Two or more models compared on the same items, track by track, with paired intervals.

`compare_models` reads a results folder through the Space's `ResultStore` and, for each track,
pairs the models' items by sample id and asks the comparison the track registers
(`TrackSpec.comparison`):

- `macro` (MEGA-Bench, `megabench.py`): Core, Open, overall and every keyword, the paired
  two-stage bootstrap of `vlmscope.stats.macro_bootstrap` (tasks within the macro average,
  queries within tasks), and the tasks that move most;
- `factuality` (SimpleVQA, `factuality.py`): CO, IN, NA, CGA and F with paired intervals,
  McNemar's test on correct / not correct, per task category;
- `judged` (ProBench, VisionArena-Bench, `judged.py`): P(A beats B) from the joint board's own
  fit, and the prompts where the two models' games against the baseline disagree;
- `battles` (human-vote boards, `battles.py`): the direct battles between the two, and the
  board's forecast;
- `generic` (any other track, `generic.py`): each per-sample score's mean, paired.

Items one model has and another lacks are left out of the comparison and listed
(`alignment.py`), never dropped unsaid. Several models give every pair from one set of
bootstrap rounds, so the pairwise matrix is consistent (`render.py` lays it out).
"""
