"""VisionArena's category classifiers (Chou et al., 2024, Sec. 4.3 and Appendix 12).

The paper labels each user prompt with 8 non-disjoint categories; seven come from a yes/no
classifier (Gemini 1.5 Flash) whose system prompt is printed in Appendix 12 and stored verbatim
in `vlmscope/prompts/visionarena_classify_<category>.txt` (coding is "contains a code block", a
rule, and has no prompt). The appendix says which classifier sees what, "as indicated in the
prompt titles" (and Table 5's "Uses Image" column agrees):

* `text` (prompt only: captioning, entity_recognition, creative_writing): one user turn holding
  the user prompt's text, no image part;
* `image` (image only: homework, diagram): one user turn holding the image(s) and nothing else;
  the paper adds no text, and the system prompt itself asks about "the given image";
* `both` (image + prompt: ocr, humor): the image(s), then the text (the codebase's convention
  for judge requests, `visionarena_bench_judge.txt`; the paper does not say the order);
* `responses` (the refusal prompt): labels model answers, not the prompt; the paper prints no
  template for presenting them, so no request is built for it (`classifier_request` refuses).

That is the `paper` prompt set. The labels VisionArena released were made by FastChat's
classifiers, whose prompts, message layout and reply reading differ: the `fastchat` set
(`vlmscope.judges.classify_fastchat`), the default, since it is the one that made the labels.

A reply is read by `parse_decision` (the paper set) or as FastChat reads it (the fastchat set);
one that cannot be read is an `unparseable` decision, counted, never a guess (the fastchat set
also reports how FastChat scored it: as no). `classifier_agreement` compares labels with reference labels (the
paper's Table 5: accuracy, precision, recall against a larger labeler).
"""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from vlmscope.judges.classify_fastchat import (
    FASTCHAT,
    PAPER,
    PROMPT_SETS,
    READINGS,
    fastchat_label,
    fastchat_parts,
    fastchat_word,
)
from vlmscope.judges.client import Judge, reasoning_record
from vlmscope.judges.request import judge_request
from vlmscope.judges.settings import JudgeSettings
from vlmscope.messages import ImagePart, Part, Request
from vlmscope.prompts import read_prompt_file

Inputs = Literal["text", "image", "both", "responses"]
Outcome = Literal["yes", "no", "unparseable", "request_failed"]

#: The dataset's `categories` keys that have a classifier prompt of the user prompt, in the
#: order of the paper's Fig. 4.
PROMPT_CATEGORIES = (
    "captioning",
    "ocr",
    "entity_recognition",
    "homework",
    "humor",
    "diagram",
    "creative_writing",
)
#: Every classifier prompt the appendix prints (the refusal one labels responses).
ALL_CATEGORIES = (*PROMPT_CATEGORIES, "refusal")
_INPUTS = ("text", "image", "both", "responses")

#: Greedy, as FastChat's classifiers (temperature 0); a "Do NOT explain" verdict is short.
CLASSIFIER_SETTINGS = JudgeSettings(max_new_tokens=512, temperature=0.0)


@dataclass(frozen=True)
class ClassifierPrompt:
    """One classifier: its dataset category key, what it sees, and its verbatim system text;
    for the fastchat set also the user message's `template` and how replies are read."""

    category: str
    inputs: Inputs
    text: str
    name: str
    version: int
    source: str
    prompt_set: str = PAPER
    template: str = ""
    reading: str = ""


def load_classifier_prompt(category: str, prompt_set: str = PAPER) -> ClassifierPrompt:
    """The packaged prompt of `category` in `prompt_set`, header checked:
    `visionarena_classify_<category>.txt` (paper) or `..._fastchat_<category>.txt`."""
    if prompt_set not in PROMPT_SETS:
        raise ValueError(f"prompt set {prompt_set!r} is not one of {', '.join(PROMPT_SETS)}")
    middle = "fastchat_" if prompt_set == FASTCHAT else ""
    source = f"visionarena_classify_{middle}{category}.txt"
    prompt = read_prompt_file(source)
    header = prompt.header
    inputs = header.get("inputs")
    if header.get("category") != category or inputs not in _INPUTS:
        raise ValueError(f"{source}: header needs category {category!r} and inputs in {_INPUTS}")
    reading = str(header.get("reading", ""))
    if prompt_set == FASTCHAT and reading not in READINGS:
        raise ValueError(f"{source}: header needs reading in {READINGS}")
    # The file ends with one newline after the prompt's last line; the prompt does not.
    text = prompt.text.removesuffix("\n")
    return ClassifierPrompt(
        category=category,
        inputs=inputs,
        text=text,
        name=str(header["name"]),
        version=int(header["version"]),
        source=str(header["source"]),
        prompt_set=prompt_set,
        template=str(header.get("template", "")),
        reading=reading,
    )


def load_classifier_prompts(
    categories: Sequence[str] = PROMPT_CATEGORIES, prompt_set: str = PAPER
) -> dict[str, ClassifierPrompt]:
    known = PROMPT_CATEGORIES if prompt_set == FASTCHAT else ALL_CATEGORIES
    unknown = [c for c in categories if c not in known]
    if unknown:
        raise ValueError(
            f"no {prompt_set} classifier prompt for {unknown}; known: {', '.join(known)}"
        )
    return {c: load_classifier_prompt(c, prompt_set) for c in categories}


def classifier_request(
    prompt: ClassifierPrompt,
    text: str,
    images: Sequence[bytes | ImagePart],
    settings: JudgeSettings = CLASSIFIER_SETTINGS,
    *,
    user_turns: Sequence[str] | None = None,
) -> Request:
    """The request for one user prompt: the classifier's system text, then one user turn with
    exactly the inputs its title names (module docstring), or, for the fastchat set, as
    FastChat lays it out from every user turn (`user_turns`, default `[text]`). An image-only
    classifier of a prompt without images, or a text classifier of an empty prompt, is asked
    anyway: the row is what it is, and the reply says what the classifier makes of it."""
    if prompt.prompt_set == FASTCHAT:
        turns = [text] if user_turns is None else user_turns
        parts_sent = fastchat_parts(prompt.inputs, prompt.template, turns, images)
        return judge_request(settings, parts_sent, system=prompt.text)
    image_parts = [p if isinstance(p, ImagePart) else ImagePart(p) for p in images]
    parts: list[Part | str]
    if prompt.inputs == "text":
        parts = [text]
    elif prompt.inputs == "image":
        parts = [*image_parts]
    elif prompt.inputs == "both":
        parts = [*image_parts, text]
    else:
        raise ValueError(
            f"{prompt.name}: the {prompt.category} classifier labels model responses, and the "
            "paper prints no template for them; it is not run on user prompts"
        )
    return judge_request(settings, parts, system=prompt.text)


# Lowercased, newlines removed (FastChat's reading), then a decision: an opening tag, yes or
# no (optionally in [brackets], echoing the prompt's "[yes/no]"), a closing tag written
# `<decision>` (as the paper prints it) or `</decision>` (FastChat's regex); either tag may be
# wrapped in backticks, as three of the paper's prompts show them; spaces inside allowed.
_DECISION = re.compile(r"`?<decision>`?\s*\[?\s*(yes|no)\s*\]?\s*`?</?decision>`?")


def parse_decision(reply: str) -> bool | None:
    """True for yes, False for no, None when the reply holds no readable decision.

    Accepted (case-insensitive, newlines ignored): `<decision>yes<decision>`,
    `<decision>yes</decision>`, with optional backticks around either tag, spaces inside the
    tags' span, and `[yes]` in brackets; text around the tags is ignored. None (unparseable):
    no such span (a bare "yes", `<decision>maybe</decision>`, an unclosed tag), or spans that
    disagree (a yes and a no). Repeated identical spans read as that decision.
    """
    found = set(_DECISION.findall(reply.replace("\n", "").replace("\r", "").lower()))
    if len(found) != 1:
        return None
    return found.pop() == "yes"


@dataclass(frozen=True)
class Decision:
    """One classifier's label of one prompt, with the raw reply (empty if the request failed)."""

    category: str
    label: bool | None
    outcome: Outcome
    reply: str
    error: str | None = None
    reasoning: Mapping[str, Any] = field(default_factory=dict)
    """The classifier's reasoning behind the reply (`reasoning_record`; empty without)."""
    fastchat_label: bool | None = None
    """The fastchat set: the label FastChat gives the reply (false when it reads no "yes",
    an unparseable reply included); None for the paper set."""

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "outcome": self.outcome,
            "reply": self.reply,
            "error": self.error,
            **({} if self.fastchat_label is None else {"fastchat_label": self.fastchat_label}),
            **self.reasoning,
        }


async def classify(
    judge: Judge,
    prompts: Mapping[str, ClassifierPrompt],
    text: str,
    images: Sequence[bytes | ImagePart],
    settings: JudgeSettings = CLASSIFIER_SETTINGS,
    *,
    user_turns: Sequence[str] | None = None,
) -> dict[str, Decision]:
    """Every classifier of `prompts` on one user prompt (`text`, the first user turn; the
    fastchat set reads every one of `user_turns`), asked concurrently through `judge`
    (cached). A failed request is `request_failed`; an unreadable reply `unparseable`."""
    categories = list(prompts)
    requests = [
        classifier_request(prompts[c], text, images, settings, user_turns=user_turns)
        for c in categories
    ]
    responses = await asyncio.gather(*(judge.ask(r) for r in requests))
    decisions: dict[str, Decision] = {}
    for category, response in zip(categories, responses, strict=True):
        if not response.ok:  # FastChat scores its error text as no
            fastchat_failed = False if prompts[category].prompt_set == FASTCHAT else None
            decisions[category] = Decision(
                category,
                None,
                "request_failed",
                response.text,
                response.error,
                fastchat_label=fastchat_failed,
            )
            continue
        prompt = prompts[category]
        fastchat = None
        if prompt.prompt_set == FASTCHAT:
            word = fastchat_word(response.text, prompt.reading)
            label = None if word not in ("yes", "no") else word == "yes"
            fastchat = fastchat_label(word)
        else:
            label = parse_decision(response.text)
        outcome: Outcome = "unparseable" if label is None else ("yes" if label else "no")
        trace = reasoning_record([response])
        decisions[category] = Decision(
            category, label, outcome, response.text, reasoning=trace, fastchat_label=fastchat
        )
    return decisions


@dataclass(frozen=True)
class ClassifierScores:
    """One category's labels against reference labels, over the rows with both.

    `compared` rows have a reference and a readable label; `support` of them are reference
    positives. precision = tp / (tp + fp), recall = tp / (tp + fn), F1 their harmonic mean,
    agreement = (tp + tn) / compared (Table 5's "accuracy"); NaN where the denominator is 0.
    `unparseable` rows have a reference but no label (unreadable reply or failed request),
    `without_reference` a label but no reference: both are counted and left out."""

    category: str
    compared: int
    support: int
    true_positive: int
    false_positive: int
    false_negative: int
    true_negative: int
    precision: float
    recall: float
    f1: float
    agreement: float
    unparseable: int
    without_reference: int

    def to_json(self) -> dict[str, Any]:
        return {
            k: (None if isinstance(v, float) and math.isnan(v) else v)
            for k, v in vars(self).items()
        }


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else math.nan


def category_scores(
    category: str, predicted: Sequence[bool | None], reference: Sequence[bool | None]
) -> ClassifierScores:
    """Scores of one category from aligned label lists (None = no label / no reference)."""
    if len(predicted) != len(reference):
        raise ValueError(f"{category}: {len(predicted)} labels but {len(reference)} references")
    tp = fp = fn = tn = unparseable = without_reference = 0
    for guess, truth in zip(predicted, reference, strict=True):
        if truth is None:
            without_reference += guess is not None
        elif guess is None:
            unparseable += 1
        elif guess and truth:
            tp += 1
        elif guess:
            fp += 1
        elif truth:
            fn += 1
        else:
            tn += 1
    precision, recall = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    f1 = (
        math.nan
        if math.isnan(precision) or math.isnan(recall)
        else (0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall))
    )
    compared = tp + fp + fn + tn
    return ClassifierScores(
        category=category,
        compared=compared,
        support=tp + fn,
        true_positive=tp,
        false_positive=fp,
        false_negative=fn,
        true_negative=tn,
        precision=precision,
        recall=recall,
        f1=f1,
        agreement=_ratio(tp + tn, compared),
        unparseable=unparseable,
        without_reference=without_reference,
    )


def classifier_agreement(
    predicted: Sequence[Mapping[str, bool | None]],
    reference: Sequence[Mapping[str, bool | None]],
    categories: Sequence[str] | None = None,
) -> dict[str, ClassifierScores]:
    """Per category scores of aligned rows of labels against rows of reference labels.

    `categories` defaults to every key of `predicted`, in first-seen order; a key missing from
    a row reads as None (no label, or no reference)."""
    if len(predicted) != len(reference):
        raise ValueError(f"{len(predicted)} labelled rows but {len(reference)} reference rows")
    if categories is None:
        categories = list(dict.fromkeys(k for row in predicted for k in row))
    return {
        c: category_scores(c, [row.get(c) for row in predicted], [row.get(c) for row in reference])
        for c in categories
    }
