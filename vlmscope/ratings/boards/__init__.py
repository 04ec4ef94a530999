"""Boards: the typed `RatingBoard`, the presets that fit battles or judge verdicts into one the
way a named reference does, and what is read off boards (agreement, win rates, breakdowns).

Imports from `inputs` and `fits`."""
