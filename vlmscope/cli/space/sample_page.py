"""The sample browser tab: pick a track, model, task and sample; read the whole exchange.

A judged conversation (ProBench) also shows its turns, each question with the model's and the
baseline's answers, in a box that appears only for such samples; a model's reasoning trace is
folded under the answer, shown only for answers that have one. Every model-written text
lands in a read-only text box, the scores in a plain-text table; the
pickers only offer names found in the results, and the store re-checks them, so no value from
the page ever becomes a path. A run whose details do not read shows why in the status box.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import gradio as gr

from vlmscope.cli.space.widgets import gallery, table, text
from vlmscope.leaderboard import browsed_samples as sv
from vlmscope.leaderboard.result_store import ResultStore, UnknownRun, UnreadableDetails
from vlmscope.leaderboard.safe_html import as_text
from vlmscope.leaderboard.sample_prompts import prompt_view

EMPTY_SCORES = sv.scores_frame({}, {})
NO_CONVERSATION = gr.update(value="", visible=False)
NO_REASONING = [gr.update(label="Reasoning trace", visible=False), ""]
NO_SAMPLE = ["no sample selected", "", "", [], "", "", "", EMPTY_SCORES, "", NO_CONVERSATION]
NO_SAMPLE += NO_REASONING


class SampleBrowser:
    """What each picker change shows; returns values (and choice updates) for the tab's widgets."""

    def __init__(self, store: ResultStore, prompt_data: Mapping[str, Path]) -> None:
        self.store = store
        self.prompt_data = prompt_data
        self.tracks = store.sample_tracks()

    def details(self, track: str, model: str) -> list[dict[str, Any]]:
        return self._details(track, model)[0]

    def _details(self, track: str, model: str) -> tuple[list[dict[str, Any]], str]:
        """The run's details rows, and why there are none when its files do not read."""
        try:
            return self.store.details(track, model), ""
        except UnknownRun:
            return [], ""
        except UnreadableDetails as err:
            return [], str(err)

    def show(self, track: str, model: str, sample_id: str | None) -> list[Any]:
        rows, error = self._details(track, model)
        row = sv.find_sample(rows, sample_id or "")
        if row is None:
            return [as_text(error) if error else NO_SAMPLE[0], *NO_SAMPLE[1:]]
        view = sv.sample_view(row)
        shown = prompt_view(track, view.meta, self.prompt_data)
        return [
            view.status,
            shown.note,
            shown.text,
            shown.pil_images(),
            view.response,
            view.parsed,
            view.reference,
            view.scores,
            view.judge,
            gr.update(value=view.conversation, visible=bool(view.conversation)),
            gr.update(
                label=view.reasoning_label or "Reasoning trace",
                visible=bool(view.reasoning_label),
            ),
            view.reasoning,
        ]

    def pick_task(self, track: str, model: str, task: str) -> list[Any]:
        choices = sv.sample_choices(self.details(track, model), task)
        first = choices[0][1] if choices else None
        return [gr.update(choices=choices, value=first), *self.show(track, model, first)]

    def pick_model(self, track: str, model: str) -> list[Any]:
        tasks = sv.task_names(self.details(track, model))
        return [gr.update(choices=tasks, value=tasks[0]), *self.pick_task(track, model, tasks[0])]

    def pick_track(self, track: str) -> list[Any]:
        models = self.store.models(track) if track in self.tracks else []
        first = models[0] if models else ""
        return [gr.update(choices=models, value=first or None), *self.pick_model(track, first)]


def sample_tab(store: ResultStore, prompt_data: Mapping[str, Path]) -> None:
    browser = SampleBrowser(store, prompt_data)
    first_track = browser.tracks[0] if browser.tracks else ""
    first = browser.pick_track(first_track)  # model, task, sample updates, then the views
    with gr.Row():
        track = gr.Dropdown(
            browser.tracks, value=first_track or None, label="Track", elem_id="samples-track"
        )
        model = gr.Dropdown(label="Model", elem_id="samples-model", **_fields(first[0]))
        task = gr.Dropdown(label="Task", elem_id="samples-task", **_fields(first[1]))
        sample = gr.Dropdown(label="Sample", elem_id="samples-sample", **_fields(first[2]))
    initial = first[3:]
    status = text("Status", lines=1, value=initial[0], elem_id="samples-status")
    with gr.Row():
        with gr.Column():
            prompt_note = text("Prompt source", lines=1, value=initial[1])
            prompt = text("Prompt", lines=8, value=initial[2], elem_id="samples-prompt")
        images = gallery(initial[3], "Prompt images", columns=3, height=330, fit_columns=False)
    with gr.Row():
        with gr.Column():
            response = text("Response", lines=8, value=initial[4], elem_id="samples-response")
            with gr.Accordion(
                initial[10]["label"],
                open=False,
                visible=initial[10]["visible"],
                elem_id="samples-reasoning-fold",
            ) as reasoning_fold:
                reasoning = text(
                    "Reasoning (kept apart from the answer, not scored)",
                    lines=8,
                    value=initial[11],
                    elem_id="samples-reasoning",
                )
            parsed = text("Parsed answer", lines=2, value=initial[5], elem_id="samples-parsed")
        with gr.Column():
            reference = text("Reference", lines=2, value=initial[6], elem_id="samples-reference")
            scores = table(
                initial[7],
                elem_id="samples-scores",
                label="Scores",
                show_search="none",
                wrap=True,  # an outcome can be a sentence (a pairwise verdict's)
                column_widths=["30%", "15%", "55%"],
            )
    conversation = text(
        "Conversation: each turn's question, the model's answer and the baseline's answer",
        lines=12,
        value=initial[9]["value"],
        visible=initial[9]["visible"],
        elem_id="samples-conversation",
    )
    judge = text("Judge reply", lines=4, value=initial[8], elem_id="samples-judge")
    views = [status, prompt_note, prompt, images, response, parsed, reference, scores, judge]
    views += [conversation, reasoning_fold, reasoning]
    # `.input` fires on user edits only, so one pick refreshes everything below it exactly once
    track.input(browser.pick_track, [track], [model, task, sample, *views])
    model.input(browser.pick_model, [track, model], [task, sample, *views])
    task.input(browser.pick_task, [track, model, task], [sample, *views])
    sample.input(browser.show, [track, model, sample], views)


def _fields(update: dict[str, Any]) -> dict[str, Any]:
    """The choices and value of a `gr.update` as constructor arguments."""
    return {"choices": update.get("choices", []), "value": update.get("value")}
