"""`datasets` builders for the tracks, importable from an installed vlmscope.

`datasets` 5 no longer runs loading scripts, so each track's builder is a class to import:

    from vlmscope.datasets.megabench import MegaBench, build, export
    from vlmscope.datasets.simplevqa import SimpleVQA, build, export
    from vlmscope.datasets.probench import ProBench, build, export
    from vlmscope.datasets.visionarena import VisionArenaBattle, build, export  # + Chat, Bench

The builders only adapt: rows are read and validated by the track's own reader, so a bad row
stops a build with the same error as it stops the track. Each module's `export` writes every
config as a Hub-style folder (parquet + dataset card) that `load_dataset(folder, config)` opens;
`python -m vlmscope.datasets.<track>` is each one's command line (`dataset_scripts/` in the repository holds the same entries).
Each command reads a local folder, the shipped sample, or the track's upstream Hub repo at a pinned
revision (`--repo/--revision`, `hub_arguments`).

Layer: beside `tracks` (it imports the tracks' readers). This subpackage shares its last name
with the `datasets` library; every module here imports that library absolutely (`import
datasets`), never this package relatively.
"""
