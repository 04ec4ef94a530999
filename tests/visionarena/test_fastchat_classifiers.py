"""The `fastchat` classifier set asks as FastChat's classifiers asked for VisionArena's released
labels: the system prompts, the user message (wrapping, text before image, one image re-encoded
as PNG) and the reading of replies agree with FastChat's own code run as published
(`tests/golden/visionarena_fastchat_classifiers.json`); it is the command's default, and the
summary names the set."""

from __future__ import annotations

import asyncio
import base64
import io
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from vlmscope.cache import ResponseCache
from vlmscope.cli import main
from vlmscope.config import CoinModelConfig
from vlmscope.judges.classify import (
    PROMPT_CATEGORIES,
    classifier_request,
    classify,
    load_classifier_prompt,
    load_classifier_prompts,
)
from vlmscope.judges.classify_fastchat import fastchat_label, fastchat_word
from vlmscope.judges.client import Judge
from vlmscope.messages import ImagePart, user_request
from vlmscope.models.coin import CoinBackend
from vlmscope.models.openai_payload import chat_body
from vlmscope.tracks.visionarena.battle_votes import CATEGORY_TAGS


def _golden(name: str) -> dict[str, Any]:
    path = Path(__file__).resolve().parents[1] / "golden" / name
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


GOLDEN = _golden("visionarena_fastchat_classifiers.json")
#: Both made by FastChat's own code; the sweep file on generated prompts (braces, unicode, an
#: empty turn) and replies (spaces, brackets, case, unicode, several or unclosed tags).
GOLDENS = {
    "shipped": GOLDEN,
    "sweep": _golden("visionarena_fastchat_classifier_sweep.json"),
}
IMAGE = base64.b64decode(GOLDEN["image_png_base64"])


def _tag(category: str) -> str:
    return CATEGORY_TAGS[category]


def _other_image() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), (0, 90, 0)).save(buffer, format="JPEG")
    return buffer.getvalue()


@pytest.mark.parametrize("category", PROMPT_CATEGORIES)
def test_the_system_prompt_and_template_are_fastchats_byte_for_byte(category: str) -> None:
    golden = GOLDEN["categories"][_tag(category)]
    prompt = load_classifier_prompt(category, "fastchat")
    assert prompt.text == golden["system_prompt"]
    assert prompt.template == golden["prompt_template"]
    assert prompt.source.startswith("lm-sys/FastChat fastchat/serve/monitor/classify/category.py")
    assert prompt.text != load_classifier_prompt(category).text  # the paper's differs


@pytest.mark.parametrize("golden_name", GOLDENS)
@pytest.mark.parametrize("category", PROMPT_CATEGORIES)
def test_the_messages_are_fastchats(category: str, golden_name: str) -> None:
    source = GOLDENS[golden_name]
    golden = source["categories"][_tag(category)]["messages"]
    turns = source["prompt"].split("\n")  # user turns, which FastChat joins with a newline
    request = classifier_request(
        load_classifier_prompt(category, "fastchat"),
        turns[0],
        # only the first image of the first turn is sent
        [base64.b64decode(source["image_png_base64"]), _other_image()],
        user_turns=turns,
    )
    # byte for byte, FastChat's `data:image/jpeg;base64,` label of its PNG re-encoding included
    assert chat_body(request, "judge", None)["messages"] == golden


def test_the_classifier_image_is_the_png_labelled_jpeg_and_other_images_keep_their_type() -> None:
    request = classifier_request(load_classifier_prompt("ocr", "fastchat"), "Read it.", [IMAGE])
    body = json.dumps(chat_body(request, "judge", None))
    assert '"data:image/jpeg;base64,' + GOLDEN["image_png_base64"] + '"' in body
    plain = user_request("Read it.", IMAGE)
    plain_body = json.dumps(chat_body(plain, "judge", None))
    assert '"data:image/png;base64,' + GOLDEN["image_png_base64"] + '"' in plain_body
    assert "image/jpeg" not in plain_body
    # the declared type is part of what is asked, so it has a key of its own; a part without
    # one keeps its key
    labelled = user_request("Read it.", ImagePart(IMAGE, mime="image/jpeg"))
    assert labelled.content_hash() != plain.content_hash()
    assert plain.content_hash() == (  # the key before parts could declare a type
        "c210254a5d1db963826464072dded6382cdeef173b1c4df40a80e433732cce6d"
    )


@pytest.mark.parametrize("golden_name", GOLDENS)
@pytest.mark.parametrize("category", PROMPT_CATEGORIES)
def test_replies_are_read_as_fastchat_reads_them(category: str, golden_name: str) -> None:
    prompt = load_classifier_prompt(category, "fastchat")
    flag = "creative_writing" if category == "creative_writing" else category
    for case in GOLDENS[golden_name]["categories"][_tag(category)]["replies"]:
        word = fastchat_word(case["reply"], prompt.reading)
        assert word == case["score"], case["reply"]
        assert fastchat_label(word) is case["post_process"][flag], case["reply"]
        if category == "creative_writing":  # FastChat keeps the word it read as the score
            assert case["post_process"]["score"] == word, case["reply"]


def test_an_unreadable_reply_is_counted_and_reported_as_fastchat_scored_it(
    tmp_path: Path,
) -> None:
    replies = [
        "<decision>yes</decision>",
        "<decision>maybe</decision>",
        "<decision>[no]</decision>",
    ]
    for reply in replies:
        cache = ResponseCache(tmp_path / f"{len(reply)}.sqlite")
        coin = CoinModelConfig(backend="coin", labels=["x"], reply=reply)
        judge = Judge(CoinBackend(coin), cache)
        prompts = load_classifier_prompts(["ocr", "creative_writing"], "fastchat")
        decisions = asyncio.run(classify(judge, prompts, "Read it.", [IMAGE]))
        cache.close()
        ocr, creative = decisions["ocr"], decisions["creative_writing"]
        if reply == replies[0]:
            assert (ocr.label, ocr.fastchat_label) == (True, True)
        elif reply == replies[1]:  # a word FastChat reads, but not yes or no
            assert (ocr.outcome, ocr.label, ocr.fastchat_label) == ("unparseable", None, False)
        else:  # brackets: FastChat's OCR reading finds nothing; creative writing drops them
            assert (ocr.outcome, ocr.fastchat_label) == ("unparseable", False)
            assert (creative.label, creative.fastchat_label) == (False, False)


def _data(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "a.png").write_bytes(IMAGE)
    rows = [{"id": "c1", "text": "Read the sign.", "images": ["a.png"]},
            {"id": "c2", "text": "Describe it.", "images": ["a.png"]}]  # fmt: skip
    data = folder / "prompts.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return data


def test_the_command_asks_the_fastchat_set_by_default_and_says_so(tmp_path: Path) -> None:
    judge = tmp_path / "judge.yaml"
    judge.write_text(
        'backend: coin\nname: coin\nlabels: ["yes", "eh"]\nreply: "<decision>{label}</decision>"\n'
    )
    out = tmp_path / "out"
    argv = ["visionarena", "classify", str(_data(tmp_path / "d")), "--judge", str(judge)]
    assert main([*argv, "--out", str(out), "--categories", "ocr", "humor"]) == 0
    summary: dict[str, Any] = json.loads((out / "summary.json").read_text())
    assert summary["prompt_set"] == "fastchat"
    assert summary["prompts"]["ocr"]["name"] == "visionarena_classify_fastchat_ocr"
    labels = [json.loads(line) for line in (out / "labels.jsonl").read_text().splitlines()]
    for row in labels:
        for category in ("ocr", "humor"):
            word = row[f"{category}_reply"][len("<decision>") : -len("</decision>")]
            assert row[category] is {"yes": True, "eh": None}[word]
            assert row[f"{category}_fastchat"] is (word == "yes")
    counted = sum(summary["counts"][c]["unparseable"] for c in ("ocr", "humor"))
    assert counted == sum(row[c] is None for row in labels for c in ("ocr", "humor")) > 0
