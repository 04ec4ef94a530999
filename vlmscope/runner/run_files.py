"""Names of what a run keeps in its output folder beside the result datasets."""

RUN_CONFIG_FILE = "run_config.json"
"""The config the results came from, as it ran (`--limit`, `--tracks`, ... applied), so that
`vlmscope rejudge` can score the same answers with another judge."""
REJUDGED_DIR = "_judges"
"""`OUTPUT_DIR/_judges/<judge>/`: the results of judging the run's answers again
(`vlmscope rejudge`), a results folder of their own; the Space reads them only when pointed
there, never as runs of the folder above."""
