"""The Topics tab: what people ask, as the VisionArena paper maps it (Sec. 3, Fig. 3 and 11).

One topic folder at a time (a picker when the results hold several): the top clusters as
bars, the 2-D map of the prompts coloured by cluster with each prompt on hover, and the
clusters' table (size, share, keywords, a typical prompt). What is shown comes from
`vlmscope.leaderboard.topics_view` and `topic_charts`; the picker offers only the folders
found at start, and every prompt is text (escaped in the charts, a table cell's value).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gradio as gr
import plotly.graph_objects as go

from vlmscope.cli.space.widgets import table, update_table
from vlmscope.leaderboard.result_store import Problem
from vlmscope.leaderboard.safe_html import markdown_literal
from vlmscope.leaderboard.topic_charts import cluster_bars, topic_map
from vlmscope.leaderboard.topics_view import TopicSet, top_clusters, topics_note

NOTE = (
    "Topic clusters of the conversations' first prompts, made as the VisionArena paper made "
    "its topic map (Sec. 3, Fig. 3 and 11): CLIP image and text embeddings averaged, UMAP, "
    "HDBSCAN, keywords by c-TF-IDF (BERTopic). Hover a point of the map to read its prompt."
)


def topics_tab(sets: Sequence[TopicSet], skipped: Sequence[Problem] = ()) -> None:
    by_name = {s.name: s for s in sets}
    gr.Markdown(NOTE)
    picker = gr.Dropdown(
        list(by_name),
        value=sets[0].name,
        label="Topic map",
        visible=len(sets) > 1,
        elem_id="topics-picker",
    )
    first = view(sets[0])
    note = gr.Markdown(first[0], elem_id="topics-note")
    bars = gr.Plot(first[1], show_label=False, elem_id="topics-bars")
    mapped = gr.Plot(first[2], show_label=False, elem_id="topics-map")
    clusters = table(first[3], elem_id="topics-table", wrap=True)
    if skipped:
        listed = "; ".join(
            f"{markdown_literal(p.folder)}: {markdown_literal(p.error)}" for p in skipped
        )
        gr.Markdown(f"Topic folders skipped: {listed}", elem_id="topics-skipped")

    def pick(name: str) -> list[Any]:
        shown = view(by_name.get(name, sets[0]))
        return [shown[0], shown[1], shown[2], update_table(shown[3])]

    picker.input(pick, [picker], [note, bars, mapped, clusters])


def view(topics: TopicSet) -> tuple[str, go.Figure, go.Figure, Any]:
    frame = top_clusters(topics)
    title = topics.settings.get("source") or topics.name
    return (
        markdown_literal(topics_note(topics)),
        cluster_bars(frame, f"Top {len(frame)} topic clusters of {title}"),
        topic_map(topics, f"Prompts of {title} by topic"),
        frame,
    )
