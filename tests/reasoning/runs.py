"""Whole `vlmscope run`s on written configs, and what the tests read back from them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from tests.reasoning.stubs import Thinker, message_key
from vlmscope.cli import main
from vlmscope.config import OpenAIModelConfig, parse_config
from vlmscope.hub_export import load_folder
from vlmscope.models.images import apply_image_budget
from vlmscope.models.openai_request import request_body
from vlmscope.runner.results import result_dir
from vlmscope.tracks.megabench.oracle import PREFIX
from vlmscope.tracks.registry import build_track

LIMIT = 2


def vlmscope_run(tmp_path: Path, raw: dict[str, Any], name: str = "run") -> tuple[int, Path]:
    """`vlmscope run --config FILE --limit 2`; the exit status and the output folder."""
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    out = Path(raw["output_dir"])
    return main(["run", "--config", str(path), "--limit", str(LIMIT)]), out


def gold_answers(raw: dict[str, Any], model: str, cut: str = "") -> Thinker:
    """A thinker that answers `model`'s MEGA-Bench and SimpleVQA requests with their gold
    answers, bare (MEGA-Bench's without the oracle's `Answer:` line: only the thinking says
    `Answer:`), and is cut off in its thinking on questions that hold `cut`.

    A request is known by its last message as the OpenAI backend sends it (the same image
    budget, the same body), since several MEGA-Bench queries share their text."""
    config = parse_config(raw)
    model_config = next(m for m in config.models if m.name == model)
    assert isinstance(model_config, OpenAIModelConfig)
    answers, cut_off = {}, set()
    for track_config in config.tracks:
        track = build_track(track_config, limit=LIMIT)
        for sample in track.samples(model_config):
            budgeted, _ = apply_image_budget(sample.request, model_config.image_budget)
            key = message_key(request_body(budgeted, model_config)["messages"][-1])
            if track_config.name == "megabench" and sample.reference is not None:
                answers[key] = sample.reference.removeprefix(PREFIX)
            elif track_config.name == "simplevqa":
                answers[key] = str(sample.meta["answer"])
            if cut and cut in sample.request.turns[-1].text:
                cut_off.add(key)
    return Thinker(answers, cut_off=frozenset(cut_off))


def details(out: Path, model: str, track: str) -> list[dict[str, Any]]:
    return load_folder(result_dir(out, model, track, LIMIT), "details").to_list()


def summary(out: Path, model: str, track: str) -> dict[str, Any]:
    row = load_folder(result_dir(out, model, track, LIMIT), "summary")[0]
    return dict(row["scores"])


def extra(row: dict[str, Any]) -> dict[str, Any]:
    return dict(json.loads(row["extra"]))
