"""`compare_models`: every track of a results folder, every pair of the models asked for.

A track is compared by the comparison its registration names (`TrackSpec.comparison`); a board
written by a ratings command (no registration) by its kind (`battles` for human votes, `judged`
for judge verdicts); anything else by the generic one. A track that a model has no result for
is compared among the models that have one, and says who is missing; a track that cannot be
compared at all says why (`TrackComparison.skipped`), so the output always accounts for every
track.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from vlmscope.leaderboard.compare.battles import compare_battles
from vlmscope.leaderboard.compare.factuality import compare_factuality
from vlmscope.leaderboard.compare.generic import compare_generic
from vlmscope.leaderboard.compare.judged import compare_judged
from vlmscope.leaderboard.compare.megabench import compare_megabench
from vlmscope.leaderboard.compare.pairs import Compared, TrackComparison
from vlmscope.leaderboard.load import OutsideResults, UnreadableConfig
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.leaderboard.track_info import track_title
from vlmscope.ratings.boards.head_to_head import NoForecast
from vlmscope.tracks.registry import spec_for_results

DEFAULT_ROUNDS = 1000
DEFAULT_SEED = 0
Comparer = Callable[..., Compared]
COMPARISONS: dict[str, Comparer] = {
    "megabench": compare_megabench,
    "factuality": compare_factuality,
    "judged": compare_judged,
    "battles": compare_battles,
    "generic": compare_generic,
}


class UnknownModel(ValueError):
    """A model named for comparison that no result of the folder holds."""


@dataclass(frozen=True)
class CompareReport:
    models: tuple[str, ...]
    tracks: tuple[TrackComparison, ...]
    settings: dict[str, Any] = field(default_factory=dict)

    def track(self, name: str) -> TrackComparison | None:
        return next((t for t in self.tracks if t.track == name), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "models": list(self.models),
            "settings": dict(self.settings),
            "tracks": [t.to_json() for t in self.tracks],
        }


def comparison_for(store: ResultStore, track: str) -> str:
    """The name of the comparison a track gets (module doc)."""
    spec = spec_for_results(track)
    if spec is not None and spec.comparison in COMPARISONS:
        return spec.comparison
    board = store.boards.get(track)
    if board is not None and not store.models(track):
        return "battles" if board.board.settings.extra.get("command") == "battles" else "judged"
    return "generic"


def models_on(store: ResultStore, track: str) -> list[str]:
    """The models with a result on the track: their own summaries, else the track's board."""
    own = store.models(track)
    if own:
        return own
    board = store.boards.get(track)
    return sorted(board.board.models) if board is not None else []


def known_models(store: ResultStore) -> list[str]:
    return sorted({m for track in store.tracks() for m in models_on(store, track)})


def compare_models(
    store: ResultStore,
    models: Sequence[str],
    *,
    tracks: Sequence[str] | None = None,
    rounds: int = DEFAULT_ROUNDS,
    seed: int = DEFAULT_SEED,
    progress: Callable[[str], None] | None = None,
) -> CompareReport:
    """Every pair of `models` (each once, in the order given) on every track asked for (all
    tracks of the results by default)."""
    if len(models) < 2 or len(set(models)) != len(models):
        raise ValueError("name at least two different models")
    known = known_models(store)
    unknown = [m for m in models if m not in known]
    if unknown:
        raise UnknownModel(
            f"no results for {_named(unknown, known)}; "
            f"the results hold {', '.join(known) or 'no model'}"
        )
    chosen = list(tracks) if tracks else store.tracks()
    missing = [t for t in chosen if t not in store.tracks()]
    if missing:
        raise ValueError(
            f"no results for track {_named(missing, store.tracks())}; "
            f"the results hold {', '.join(store.tracks())}"
        )
    compared = []
    for track in chosen:
        if progress is not None:
            progress(track)
        compared.append(_compare_track(store, track, models, rounds, seed))
    settings = {"rounds": rounds, "seed": seed, "level": 0.95, "difference": "first model - second"}
    return CompareReport(models=tuple(models), tracks=tuple(compared), settings=settings)


def _compare_track(
    store: ResultStore, track: str, models: Sequence[str], rounds: int, seed: int
) -> TrackComparison:
    present = [m for m in models if m in models_on(store, track)]
    absent = [m for m in models if m not in present]
    title = track_title(track)
    notes = [f"no result on this track for {', '.join(absent)}"] if absent else []
    if len(present) < 2:
        return TrackComparison(
            track,
            title,
            tuple(present),
            notes=tuple(notes),
            skipped="fewer than two of the models have results on this track",
        )
    comparer = COMPARISONS[comparison_for(store, track)]
    try:
        compared = comparer(store, track, present, rounds=rounds, seed=seed)
    except (ValueError, NoForecast, UnreadableConfig, OutsideResults) as error:
        return TrackComparison(track, title, tuple(present), notes=tuple(notes), skipped=str(error))
    return TrackComparison(
        track,
        title,
        tuple(present),
        pairs=tuple(compared.pairs),
        notes=tuple(notes + compared.notes),
        mismatch={m: ids for m, ids in compared.missing.items() if ids},
    )


def _named(asked: Sequence[str], held: Sequence[str]) -> str:
    """The names asked for that the results lack, each with the held name it most likely
    misspells ("gpt4o (did you mean 'gpt-4o'?)")."""
    from vlmscope.config.hints import closest  # only on this error path

    def one(name: str) -> str:
        best = closest(name, held)
        return f"{name} (did you mean {best!r}?)" if best is not None else name

    return ", ".join(one(name) for name in asked)
