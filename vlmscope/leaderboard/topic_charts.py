"""The Topics page's two figures: the top clusters as bars (the shape of the VisionArena paper's
Fig. 3 and Fig. 11: one bar per topic, its share of the prompts) and the 2-D map of the
prompts, coloured by cluster, each point's prompt shown on hover.

Prompts are user text: each goes through `plain_label` (escaped, so Plotly shows a tag as
characters and follows no link) before the line breaks the hover box needs are put in, and is
cut to `HOVER_CHARS`. Points are drawn as SVG (`Scatter`), one trace per cluster, outliers grey.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from vlmscope.leaderboard.safe_html import plain_label
from vlmscope.leaderboard.topics_view import TopicSet

HOVER_CHARS = 240
HOVER_WIDTH = 60
OUTLIER_COLOUR = "#b0b0b0"
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39",
           "#7b4173", "#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363")  # fmt: skip


def cluster_bars(frame: pd.DataFrame, title: str) -> go.Figure:
    """Horizontal bars, largest topic on top: share of the prompts, size on hover."""
    ordered = frame.iloc[::-1]
    figure = go.Figure(
        go.Bar(
            x=list(ordered["Share %"]),
            y=[plain_label(t) for t in ordered["Topic"]],
            orientation="h",
            customdata=list(ordered["Prompts"]),
            hovertemplate="%{y}<br>%{x:.2f}% of the prompts (%{customdata})<extra></extra>",
            marker={"color": [colour(int(c)) for c in ordered["Cluster"]]},
        )
    )
    figure.update_layout(
        title=plain_label(title),
        height=max(320, 28 * len(frame) + 120),
        margin={"t": 50, "b": 40, "l": 10, "r": 20},
        xaxis={"title": "share of the prompts (%)"},
        yaxis={"automargin": True},
        template="plotly_white",
    )
    return figure


def topic_map(topics: TopicSet, title: str) -> go.Figure:
    """The prompts at their 2-D coordinates, one colour per cluster, the prompt on hover."""
    figure = go.Figure()
    by_cluster: dict[int, list[dict[str, Any]]] = {}
    for point in topics.points:
        by_cluster.setdefault(int(point["cluster"]), []).append(point)
    for cluster in sorted(by_cluster, key=lambda c: (c < 0, c)):
        mine = by_cluster[cluster]
        figure.add_trace(
            go.Scatter(
                x=[p["x"] for p in mine],
                y=[p["y"] for p in mine],
                mode="markers",
                name=plain_label(topics.label(cluster)),
                marker={"size": 6, "color": colour(cluster), "opacity": 0.8},
                hovertext=[hover_text(str(p["prompt"])) for p in mine],
                hoverinfo="text",
            )
        )
    figure.update_layout(
        title=plain_label(title),
        height=560,
        margin={"t": 50, "b": 30, "l": 30, "r": 10},
        xaxis={"showticklabels": False, "zeroline": False},
        yaxis={"showticklabels": False, "zeroline": False},
        legend={"itemsizing": "constant"},
        template="plotly_white",
    )
    return figure


def colour(cluster: int) -> str:
    return OUTLIER_COLOUR if cluster < 0 else PALETTE[cluster % len(PALETTE)]


def hover_text(prompt: str) -> str:
    """The prompt escaped, cut and wrapped: `<br>` is the only markup in it."""
    cut = prompt if len(prompt) <= HOVER_CHARS else prompt[: HOVER_CHARS - 1] + "…"
    lines: Sequence[str] = textwrap.wrap(" ".join(cut.split()), HOVER_WIDTH) or [""]
    return "<br>".join(plain_label(line) for line in lines)
