"""vlmscope: evaluate vision-language models the way the benchmark papers do.

Layers, top to bottom; a module imports only from its own layer or below, never in a cycle
(`tests/foundation/test_import_layers.py` checks both):

6. `cli` (every `vlmscope` command)
5. `arena` (the live arena: contestants, vote store, export, Hub pushes)
4. `runner` (the phased run, result datasets), `leaderboard` (read-only views of result datasets
   for the Space)
3. `tracks` (one package per benchmark, each registered once by its `TrackSpec`), `datasets`
   (the tracks' `datasets` builders, features and exports)
2. `ratings` (`inputs` < `fits` < `boards`, the same rule inside: battles and verdict records;
   Bradley-Terry, style control, bootstrap, Elo; the typed `RatingBoard` and its presets),
   `judges`
1. `models` (backends), `metrics` (pure scoring functions), `sandbox`, `stats` (paired
   resampling, intervals and tests for comparing models; numpy only)
0. `messages`, `config`, `prompts`, `cache`, `cache_salvage`, `hub_export`, `hub_data`,
   `literals`, `dependencies` (types and I/O)

The thin entries above the package (`run_eval.py`, `leaderboard_space/`, `dataset_scripts/`,
`evaluate_metrics/`) may import any of it.
"""

__version__ = "0.1.0"
