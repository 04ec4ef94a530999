"""A ProBench run for the leaderboard tests: two models' result datasets and the joint board.

`fabricate.write_probench_results` writes them through the runner's real writers
(`write_result`, `write_board_result`) in the shapes
the ProBench track writes: each model's summary holds ProBench's official table (one fit of the
model against the baseline per track and breakdown), each details row a judged conversation
(`extra.turns`, both games), and the board, one style-controlled fit of both models and the
baseline with a category board per track and breakdown, is stored with the verdict records of
those games as its details. The ratings are made up but hang together: scores around the
baseline's 1114, wider intervals on smaller subsets, win rates from the scores as ProBench
computes them, token counts from the answers written here, and subsets that were not fitted,
each with a reason. A real demo run will replace it.
"""

from __future__ import annotations

from typing import Any

from vlmscope.messages import Response, user_request
from vlmscope.ratings.boards.board import BoardSettings, ModelRating, RatingBoard, with_categories
from vlmscope.ratings.inputs.verdict_records import verdict_record_to_dict
from vlmscope.runner.results import BoardResult
from vlmscope.tracks.base import Sample, Scored
from vlmscope.tracks.pairwise import PairwiseEvidence

TRACK = "probench"
BASELINE = "gpt-4o-2024-05-13"
MODELS = {"pb-large": 68, "pb-small": -70}
"""Each model's Elo points above the baseline, on every subset (give or take `_jitter`)."""
WORDS = {"pb-large": 120, "pb-small": 70, BASELINE: 95}  # words per answer
NOT_FITTED = (
    "style control: feature 'headers' is the same for every battle (or there is only one), so it "
    "cannot be standardised; rate without style control or with more battles"
)
SKIPS: dict[str, str | None] = {
    "singleround / question_category: Coding": "pb-small",  # this model's official fit only
    "multi-round / round: 6+": None,  # every model's, and the joint board's
}
UNPARSEABLE = ("pb-small", "mr-3")  # its second game's reply names no verdict, after 3 tries
MULTI_ROUND_SAMPLE = "mr-3"  # four turns


def _sr(task: str, image: str, image_hard: str, reasoning: str) -> dict[str, str]:
    return {
        "question_category": task,
        "image_category": image,
        "challenge_image": image_hard,
        "challenge_reasoning": reasoning,
        "challenge_textual": "EASY",
    }


PROMPTS: tuple[tuple[str, str, int, dict[str, str]], ...] = (  # uid, track, turns, breakdown
    ("sr-1", "singleround", 1, _sr("Coding", "Diagrams", "HARD", "HARD")),
    ("sr-2", "singleround", 1, _sr("Coding", "Screenshots", "EASY", "HARD")),
    ("sr-3", "singleround", 1, _sr("Mathematics", "Diagrams", "EASY", "EASY")),
    ("sr-4", "singleround", 1, _sr("Mathematics", "Photographs", "HARD", "EASY")),
    ("mr-1", "multi-round", 2, {"round": "2"}),
    ("mr-2", "multi-round", 2, {"round": "2"}),
    ("mr-3", "multi-round", 4, {"round": "4"}),
    ("mr-4", "multi-round", 6, {"round": "6+"}),
    ("ml-1", "multi-linguistic", 1, {"language": "pt"}),
    ("ml-2", "multi-linguistic", 1, {"language": "pt"}),
    ("ml-3", "multi-linguistic", 1, {"language": "fr"}),
    ("ml-4", "multi-linguistic", 1, {"language": "other"}),
)
TURNS = {uid: turns for uid, _, turns, _ in PROMPTS}


def questions(uid: str) -> list[str]:
    return [f"Turn {t} of {uid}: what does the figure show?" for t in range(1, TURNS[uid] + 1)]


SENTENCE = "The figure plots yield against temperature, peaking near 40 degrees before it falls."


def answers(model: str, uid: str) -> list[str]:
    """`WORDS[model]` words per turn (the first name the turn), so lengths differ by model."""
    words = SENTENCE.split() * (1 + WORDS[model] // len(SENTENCE.split()))
    return [
        " ".join([f"({model}, turn {t} of {uid})", *words[: WORDS[model] - 5]])
        for t in range(1, TURNS[uid] + 1)
    ]


def tokens(model: str, uid: str) -> int:
    return len(" ".join(answers(model, uid)).split())


def win_rate(score: float) -> float:
    """ProBench's win rate (%) against the baseline, from the score (`show_result.py`)."""
    return round(100 / (1 + 10 ** ((1114 - score) / 400)), 2)


def _jitter(key: str) -> int:
    """A subset's own deviation from the model's strength: a few points on a track, more on a
    breakdown."""
    return sum(map(ord, key)) % 41 - 20 if " / " in key else sum(map(ord, key)) % 13 - 6


def subsets() -> dict[str, list[str]]:
    """Every subset key (`singleround`, `multi-round / round: 2`, ...) with its uids."""
    members: dict[str, list[str]] = {}
    for uid, track, _, breakdown in PROMPTS:
        members.setdefault(track, []).append(uid)
        for dimension, value in breakdown.items():
            members.setdefault(f"{track} / {dimension}: {value}", []).append(uid)
    return members


def entry(model: str, key: str, uids: list[str]) -> dict[str, Any]:
    """One line of ProBench's table: the model against the baseline on one subset."""
    score = 1114 + MODELS[model] + _jitter(key)
    below, above = (95, 110) if " / " in key else (48, 55)
    return {
        "score": score,
        "lower": score - below,
        "upper": score + above,
        "win_rate": win_rate(score),
        "avg_tokens": sum(tokens(model, u) for u in uids) / len(uids),
        "baseline_avg_tokens": sum(tokens(BASELINE, u) for u in uids) / len(uids),
        "prompts": len(uids),
        "battle_rows": 2 * len(uids),
        "unparseable_games": int(model == UNPARSEABLE[0] and UNPARSEABLE[1] in uids),
        "score_float": score + 0.4,
        "lower_float": score - below + 0.3,
        "upper_float": score + above + 0.6,
        "style_coefficients": [0.21, 0.05, 0.08, -0.02],
    }


def summary(model: str) -> dict[str, Any]:
    tracks: dict[str, Any] = {}
    breakdowns: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    for key, uids in subsets().items():
        if key in SKIPS and SKIPS[key] in (None, model):
            skipped[key] = NOT_FITTED
            continue
        track, _, rest = key.partition(" / ")
        if not rest:
            tracks[track] = entry(model, key, uids)
            continue
        dimension, _, value = rest.partition(": ")
        breakdowns.setdefault(track, {}).setdefault(dimension, {})[value] = entry(model, key, uids)
    bad = int(model == UNPARSEABLE[0])
    outcomes = {"ok": len(PROMPTS) - bad, **({"judge_unparseable": bad} if bad else {})}
    return {
        "baseline": BASELINE,
        "baseline_source": "rows",
        "token_counter": "words",
        "judged_prompts": len(PROMPTS),
        "unparseable_games": bad,
        "outcomes": outcomes,
        "tracks": tracks,
        "breakdowns": breakdowns,
        "skipped": skipped,
    }


def game(model: str, uid: str, *, model_first: bool) -> dict[str, Any]:
    """One game as the track stores it; the model wins both if it is above the baseline."""
    if (model, uid) == UNPARSEABLE and model_first:
        reply, label, outcome, attempts = "Both answers have merits.", None, "unparseable", 3
    else:
        a_wins = (MODELS[model] > 0) == model_first
        label = "A>B" if a_wins else "B>A"
        reply = f"Assistant {label[0]} reads the figure correctly.\n\nMy final verdict: [[{label}]]"
        outcome, attempts = "parsed", 1
    return {
        "model_first": model_first,
        "judgment": reply,
        "label": label,
        "outcome": outcome,
        "attempts": attempts,
        "error": None,
    }


def scored(model: str, uid: str, track: str, breakdown: dict[str, str]) -> Scored:
    games = (game(model, uid, model_first=False), game(model, uid, model_first=True))
    style = {"header_count": 0, "list_count": 1, "bold_count": 0}
    evidence = PairwiseEvidence(
        baseline=BASELINE,
        template=f"probench_judge_{track} v1",
        games=games,
        model_style={"token_len": tokens(model, uid), **style},
        baseline_style={"token_len": tokens(BASELINE, uid), **style},
        category=track,
    )
    turns = zip(questions(uid), answers(model, uid), answers(BASELINE, uid), strict=True)
    extra = {
        **evidence.to_extra(),
        "model": model,
        "chat_type": track,
        "turns": [{"question": q, "answer": a, "baseline_answer": b} for q, a, b in turns],
        "breakdown": breakdown,
    }
    outcome = "ok" if all(g["outcome"] == "parsed" for g in games) else "judge_unparseable"
    parsed = " | ".join(g["label"] or "-" for g in games)
    return Scored(uid, {}, parsed=parsed, outcome=outcome, extra=extra)


def details(model: str) -> list[tuple[Sample, Response, Scored]]:
    """The model's judged conversations: first question and answer, and the scored games."""
    return [
        (
            Sample(uid, user_request(questions(uid)[0]), {"chat_type": track, "rounds": turns}),
            Response(answers(model, uid)[0]),
            scored(model, uid, track, breakdown),
        )
        for uid, track, turns, breakdown in PROMPTS
    ]


def joint_board() -> RatingBoard:
    """Both models and the baseline in one fit; a category board per track and breakdown."""
    settings = BoardSettings(
        reference="arena-hard-v0.1",
        style_control=True,
        rounds=100,
        seed=42,
        extra={"baseline": BASELINE, "weight": 3, "interval": [2.5, 97.5]},
    )

    def board(key: str, half: int) -> RatingBoard:
        models = {
            m: _rating(1114 + offset + _jitter(key) // 2, half) for m, offset in MODELS.items()
        }
        models[BASELINE] = ModelRating(1114.0, 1114.0, 1114.0, 50.0)
        coefficients = {"tokens": 0.19, "headers": 0.04, "lists": 0.07, "bold": -0.01}
        return RatingBoard(models, settings, coefficients)

    skipped = {key: NOT_FITTED for key, who in SKIPS.items() if who is None}
    categories = {k: board(k, 60 if " / " in k else 40) for k in subsets() if k not in skipped}
    return with_categories(board("", 30), categories, skipped)


def _rating(score: float, half: int) -> ModelRating:
    return ModelRating(score, score - half, score + half + 6, win_rate(score), 2.0 * len(PROMPTS))


def board_result() -> BoardResult:
    """The joint board as the run writes it: the verdict records of every game are its details."""
    verdicts = []
    for model in MODELS:
        for uid, track, _, breakdown in PROMPTS:
            evidence = PairwiseEvidence.from_extra(scored(model, uid, track, breakdown).extra)
            assert evidence is not None
            verdicts.append(verdict_record_to_dict(evidence.record(uid, model)))
    return BoardResult(
        track=TRACK,
        board=joint_board(),
        details=verdicts,
        source="run",
        config_hash="fab1e5",
        started_at="2026-01-02T10:00:00+00:00",
        finished_at="2026-01-02T10:06:00+00:00",
    )
