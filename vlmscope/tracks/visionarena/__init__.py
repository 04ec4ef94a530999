"""VisionArena (lmarena-ai VisionArena-Chat, VisionArena-Battle, vision-arena-bench-v0.1).

`rows` (with `conversations` and `row_files`) reads the three datasets; `track` is
VisionArena-Bench, each model judged against an anchor through `vlmscope.tracks.pairwise`, with
the anchor's answers from a model of the run or from a file (`anchor_answers`); `report` is the
paper's human-vote leaderboard from battles (what `vlmscope visionarena leaderboard` and the
live arena's board show); `spec` registers the bench.
"""
