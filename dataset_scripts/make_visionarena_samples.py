"""Write the shipped VisionArena samples: chat, battle and bench, each `data/train-*.parquet`.

Images are drawn here with Pillow (tiny, reused across rows); nothing is copied from the real
data. The battle sample is what the rating engine and the Space rate:
- 100 battles among 5 made-up models with latent strengths, every pair met, so a Bradley-Terry
  fit and its bootstrap run;
- every winner value (model_a, model_b, tie, tie (bothbad)); English, Chinese and Russian;
  is_preset true and false; 2-turn battles; every category flag (captioning, entity_recognition,
  ocr, creative_writing, homework, diagram, humor, code, refusal; "exclude refusal" is
  refusal false);
- answers of different lengths with and without markdown; half the rows carry `conv_metadata`,
  the other half leave it null (computed by the reader).
Deterministic: the same Pillow and pyarrow versions write the same bytes.
Usage: python -m dataset_scripts.make_visionarena_samples [OUT_DIR]
"""

from __future__ import annotations

import io
import random
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image, ImageDraw, ImageFont

from vlmscope.datasets.visionarena import (
    BATTLE_FEATURES,
    BENCH_FEATURES,
    CHAT_FEATURES,
    messages,
)
from vlmscope.tracks.visionarena.conversations import CATEGORY_FLAGS, Turn
from vlmscope.tracks.visionarena.rows import BattleRow, conv_metadata

OUT_DIR = Path(__file__).resolve().parents[1] / "vlmscope" / "samples" / "visionarena"
FILE_NAME = "data/train-00000-of-00001.parquet"
FONT = ImageFont.load_default_imagefont()
#: Made-up models and their latent strengths (Elo-like points).
MODELS = {"lumen-vl-70b": 200, "orchid-vision-13b": 100, "corvid-vlm-34b": 50,
          "pixelsage-7b": 0, "tessera-vl-8b": -100}  # fmt: skip
N_BATTLES = 100
LANGUAGES = ("English", "English", "Chinese", "English", "Russian")
QUESTIONS = {
    "captioning": "Describe this image in detail.",
    "entity_recognition": "Which landmark is shown here?",
    "ocr": "What does the sign say?",
    "creative_writing": "Write a short poem inspired by this picture.",
    "homework": "Solve the equation on the board and show your steps.",
    "diagram": "Explain what this flowchart does.",
    "humor": "Why is this picture funny?",
    "code": "Write HTML that reproduces this layout.",
    "refusal": "Who is the person in this photo?",
    "is_code": "Turn this table into a Python list.",
}
FOREIGN = {"Chinese": "请描述这张图片。", "Russian": "Опишите это изображение."}
ANSWERS = (
    "A red square and a blue circle.",
    "The image shows a red square on the left and a blue circle on the right, drawn on a white "
    "background. The shapes do not overlap and there is a short caption below them that reads "
    "'shapes'. Overall it looks like a simple illustration for teaching colours and forms.",
    "## Summary\n\n1. A red square\n2. A blue circle\n\n### Details\n\n- White background\n"
    "- Caption: **shapes**",
    "**Short answer:** two shapes.\n\n* red square\n* blue circle\n* caption __shapes__",
    "I'm sorry, but I can't help identify people in images.",
)


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def drawings() -> list[bytes]:
    """Four tiny images: shapes, a sign, an equation, a flowchart."""
    out = []
    image = Image.new("RGB", (64, 48), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    draw.rectangle((6, 10, 26, 30), fill=(220, 30, 30))
    draw.ellipse((36, 10, 56, 30), fill=(30, 60, 220))
    draw.text((14, 34), "shapes", font=FONT, fill=(0, 0, 0))
    out.append(_png(image))
    for words, colour in (("EXIT", (20, 140, 60)), ("2x+1=7", (40, 40, 40))):
        image = Image.new("RGB", (64, 32), colour)
        ImageDraw.Draw(image).text((8, 10), words, font=FONT, fill=(255, 255, 255))
        out.append(_png(image))
    image = Image.new("RGB", (64, 48), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    draw.rectangle((20, 2, 44, 14), outline=(0, 0, 0))
    draw.line((32, 14, 32, 32), fill=(0, 0, 0))
    draw.rectangle((20, 32, 44, 44), outline=(0, 0, 0))
    out.append(_png(image))
    return out


def _image(data: bytes, name: str) -> dict[str, Any]:
    return {"bytes": data, "path": f"{name}.png"}


def _turns(questions: list[str], answers: list[str]) -> tuple[Turn, ...]:
    return tuple(
        turn
        for question, answer in zip(questions, answers, strict=True)
        for turn in (Turn("user", question), Turn("assistant", answer))
    )


def battle_rows() -> list[dict[str, Any]]:
    rng = random.Random(20240901)
    images = drawings()
    names = list(MODELS)
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    rows = []
    for k in range(N_BATTLES):
        model_a, model_b = pairs[k % len(pairs)]
        if rng.random() < 0.5:
            model_a, model_b = model_b, model_a
        p_a = 1 / (1 + 10 ** ((MODELS[model_b] - MODELS[model_a]) / 400))
        if k % 9 == 4:
            winner = "tie"
        elif k % 9 == 7:
            winner = "tie (bothbad)"
        else:
            winner = "model_a" if rng.random() < p_a else "model_b"
        flags = dict.fromkeys(CATEGORY_FLAGS, False)
        main = CATEGORY_FLAGS[k % len(CATEGORY_FLAGS)]
        flags[main] = True
        if k % 3 == 0:
            flags["ocr"] = True
        if main == "code":
            flags["is_code"] = True
        language = LANGUAGES[k % len(LANGUAGES)]
        question = FOREIGN.get(language, QUESTIONS[main])
        n_turns = 2 if k % 6 == 5 else 1
        questions = [question, "Can you make it shorter?"][:n_turns]
        style_a, style_b = k % len(ANSWERS), (k * 3 + 1) % len(ANSWERS)
        if main != "refusal":
            style_a, style_b = style_a % 4, style_b % 4
        side_a = _turns(questions, [ANSWERS[style_a], ANSWERS[(style_a + 1) % 4]][:n_turns])
        side_b = _turns(questions, [ANSWERS[style_b], ANSWERS[(style_b + 2) % 4]][:n_turns])
        question_id = f"va-battle-{k:03d}"
        row = BattleRow(question_id, model_a, model_b, winner, side_a, side_b, (), language,
                        n_turns, flags, k % 4 == 0, True, f"arena_user_{k % 17:03d}",
                        1725000000.0 + 97.5 * k, None)  # fmt: skip
        meta = conv_metadata(row)
        rows.append(
            {
                "question_id": question_id,
                "model_a": model_a,
                "model_b": model_b,
                "winner": winner,
                "judge": row.judge,
                "conversation_a": messages(side_a),
                "conversation_b": messages(side_b),
                "num_turns": n_turns,
                "language": language,
                "categories": flags,
                "images": [_image(images[k % len(images)], f"img{k % len(images)}")],
                "tstamp": row.tstamp,
                "is_preset": row.is_preset,
                "conv_metadata": meta if k % 2 == 0 else None,
            }
        )
    return rows


def chat_rows() -> list[dict[str, Any]]:
    images = drawings()
    specs = [
        ("va-chat-0", "lumen-vl-70b", ["Describe this image."], [ANSWERS[1]], "English",
         {"captioning": True}, False, ""),
        ("va-chat-1", "pixelsage-7b", ["这个标志写的是什么？", "用英文回答。"],
         ["标志上写着“EXIT”。", "It says EXIT."], "Chinese", {"ocr": True}, True, "vqa_examples"),
        ("va-chat-2", "orchid-vision-13b", [QUESTIONS["homework"]], [ANSWERS[2]], "English",
         {"homework": True, "diagram": True}, False, ""),
    ]  # fmt: skip
    rows = []
    for k, (cid, model, questions, answers, language, flags, preset, preset_set) in enumerate(
        specs
    ):
        turns = _turns(questions, answers)
        translated = _turns(["Translated: " + q for q in questions], answers)
        rows.append(
            {
                "images": [_image(images[k], f"img{k}")],
                "conversation_id": cid,
                "model": model,
                "num_turns": len(questions),
                "conversation": messages(turns),
                "translated_conversation": messages(translated),
                "language": language,
                "user_id": 1000 + k,
                "tstamp": 1725000000.0 + 60 * k,
                "is_preset": preset,
                "preset_dataset": preset_set,
                "categories": {**dict.fromkeys(CATEGORY_FLAGS, False), **flags},
            }
        )
    return rows


def bench_rows() -> list[dict[str, Any]]:
    images = drawings()
    specs = [
        ("va-bench-0", QUESTIONS["captioning"], [0], "captioning"),
        ("va-bench-1", QUESTIONS["ocr"], [1], "ocr"),
        ("va-bench-2", QUESTIONS["homework"], [2], "homework"),
        ("va-bench-3", "Compare the two images: what changed?", [0, 3], "diagram"),
    ]
    return [
        {
            "question_id": qid,
            "turns": [[{"role": "user", "content": question}]],
            "images": [_image(images[i], f"img{i}") for i in which],
            "category": category,
        }
        for qid, question, which, category in specs
    ]


def write_samples(out_dir: Path = OUT_DIR) -> list[Path]:
    written = []
    for name, rows, features in (
        ("chat", chat_rows(), CHAT_FEATURES),
        ("battle", battle_rows(), BATTLE_FEATURES),
        ("bench", bench_rows(), BENCH_FEATURES),
    ):
        path = out_dir / name / FILE_NAME
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(rows, schema=features.arrow_schema), path)
        written.append(path)
    return written


if __name__ == "__main__":
    for written in write_samples(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT_DIR):
        print(written)
