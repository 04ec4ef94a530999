"""MEGA-Bench scoring with official-score parity.

Pure functions that reproduce what the official MEGA-Bench evaluator (TIGER-AI-Lab/MEGA-Bench) computes,
quirks included: answer parsing (`parsing`), every registered rule metric (`registry`), judge prompt
assembly and score parsing (`judge`), field -> query aggregation (`fields`) and whole-query scoring
(`query.score_query`).
"""
