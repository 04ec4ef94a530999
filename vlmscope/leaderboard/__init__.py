"""The leaderboard's data side: find result datasets, shape tables and charts, view samples.

Everything here is a pure function or a read-only loader, so the Space (`vlmscope.cli.space`)
only wires Gradio components and every number it shows is unit-tested without a browser.
"""
