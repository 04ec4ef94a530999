"""Plotly figures for the track pages: keyword radars, rates as bars and ratings as points, each
with its confidence interval.

Each takes the page's already-shaped data, so what a chart shows is what the table beside it
lists; every label from the data goes through `plain_label` (no markup reaches Plotly).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative

from vlmscope.leaderboard.keyword_intervals import KeywordScore
from vlmscope.leaderboard.radar_dodge import dodge_offsets, keyword_angles
from vlmscope.leaderboard.safe_html import plain_label
from vlmscope.leaderboard.simplevqa_view import RatePoint
from vlmscope.ratings.boards.board import ModelRating

HEIGHT = 440
_LAYOUT = {
    "height": HEIGHT,
    "margin": {"t": 50, "b": 40, "l": 40, "r": 40},
    "template": "plotly_white",
}
COLOURS = qualitative.Plotly
"""A model's polygon and its whiskers share a colour (the template's own order)."""


def keyword_radar(
    frame: pd.DataFrame,
    models: Sequence[str],
    title: str,
    scores: Sequence[KeywordScore] = (),
) -> go.Figure:
    """One closed polygon per model over the keywords of `frame` (a `keyword_frame`), each
    keyword on its spoke; with `scores` (`keyword_intervals.keyword_scores`), each model's score
    as a marker and its 95% interval as a radial whisker in the model's colour, turned a little
    off the spoke by the model's place in `models` (`radar_dodge`) so that two models' whiskers
    on one keyword stand apart, and the model, score, interval (or why none) and task count on
    hover, on the marker as on the polygon's vertex."""
    labels = [plain_label(k) for k in frame["Keyword"]]
    angles = keyword_angles(len(labels))
    offsets = dodge_offsets(len(models), len(labels))
    by_key = {(s.model, s.keyword): s for s in scores}
    figure = go.Figure()
    for i, model in enumerate(models):
        if model not in frame.columns or not labels:
            continue
        colour = COLOURS[i % len(COLOURS)]
        values = [None if pd.isna(v) else float(v) for v in frame[model]]
        mine = [by_key.get((model, str(k))) for k in frame["Keyword"]]
        hover = [plain_label(s.hover()) if s else "" for s in mine]
        figure.add_trace(
            go.Scatterpolar(
                r=[*values, values[0]],
                theta=[*angles, angles[0]],
                fill="toself",
                opacity=0.6,
                name=plain_label(model),
                legendgroup=plain_label(model),
                line={"color": colour},
                hovertext=[*hover, hover[0]] if scores else None,
                hovertemplate="%{fullData.name}<br>%{hovertext}<extra></extra>" if scores else None,
            )
        )
        placed = [
            (angle + offsets[i], label, s)
            for angle, label, s in zip(angles, labels, mine, strict=True)
            if s is not None
        ]
        if placed:
            figure.add_traces(_dodged_marks(model, colour, placed))
    figure.update_layout(
        title=plain_label(title),
        polar={
            "radialaxis": {"range": [0, 100]},
            "angularaxis": {
                "type": "linear",
                "thetaunit": "degrees",
                "rotation": 90,
                "direction": "clockwise",
                "tickmode": "array",
                "tickvals": angles,
                "ticktext": labels,
                "showgrid": True,
            },
        },
        **_LAYOUT,
    )
    return figure


def _dodged_marks(
    model: str, colour: str, placed: Sequence[tuple[float, str, KeywordScore]]
) -> list[go.Scatterpolar]:
    """The model's whiskers (those with an interval) and score markers at their turned angles;
    each point carries its keyword (`customdata`) so what it stands for is read off the figure."""
    whiskers = [(angle, label, s.bounds) for angle, label, s in placed if s.bounds]
    marks = []
    if whiskers:
        marks.append(
            go.Scatterpolar(
                r=[v for _, _, b in whiskers for v in (b.lower, b.upper, None)],
                theta=[v for a, _, _ in whiskers for v in (a, a, None)],
                customdata=[v for _, k, _ in whiskers for v in (k, k, None)],
                mode="lines",
                line={"color": colour, "width": 3},
                name=plain_label(f"{model} 95% CI"),
                legendgroup=plain_label(model),
                showlegend=False,
                hoverinfo="skip",
            )
        )
    marks.append(
        go.Scatterpolar(
            r=[s.value for _, _, s in placed],
            theta=[a for a, _, _ in placed],
            customdata=[k for _, k, _ in placed],
            mode="markers",
            marker={"color": colour, "size": 7, "line": {"color": "white", "width": 1}},
            name=plain_label(model),
            legendgroup=plain_label(model),
            showlegend=False,
            hovertext=[plain_label(s.hover()) for _, _, s in placed],
            hovertemplate="%{fullData.name}<br>%{hovertext}<extra></extra>",
        )
    )
    return marks


def rating_points(ratings: Mapping[str, ModelRating], title: str) -> go.Figure:
    """Ratings best first as points, each with its 95% interval as whiskers (FastChat's
    `visualize_bootstrap_scores`): a rating is a place on a scale without a zero, so a bar's
    height, measured from wherever the axis starts, would make 1089 look twice 1000. No
    ratings (a view with too few votes) gives an empty chart under its title."""
    ordered = sorted(ratings.items(), key=lambda kv: -kv[1].rating)
    figure = go.Figure(
        go.Scatter(
            x=[plain_label(m) for m, _ in ordered],
            y=[r.rating for _, r in ordered],
            mode="markers",
            marker={"size": 10},
            error_y={
                "type": "data",
                "symmetric": False,
                "array": [r.upper - r.rating for _, r in ordered],
                "arrayminus": [r.rating - r.lower for _, r in ordered],
                "width": 6,
            },
            hovertemplate="%{x}: %{y:.1f}<extra></extra>",
        )
    )
    figure.update_layout(
        title=plain_label(title),
        xaxis={"title": "model"},
        yaxis={"title": "rating (95% interval)"},
        **_LAYOUT,
    )
    return figure


def rate_bars(points: Sequence[RatePoint], metric: str, title: str) -> go.Figure:
    """Grouped bars: one trace per model, one group per breakdown value, 95% intervals."""
    figure = go.Figure()
    for model in dict.fromkeys(p.model for p in points):
        mine = [p for p in points if p.model == model]
        figure.add_trace(
            go.Bar(
                name=plain_label(model),
                x=[plain_label(p.group) for p in mine],
                y=[p.value for p in mine],
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": [(p.upper - p.value) if p.upper is not None else 0 for p in mine],
                    "arrayminus": [(p.value - p.lower) if p.lower is not None else 0 for p in mine],
                },
            )
        )
    figure.update_layout(
        title=plain_label(title),
        barmode="group",
        yaxis={"range": [0, 100], "title": f"{metric} (%)"},
        **_LAYOUT,
    )
    return figure


def coefficient_bars(frame: pd.DataFrame, features: Sequence[str], title: str) -> go.Figure:
    """Grouped bars: one group per row of `frame` (its first column names it), one bar per
    style feature; rows without coefficients (no style-controlled fit) are left out."""
    label = frame.columns[0]
    fitted = frame.dropna(subset=list(features), how="all")
    figure = go.Figure()
    for feature in features:
        figure.add_trace(
            go.Bar(
                name=plain_label(feature),
                x=[plain_label(name) for name in fitted[label]],
                y=[None if pd.isna(v) else float(v) for v in fitted[feature]],
            )
        )
    figure.update_layout(
        title=plain_label(title),
        barmode="group",
        yaxis={"title": "style coefficient"},
        **_LAYOUT,
    )
    return figure
