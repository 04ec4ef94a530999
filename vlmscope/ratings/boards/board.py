"""One rating board: the type every producer writes and every reader reads.

Bradley-Terry ratings are only comparable within one fit, so a leaderboard is one board: every
model's rating with its 95% interval, win rate, battles and CI rank, the style coefficients of a
style-controlled fit, the settings that made it (reference preset, anchor, bootstrap rounds and
seed), what could not be used (unparseable verdicts, excluded rows), and optional companions:
the same battles rated with style control, and one board per category.

The ratings CLI, the pairwise tracks' joint fit and the human-battle leaderboard produce it; the
result datasets store `to_json()`; the Space reads it back with `from_json()`. The JSON keeps
the `models` mapping (`{name: {"rating", "lower", "upper", "win_rate", "battles", "rank", ...}}`)
that files written before this type existed already have.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

_RATING_KEYS = ("rating", "lower", "upper", "win_rate", "battles", "rank")
SKIPPED_CATEGORIES = "skipped_categories"
"""Key of `settings.extra`: requested categories that have no board, each with the reason."""
STYLE_CONTROL_SKIPPED = "style_control_skipped"
"""Key of `settings.extra`: why a board asked for a style-controlled twin has none (a style
feature that never varies in a small board); the plain board stands."""
SKIPPED_ROWS = "skipped"
"""Key of `settings.extra`: input rows that could not be used and were skipped, counted by
reason (`vlmscope.ratings.inputs.row_checks.SKIP_REASONS`); `{}` when the rows were checked and none
was skipped. Only on the top-level board of a rated file (its companions fit the same rows)."""


@dataclass(frozen=True)
class ModelRating:
    """One model on one board. `extra` keeps a reference's own numbers (ProBench's untruncated
    ratings, average answer tokens, win-rate intervals) under the names it uses."""

    rating: float
    lower: float
    upper: float
    win_rate: float | None = None
    battles: float | None = None
    rank: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "rating": self.rating,
            "lower": self.lower,
            "upper": self.upper,
            "win_rate": self.win_rate,
            "battles": self.battles,
            "rank": self.rank,
            **self.extra,
        }

    @classmethod
    def from_json(cls, entry: Mapping[str, Any]) -> ModelRating:
        rank = entry.get("rank")
        return cls(
            rating=float(entry["rating"]),
            lower=float(entry["lower"]),
            upper=float(entry["upper"]),
            win_rate=_optional_float(entry.get("win_rate")),
            battles=_optional_float(entry.get("battles")),
            rank=int(rank) if isinstance(rank, int | float) else None,
            extra={k: v for k, v in entry.items() if k not in _RATING_KEYS},
        )


@dataclass(frozen=True)
class BoardSettings:
    """What made a board. The named fields are the ones every board has; `extra` keeps the rest
    of a preset's settings (system, stream, interval, weight, ...) as the preset reports them."""

    reference: str | None = None
    style_control: bool = False
    anchor_model: str | None = None
    anchor_rating: float | None = None
    rounds: int = 0
    seed: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "reference": self.reference,
            "style_control": self.style_control,
            "anchor_model": self.anchor_model,
            "anchor_rating": self.anchor_rating,
            "rounds": self.rounds,
            "seed": self.seed,
            **self.extra,
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> BoardSettings:
        named = ("reference", "style_control", "anchor_model", "anchor_rating", "rounds", "seed")
        anchor_rating = raw.get("anchor_rating")
        seed = raw.get("seed")
        return cls(
            reference=raw.get("reference"),
            style_control=bool(raw.get("style_control", False)),
            anchor_model=raw.get("anchor_model"),
            anchor_rating=None if anchor_rating is None else float(anchor_rating),
            rounds=int(raw.get("rounds") or 0),
            seed=None if seed is None else int(seed),
            extra={k: v for k, v in raw.items() if k not in named},
        )


@dataclass(frozen=True)
class RatingBoard:
    """One fit of pairwise outcomes, best model first."""

    models: Mapping[str, ModelRating]
    settings: BoardSettings = BoardSettings()
    style_coefficients: Mapping[str, float] | None = None
    unparseable: int = 0
    excluded: Mapping[str, int] = field(default_factory=dict)
    style_control: RatingBoard | None = None
    """The same battles rated with style control (only on a board that is not itself one)."""
    categories: Mapping[str, RatingBoard] = field(default_factory=dict)

    @property
    def is_style_controlled(self) -> bool:
        return self.settings.style_control

    @property
    def skipped_categories(self) -> Mapping[str, str]:
        """Categories asked for but not computed (no battles left, ...), with the reason, so a
        reader can tell "nothing to rate" from "not asked for"."""
        skipped = self.settings.extra.get(SKIPPED_CATEGORIES) or {}
        return {str(name): str(reason) for name, reason in skipped.items()}

    @property
    def skipped_rows(self) -> Mapping[str, int]:
        """Input rows skipped as unusable, by reason (empty when none were, or not recorded)."""
        skipped = self.settings.extra.get(SKIPPED_ROWS) or {}
        return {str(reason): int(count) for reason, count in skipped.items()}

    def view(
        self, category: str | None = None, *, style_control: bool = False
    ) -> RatingBoard | None:
        """The board a reader asked for: a category's (None = this board), with or without
        style control; None when that combination was not computed."""
        board = self if category is None else self.categories.get(category)
        if board is None:
            return None
        if style_control == board.is_style_controlled:
            return board
        return board.style_control if style_control else None

    def with_companions(
        self,
        *,
        style_control: RatingBoard | None = None,
        categories: Mapping[str, RatingBoard] | None = None,
    ) -> RatingBoard:
        return replace(
            self,
            style_control=style_control if style_control is not None else self.style_control,
            categories=dict(categories) if categories is not None else self.categories,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "models": {name: entry.to_json() for name, entry in self.models.items()},
            "style_coefficients": None
            if self.style_coefficients is None
            else dict(self.style_coefficients),
            "unparseable": self.unparseable,
            "excluded": dict(self.excluded),
            "settings": self.settings.to_json(),
            "style_control": None if self.style_control is None else self.style_control.to_json(),
            "categories": {name: board.to_json() for name, board in self.categories.items()},
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> RatingBoard:
        """Read a board (raises KeyError / TypeError / ValueError on a malformed one)."""
        models = {str(name): ModelRating.from_json(entry) for name, entry in raw["models"].items()}
        coefs = raw.get("style_coefficients")
        nested = raw.get("style_control")
        return cls(
            models=with_ci_ranks(models),
            settings=BoardSettings.from_json(raw.get("settings") or {}),
            style_coefficients=None
            if coefs is None
            else {str(k): float(v) for k, v in coefs.items()},
            unparseable=int(raw.get("unparseable") or 0),
            excluded={str(k): int(v) for k, v in (raw.get("excluded") or {}).items()},
            style_control=cls.from_json(nested) if isinstance(nested, Mapping) else None,
            categories={
                str(name): cls.from_json(board)
                for name, board in (raw.get("categories") or {}).items()
            },
        )


def with_categories(
    board: RatingBoard, categories: Mapping[str, RatingBoard], skipped: Mapping[str, str]
) -> RatingBoard:
    """`board` with its category boards, the categories that could not be rated recorded with
    the reason under `settings.extra["skipped_categories"]` (see `skipped_categories`)."""
    extra = {**board.settings.extra, SKIPPED_CATEGORIES: dict(skipped)}
    return replace(
        board.with_companions(categories=categories),
        settings=replace(board.settings, extra=extra),
    )


def with_skipped_rows(board: RatingBoard, skipped: Mapping[str, int]) -> RatingBoard:
    """`board` with the input rows skipped as unusable, by reason, under
    `settings.extra["skipped"]` (see `skipped_rows`)."""
    extra = {**board.settings.extra, SKIPPED_ROWS: dict(skipped)}
    return replace(board, settings=replace(board.settings, extra=extra))


def with_ci_ranks(models: Mapping[str, ModelRating]) -> dict[str, ModelRating]:
    """Fill in missing ranks the way the Arena leaderboards rank: 1 + the number of models whose
    lower bound lies above this model's upper bound (overlapping intervals share a rank)."""
    if all(entry.rank is not None for entry in models.values()):
        return dict(models)
    return {
        name: entry
        if entry.rank is not None
        else replace(entry, rank=1 + sum(o.lower > entry.upper for o in models.values()))
        for name, entry in models.items()
    }


def _optional_float(value: Any) -> float | None:
    return None if value is None else float(value)
