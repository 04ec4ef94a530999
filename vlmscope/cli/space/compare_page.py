"""The Compare tab: two to four models on one track, the paired numbers, then every sample side
by side.

Pick a track and its models: the page shows, for a pair of them, each number of the track's
comparison (`vlmscope.leaderboard.compare`: differences or head-to-head probabilities with 95%
intervals and p-values, the breakdowns, the lists), the pairwise matrix when more than two are
picked, and below, the samples every picked model has, side by side: the prompt with its images,
the reference, each model's answer and what it scored, filtered to where the pair split one way
("A right, B wrong", ...) or both fail, by task or category and language. Each sample has a link
that opens the page on it. Answers are values of read-only text boxes, tables hold plain text,
and the pickers (and a link) only select among names the results hold.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from vlmscope.cli.space.widgets import gallery, table, text, update_table
from vlmscope.leaderboard.compare import side_by_side as sbs
from vlmscope.leaderboard.compare.frames import list_frame, matrix_frame, numbers_frame
from vlmscope.leaderboard.compare.pairs import TrackComparison
from vlmscope.leaderboard.compare.run import compare_models, comparison_for, models_on
from vlmscope.leaderboard.result_store import ResultStore, UnknownRun, UnreadableDetails
from vlmscope.leaderboard.safe_html import as_text, markdown_literal
from vlmscope.leaderboard.sample_prompts import prompt_view
from vlmscope.leaderboard.track_info import track_title

MAX_MODELS = 4
ROUNDS = 1000
KEPT = 8
TAB_ID = "compare"
LENIENT: dict[str, Any] = {"allow_custom_value": True}
"""A picker's value is checked by `CompareView.view` against the names the results hold, not
by Gradio against the choices it last sent: a pick made while the choices change (the filters
narrow the samples) must not fail, it falls back to the first sample shown."""
NOTE = (
    "Pick a track and two to four models. **A** and **B** are the pair shown (pick it when "
    "more models are picked); each number is A's and B's value, then A - B (or the probability "
    "that A beats B) with its 95% interval and p-value, paired on the items both answered. "
    "Below, every sample both answered, side by side, with what each model scored: **right** "
    "means full marks on MEGA-Bench, graded correct on SimpleVQA, a win over the baseline on a "
    "judged track."
)


class CompareView:
    """What each control change shows, computed from the store; comparisons are cached."""

    def __init__(self, store: ResultStore, prompt_data: Mapping[str, Path]) -> None:
        self.store = store
        self.prompt_data = prompt_data
        self.tracks = [t for t in store.tracks() if len(models_on(store, t)) >= 2]
        self._compared: OrderedDict[tuple[str, tuple[str, ...]], TrackComparison] = OrderedDict()
        self._lock = threading.Lock()

    def known(self) -> dict[str, list[str]]:
        return {t: models_on(self.store, t) for t in self.tracks}

    def compared(self, track: str, models: Sequence[str]) -> TrackComparison:
        """The comparison of `models` on `track`, computed once and kept (a few, shared by every
        visitor; requests run on several threads)."""
        key = (track, tuple(models))
        with self._lock:
            kept = self._compared.get(key)
            if kept is not None:
                self._compared.move_to_end(key)
                return kept
        found = compare_models(self.store, models, tracks=[track], rounds=ROUNDS).tracks[0]
        with self._lock:
            self._compared[key] = found
            while len(self._compared) > KEPT:
                self._compared.popitem(last=False)
        return found

    def samples(self, track: str, models: Sequence[str]) -> tuple[list[sbs.SideBySide], str]:
        """The side-by-side samples, or why there are none."""
        if not self.store.models(track):
            return [], "this track's results are votes on a board: there are no samples to show"
        try:
            rows = {m: self.store.details(track, m) for m in models}
        except (UnknownRun, UnreadableDetails) as err:
            return [], as_text(err)
        return sbs.side_by_side(comparison_for(self.store, track), rows), ""

    def view(
        self,
        track: str | None,
        models: Sequence[str] | None,
        pair: str | None,
        split: str,
        task: str,
        language: str,
        sample_id: str | None,
        base: str,
    ) -> list[Any]:
        """Every output of the tab for the controls' values (unknown names fall back to the
        track's first ones, so nothing from the page is used unchecked)."""
        track = _known(track, self.tracks, fallback=_first(self.tracks))
        available = models_on(self.store, track) if track else []
        chosen = [m for m in dict.fromkeys(models or []) if m in available][:MAX_MODELS]
        if len(chosen) < 2:
            chosen = available[:2]
        pairs = [f"{a} vs {b}" for a, b in combinations(chosen, 2)]
        pair = _known(pair, pairs, fallback=_first(pairs))
        split = _known(split, sbs.FILTERS, fallback=sbs.ALL)
        if not track or len(chosen) < 2:
            return self._empty(available, chosen)
        compared = self.compared(track, chosen)
        a, b = pair.split(" vs ", 1)
        found = compared.pair(a, b)
        samples, why = self.samples(track, chosen)
        tasks, languages = sbs.choices(samples)
        task = _known(task, tasks, fallback=sbs.ANY)
        language = _known(language, languages, fallback=sbs.ANY)
        picked = sbs.pick(samples, a=a, b=b, split=split, task=task, language=language)
        labels = [(s.label(), s.sample_id) for s in picked]
        current = next(
            (s for s in picked if s.sample_id == sample_id), picked[0] if picked else None
        )
        label, matrix = matrix_frame(compared)
        lists = list(found.tables) if found else []
        return [
            gr.update(choices=available, value=chosen),
            gr.update(choices=pairs, value=pair),
            _note(compared, found),
            update_table(numbers_frame(found) if found else pd.DataFrame()),
            gr.update(value=matrix, visible=len(chosen) > 2, label=label),
            *_lists(lists),
            gr.update(value=split),
            gr.update(choices=tasks, value=task),
            gr.update(choices=languages, value=language),
            gr.update(choices=labels, value=current.sample_id if current else None),
            f"{len(picked)} of {len(samples)} samples shown" if samples else why,
            base + sbs.link_query(track, chosen, current.sample_id) if current else "",
            *self._sample(track, current, chosen),
        ]

    def _sample(
        self, track: str, sample: sbs.SideBySide | None, models: Sequence[str]
    ) -> list[Any]:
        answers = list(sample.answers) if sample else []
        shown = prompt_view(track, sample.meta, self.prompt_data) if sample else None
        updates: list[Any] = [
            shown.note if shown else "",
            shown.text if shown else "",
            shown.pil_images() if shown else [],
            sample.reference if sample else "",
        ]
        for i in range(MAX_MODELS):
            answer = answers[i] if i < len(answers) else None
            label = f"Answer of {answer.model}: {answer.verdict}" if answer else "Answer"
            updates.append(gr.update(visible=i < len(models)))  # the model's column
            updates.append(gr.update(value=answer.response if answer else "", label=label))
            updates.append(answer.scored if answer else "")
        return updates

    def _empty(self, available: list[str], chosen: list[str]) -> list[Any]:
        blank = gr.update(value=pd.DataFrame(), visible=False)
        return [
            gr.update(choices=available, value=chosen),
            gr.update(choices=[], value=None),
            "Nothing to compare: no track has results of two models.",
            update_table(pd.DataFrame()),
            blank,
            blank,
            blank,
            gr.update(value=sbs.ALL),
            gr.update(choices=[sbs.ANY], value=sbs.ANY),
            gr.update(choices=[sbs.ANY], value=sbs.ANY),
            gr.update(choices=[], value=None),
            "",
            "",
            *self._sample("", None, []),
        ]

    def open_link(self, params: Mapping[str, str], base: str) -> tuple[bool, list[Any]]:
        """The tab as a link opens it; False when the page was opened without a valid link."""
        link = sbs.parse_link(params, self.known())
        if link is None:
            return False, self.view(None, None, None, sbs.ALL, sbs.ANY, sbs.ANY, None, base)
        pair = f"{link.models[0]} vs {link.models[1]}"
        return True, self.view(
            link.track, link.models, pair, sbs.ALL, sbs.ANY, sbs.ANY, link.sample_id, base
        )


def _known(value: str | None, names: Sequence[str], *, fallback: str) -> str:
    """A control's value when it is one of the names the page offers, else `fallback`: a value
    from the page (or a link) is never used unchecked."""
    return value if value is not None and value in names else fallback


def _first(names: Sequence[str]) -> str:
    """The first name offered, or "" when there is none (the page then shows nothing)."""
    return names[0] if names else ""


def _note(compared: TrackComparison, pair: Any) -> str:
    lines = [f"**{markdown_literal(track_title(compared.track))}**"]
    if compared.skipped:
        lines.append(f"Not compared: {markdown_literal(compared.skipped)}.")
    if pair is not None:
        lines.append(f"{markdown_literal(pair.items)}. Method: {markdown_literal(pair.method)}.")
        for name, test in pair.tests.items():
            if isinstance(test, Mapping) and "p_value" in test:
                lines.append(
                    f"{markdown_literal(name)}: {test.get('only_a')} correct for A only, "
                    f"{test.get('only_b')} for B only, p = {test['p_value']:.3g}."
                )
    lines += [f"- {markdown_literal(note)}" for note in compared.notes]
    return "\n\n".join(lines)


def _lists(tables: Sequence[Any]) -> list[Any]:
    shown = []
    for i in range(2):
        if i < len(tables):
            frame = list_frame(tables[i])
            shown.append(gr.update(value=frame, label=as_text(tables[i].title), visible=True))
        else:
            shown.append(gr.update(value=pd.DataFrame(), visible=False))
    return shown


def base_url(request: gr.Request | None) -> str:
    """The page's address without its query, from the request that loaded it ("" if unknown:
    the link is then relative)."""
    if request is None:
        return ""
    referer = dict(request.headers).get("referer", "")
    return referer.split("?", 1)[0].split("#", 1)[0]


def compare_tab(
    store: ResultStore, prompt_data: Mapping[str, Path]
) -> tuple[CompareView, list[Any]]:
    """Lay the tab out and bind it; returns the view and the outputs a link fills on load."""
    view = CompareView(store, prompt_data)
    gr.Markdown(NOTE)
    with gr.Row():
        track = gr.Dropdown(
            view.tracks,
            value=view.tracks[0] if view.tracks else None,
            label="Track",
            elem_id="compare-track",
        )
        models = gr.Dropdown(
            multiselect=True,
            max_choices=MAX_MODELS,
            **LENIENT,
            label="Models (two to four)",
            elem_id="compare-models",
        )
        pair = gr.Dropdown(label="Pair shown (A vs B)", elem_id="compare-pair", **LENIENT)
    note = gr.Markdown(elem_id="compare-note")
    numbers = table(pd.DataFrame(), elem_id="compare-numbers", show_search="none", wrap=True)
    matrix = table(
        pd.DataFrame(), elem_id="compare-matrix", show_search="none", wrap=True, visible=False
    )
    lists = [
        table(
            pd.DataFrame(),
            elem_id=f"compare-list-{i}",
            show_search="none",
            wrap=True,
            visible=False,
        )
        for i in range(2)
    ]
    gr.Markdown("### Samples side by side")
    with gr.Row():
        split = gr.Radio(list(sbs.FILTERS), value=sbs.ALL, label="Show", elem_id="compare-filter")
        task = gr.Dropdown(
            [sbs.ANY], value=sbs.ANY, label="Task or category", elem_id="compare-task", **LENIENT
        )
        language = gr.Dropdown(
            [sbs.ANY], value=sbs.ANY, label="Language", elem_id="compare-language", **LENIENT
        )
    sample = gr.Dropdown(label="Sample", elem_id="compare-sample", **LENIENT)
    count = gr.Markdown(elem_id="compare-count")
    link = gr.Textbox(
        label="Link to this sample", interactive=False, elem_id="compare-link", buttons=["copy"]
    )
    with gr.Row():
        with gr.Column():
            prompt_note = text("Prompt source", lines=1)
            prompt = text("Prompt", lines=6, elem_id="compare-prompt")
        images = gallery([], "Prompt images", columns=3, height=260, fit_columns=False)
    reference = text("Reference", lines=2, elem_id="compare-reference")
    answers: list[Any] = []
    with gr.Row():
        for i in range(MAX_MODELS):
            with gr.Column(visible=i < 2) as column:
                answers.append(column)
                answers.append(text("Answer", lines=6, elem_id=f"compare-answer-{i}"))
                answers.append(text("Scored", lines=2, elem_id=f"compare-scored-{i}"))
    outputs = [models, pair, note, numbers, matrix, *lists, split, task, language, sample, count]
    outputs.append(link)
    outputs += [prompt_note, prompt, images, reference, *answers]
    controls = [track, models, pair, split, task, language, sample]

    def refresh(
        track_: str,
        models_: list[str],
        pair_: str,
        split_: str,
        task_: str,
        language_: str,
        sample_: str,
        request: gr.Request,
    ) -> list[Any]:
        values = (track_, models_, pair_, split_, task_, language_, sample_)
        return view.view(*values, base=base_url(request))

    def pick_models(
        track_: str, models_: list[str], pair_: str, split_: str, request: gr.Request
    ) -> list[Any]:
        """New models or a new pair: the filters start over."""
        return view.view(track_, models_, pair_, split_, sbs.ANY, sbs.ANY, None, base_url(request))

    def pick_track(track_: str, request: gr.Request) -> list[Any]:
        return view.view(track_, None, None, sbs.ALL, sbs.ANY, sbs.ANY, None, base_url(request))

    # `.input` fires on user picks only, so an update from a handler never refreshes twice
    track.input(pick_track, [track], outputs)
    for picker in (models, pair):
        picker.input(pick_models, [track, models, pair, split], outputs)
    for control in (split, task, language, sample):
        control.input(refresh, controls, outputs)
    return view, outputs
