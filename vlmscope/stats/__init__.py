"""Statistics for deciding between models: paired resampling, intervals, p-values, McNemar.

Pure functions over numpy arrays, each taking an explicit `numpy.random.Generator`, so a seed
reproduces a result exactly. They know nothing about benchmarks or result files: the track's
aggregation is passed in as data (which items form a task, which tasks form each macro
average), and `vlmscope.leaderboard.compare` turns result datasets into those arrays.

- `intervals`: percentile intervals and the two-sided bootstrap p-value of a difference.
- `macro_bootstrap`: macro averages of many models at once, resampled in two stages (tasks
  within the macro average, queries within each drawn task), every model on the same draws.
- `paired_counts`: paired categorical outcomes (grades, battle results) resampled as counts.
- `mcnemar`: McNemar's exact test on the discordant pairs of a paired right/wrong outcome.
"""
