"""vlmscope: evaluate vision-language models the way the benchmark papers do.

Layers, top to bottom; a module imports only from its own layer or below, never in a cycle
(`tests/foundation/test_import_layers.py` checks both):

6. `cli` (every `vlmscope` command; `__main__` is `python -m vlmscope`)
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
   `literals`, `dependencies`, `stand_ins` (types and I/O), and what every layer shares:
   reading the files users give (`data_files`, `yaml_files`, `json_lines`, `typed_values`),
   ending on a bad one with one line (`input_errors`, `launch_output`), writing result files
   (`atomic_files`, `owned_files`, `typed_columns`), listing a folder's files for a cache
   keyed on them (`file_states`), finding the shipped configs
   (`shipped_configs`), writing a number for people (`shown_numbers`)

Package data, no code: `configs/` (the example configs, links into the
repository's `configs/`), `samples/` (each track's shipped sample), `py.typed`.

The thin entries above the package (`run_eval.py`, `leaderboard_space/`, `dataset_scripts/`,
`evaluate_metrics/`) may import any of it.
"""

__version__ = "0.1.0"
