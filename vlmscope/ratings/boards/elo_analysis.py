"""A VisionArena / Chatbot Arena board: FastChat ``report_elo_analysis_results`` (bt mode).

Select battles (filters, tstamp order, anonymous only), then online Elo, the
Bradley-Terry (or style-controlled) point fit, a bootstrap, percentile intervals and
CI-based ranks. With ``stream="fastchat"`` the bootstrap uses FastChat's random streams,
so the numbers match a run of the reference after ``np.random.seed(42)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from vlmscope.ratings.fits.bootstrap import (
    BootstrapResult,
    LegacySeed,
    Solver,
    Stream,
    bootstrap_bt,
    bootstrap_style_control,
)
from vlmscope.ratings.fits.bradley_terry import FASTCHAT_ANCHOR, Anchor
from vlmscope.ratings.fits.elo import online_elo
from vlmscope.ratings.inputs.battles import Battles, FloatArray, IntArray, check_battle_records
from vlmscope.ratings.inputs.filters import Record, RecordFilter, select_battles


@dataclass(frozen=True)
class Leaderboard:
    """One board; arrays are indexed like ``models`` (first-appearance order)."""

    models: tuple[str, ...]
    n_battles: int
    elo_rating_online: FloatArray
    rating: FloatArray
    variance: FloatArray
    rating_q025: FloatArray
    rating_q975: FloatArray
    num_battles: FloatArray
    final_ranking: IntArray
    bootstrap: BootstrapResult
    style_coef_final: FloatArray | None = None
    style_coef_bootstrap_median: FloatArray | None = None

    def order(self) -> list[str]:
        """Models by rating, best first."""
        return [self.models[i] for i in np.argsort(-self.rating, kind="stable")]

    def to_dict(self) -> dict[str, Any]:
        """Columns as ``model -> value`` maps (the FastChat leaderboard table)."""
        columns = {
            "elo_rating_online": self.elo_rating_online,
            "rating": self.rating,
            "variance": self.variance,
            "rating_q025": self.rating_q025,
            "rating_q975": self.rating_q975,
            "num_battles": self.num_battles,
            "final_ranking": self.final_ranking,
        }
        out: dict[str, Any] = {"n_battles": self.n_battles}
        for name, values in columns.items():
            out[name] = dict(zip(self.models, values.tolist(), strict=True))
        if self.style_coef_final is not None and self.style_coef_bootstrap_median is not None:
            out["style_coef_final"] = self.style_coef_final.tolist()
            out["style_coef_bootstrap_median"] = self.style_coef_bootstrap_median.tolist()
        return out


def report(
    records: Iterable[Record],
    *,
    filter_func: RecordFilter | None = None,
    num_bootstrap: int = 100,
    style_control: bool = False,
    stream: Stream = "fastchat",
    rng: np.random.Generator | None = None,
    seed: LegacySeed = 42,
    solver: Solver = "newton",
    langs: Sequence[str] = (),
    exclude_unknown_lang: bool = False,
    exclude_models: Sequence[str] = (),
    exclude_tie: bool = False,
    daily_vote_per_user: int | None = None,
    anchor: Anchor | None = FASTCHAT_ANCHOR,
) -> Leaderboard:
    """Build one board from clean-battle records (see :mod:`vlmscope.ratings.inputs.filters`).

    ``solver="fastchat"`` replays FastChat's optimiser for bit-level parity of the
    bootstrap samples; the default exact solver differs from it by ~0.01-0.05 points.
    A record that cannot be used raises ``BadRowError`` naming its index and field; filters
    that keep no battle raise ``ValueError``.
    """
    checked = check_battle_records(list(records), style=style_control).rows
    selected = select_battles(
        checked,
        filter_func=filter_func,
        langs=langs,
        exclude_unknown_lang=exclude_unknown_lang,
        exclude_models=exclude_models,
        exclude_tie=exclude_tie,
        daily_vote_per_user=daily_vote_per_user,
    )
    battles = Battles.from_records(selected, style=style_control)
    if len(battles) == 0:  # the reference fails inside its bootstrap's multinomial draw
        raise ValueError("no battles left to rate: the filters kept none of the records")
    fit = bootstrap_style_control if style_control else bootstrap_bt
    boot = fit(
        battles,
        rounds=num_bootstrap,
        rng=rng,
        stream=stream,
        seed=seed,
        solver=solver,
        anchor=anchor,
    )
    lower, upper = boot.interval(0.95)
    return Leaderboard(
        models=battles.models,
        n_battles=len(battles),
        elo_rating_online=online_elo(battles),
        rating=boot.rating,
        variance=boot.variance(),
        rating_q025=lower,
        rating_q975=upper,
        num_battles=battles.num_battles(),
        final_ranking=boot.ranks(0.95),
        bootstrap=boot,
        style_coef_final=boot.coefs,
        style_coef_bootstrap_median=(
            None if boot.coef_samples is None else np.median(boot.coef_samples, axis=0)
        ),
    )
