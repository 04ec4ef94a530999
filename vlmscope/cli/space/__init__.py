"""The leaderboard Space: the Gradio app over result datasets (and the live Arena tab).

It ships in the package so `vlmscope space RESULTS` serves it from an installed wheel; a Hub
Space runs it through `leaderboard_space/app.py`, a thin entry. Its modules sit in the command
layer because the app is what a command serves: it reads the read-only views of
`vlmscope.leaderboard` and the arena of `vlmscope.arena`, and nothing below imports it.
"""
