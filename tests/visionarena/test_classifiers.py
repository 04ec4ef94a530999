"""VisionArena's category classifiers (`vlmscope.judges.classify`, `vlmscope visionarena classify`).

Checked: every prompt the paper's Appendix 12 prints is packaged, byte-identical to the paper text
(`tests/golden/visionarena_classifier_prompts.txt`, itself checked against the paper when the
paper file is present); each request holds exactly the inputs its title names; replies are read
or counted as unparseable, never guessed; the metrics on hand-computed cases; the command end to
end with the coin judge (labels written, a rerun asks nothing) and through the OpenAI backend.
"""

from __future__ import annotations

import asyncio
import io
import json
import math
from importlib import resources
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from PIL import Image

from tests.servers import Call, OpenAIStub
from vlmscope.cache import ResponseCache
from vlmscope.cli import main
from vlmscope.config import CoinModelConfig
from vlmscope.judges.classify import (
    ALL_CATEGORIES,
    PROMPT_CATEGORIES,
    classifier_agreement,
    classifier_request,
    classify,
    load_classifier_prompt,
    load_classifier_prompts,
    parse_decision,
)
from vlmscope.judges.client import Judge
from vlmscope.messages import ImagePart, TextPart
from vlmscope.models.coin import CoinBackend
from vlmscope.tracks.visionarena.conversations import CATEGORY_FLAGS

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "visionarena_classifier_prompts.txt"
TITLES = {
    "ocr": ("OCR System Prompt (image + prompt)", "both"),
    "refusal": ("Refusal System Prompt (responses only)", "responses"),
    "captioning": ("Captioning System Prompt (prompt only)", "text"),
    "homework": ("Homework System Prompt (image only)", "image"),
    "humor": ("Humor Systems Prompt (image + prompt)", "both"),
    "entity_recognition": ("Entity Recognition System Prompt (prompt only)", "text"),
    "diagram": ("Diagram System Prompt (image only)", "image"),
    "creative_writing": ("Creative Writing System Prompt (prompt only)", "text"),
}


def _prompt_after(title: str, text: str) -> str:
    """The prompt printed under `title`: from after its blank line through 'Do NOT explain.'."""
    start = text.index(title + "\n\n") + len(title) + 2
    end = "Do NOT explain."
    return text[start : text.index(end, start) + len(end)]


def _png(colour: str) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), colour).save(buffer, format="PNG")
    return buffer.getvalue()


# -- prompts -----------------------------------------------------------------------------------


def packaged_categories() -> list[str]:
    """The categories with a packaged prompt file of the paper's set."""
    folder = resources.files("vlmscope") / "prompts"
    prefix, suffix = "visionarena_classify_", ".txt"
    names = [
        p.name
        for p in folder.iterdir()
        if p.name.startswith(prefix) and not p.name.startswith(f"{prefix}fastchat_")
    ]
    return sorted(n[len(prefix) : -len(suffix)] for n in names if n.endswith(suffix))


def test_every_prompt_of_the_appendix_is_packaged_once() -> None:
    assert packaged_categories() == sorted(TITLES) == sorted(ALL_CATEGORIES)
    assert set(ALL_CATEGORIES) <= set(CATEGORY_FLAGS)


@pytest.mark.parametrize("category", sorted(TITLES))
def test_prompt_text_is_the_papers_byte_for_byte(category: str) -> None:
    title, inputs = TITLES[category]
    prompt = load_classifier_prompt(category)
    assert prompt.text == _prompt_after(title, GOLDEN.read_text(encoding="utf-8"))
    assert prompt.inputs == inputs
    header = load_classifier_prompts([category])[category]
    assert header.name == f"visionarena_classify_{category}" and header.version == 1
    assert "Appendix 12" in prompt.source and title in prompt.source


def test_the_comparison_can_fail() -> None:
    """A prompt with its backticks normalised away is not the paper's."""
    ocr = load_classifier_prompt("ocr").text
    assert "`<decision>`" in ocr
    assert ocr.replace("`", "") != _prompt_after(TITLES["ocr"][0], GOLDEN.read_text("utf-8"))


# -- requests ----------------------------------------------------------------------------------

IMAGES = (_png("red"), _png("blue"))
TEXT = "What is written on the sign?"


@pytest.mark.parametrize("category", PROMPT_CATEGORIES)
def test_each_request_holds_exactly_the_inputs_its_title_names(category: str) -> None:
    prompt = load_classifier_prompt(category)
    request = classifier_request(prompt, TEXT, IMAGES)
    assert request.system == prompt.text
    assert request.params.temperature == 0.0
    (turn,) = request.turns
    assert turn.role == "user"
    kinds = ["image" if isinstance(p, ImagePart) else "text" for p in turn.parts]
    expected = {"text": ["text"], "image": ["image", "image"], "both": ["image", "image", "text"]}
    assert kinds == expected[prompt.inputs]
    assert [p.data for p in turn.parts if isinstance(p, ImagePart)] == (
        [] if prompt.inputs == "text" else list(IMAGES)
    )
    texts = [p.text for p in turn.parts if isinstance(p, TextPart)]
    assert texts == ([] if prompt.inputs == "image" else [TEXT])


def test_titles_agree_with_table_5_uses_image() -> None:
    uses_image = {"homework": True, "captioning": False, "humor": True, "ocr": True,
                  "entity_recognition": False, "creative_writing": False, "diagram": True}  # fmt: skip
    for category, expected in uses_image.items():
        assert (load_classifier_prompt(category).inputs != "text") is expected


def test_the_refusal_prompt_builds_no_request_of_a_user_prompt() -> None:
    with pytest.raises(ValueError, match="responses"):
        classifier_request(load_classifier_prompt("refusal"), TEXT, IMAGES)


# -- replies -----------------------------------------------------------------------------------

DECISIONS = [
    ("<decision>yes<decision>", True),
    ("<decision>no<decision>", False),
    ("<decision>yes</decision>", True),
    ("<Decision>NO</Decision>", False),
    ("`<decision>`yes`<decision>`", True),
    ("<decision>[yes]<decision>", True),
    ("<decision> no </decision>", False),
    ("Sure.\n<decision>\nyes\n</decision>\n", True),
    ("<decision>yes</decision> <decision>yes</decision>", True),
    ("<decision>yes</decision> then <decision>no</decision>", None),
    ("yes", None),
    ("<decision>[yes/no]<decision>", None),
    ("<decision>maybe</decision>", None),
    ("<decision>yes", None),
    ("<decision>yess</decision>", None),
    ("", None),
]


@pytest.mark.parametrize(("reply", "expected"), DECISIONS)
def test_parse_decision(reply: str, expected: bool | None) -> None:
    assert parse_decision(reply) is expected


def _coin_judge(tmp_path: Path, reply: str, labels: list[str]) -> Judge:
    config = CoinModelConfig(backend="coin", name="coin-judge", labels=labels, reply=reply)
    return Judge(CoinBackend(config), ResponseCache(tmp_path / "cache.sqlite"))


def test_classify_keeps_the_reply_and_counts_unparseable(tmp_path: Path) -> None:
    prompts = load_classifier_prompts()
    judge = _coin_judge(tmp_path, "I think <decision>{label}</decision>", ["perhaps"])
    decisions = asyncio.run(classify(judge, prompts, TEXT, IMAGES))
    assert set(decisions) == set(PROMPT_CATEGORIES)
    for category, decision in decisions.items():
        assert decision.category == category
        assert decision.label is None and decision.outcome == "unparseable"
        assert decision.reply == "I think <decision>perhaps</decision>"
    assert judge.counts["asked"] == len(PROMPT_CATEGORIES)
    again = asyncio.run(classify(judge, prompts, TEXT, IMAGES))
    assert again == decisions and judge.counts["cached"] == len(PROMPT_CATEGORIES)


def test_classify_reads_yes_and_no(tmp_path: Path) -> None:
    judge = _coin_judge(tmp_path, "<decision>{label}<decision>", ["yes"])
    decisions = asyncio.run(classify(judge, load_classifier_prompts(["ocr"]), TEXT, IMAGES))
    assert decisions["ocr"].label is True and decisions["ocr"].outcome == "yes"


# -- metrics -----------------------------------------------------------------------------------


def test_agreement_on_a_hand_computed_case() -> None:
    T, F, N = True, False, None
    predicted = [{"ocr": p} for p in (T, T, T, F, F, F, N, T, N)]
    reference = [{"ocr": r} for r in (T, T, F, T, F, F, T, N, N)]
    (scores,) = classifier_agreement(predicted, reference).values()
    # tp 2, fp 1, fn 1, tn 2; one unparseable with a reference, one label without one.
    assert (scores.true_positive, scores.false_positive) == (2, 1)
    assert (scores.false_negative, scores.true_negative) == (1, 2)
    assert scores.compared == 6 and scores.support == 3
    assert scores.unparseable == 1 and scores.without_reference == 1
    assert scores.precision == pytest.approx(2 / 3) and scores.recall == pytest.approx(2 / 3)
    assert scores.f1 == pytest.approx(2 / 3) and scores.agreement == pytest.approx(4 / 6)


def test_agreement_per_category_and_undefined_ratios() -> None:
    predicted = [{"humor": False, "diagram": True}, {"humor": False, "diagram": False}]
    reference = [{"humor": False, "diagram": True}, {"humor": False, "diagram": True}]
    scores = classifier_agreement(predicted, reference)
    humor, diagram = scores["humor"], scores["diagram"]
    assert math.isnan(humor.precision) and math.isnan(humor.recall) and math.isnan(humor.f1)
    assert humor.agreement == 1.0 and humor.support == 0
    assert humor.to_json()["precision"] is None
    assert diagram.precision == 1.0 and diagram.recall == 0.5
    assert diagram.f1 == pytest.approx(2 / 3) and diagram.agreement == 0.5


def test_agreement_rejects_misaligned_rows() -> None:
    with pytest.raises(ValueError, match="rows"):
        classifier_agreement([{"ocr": True}], [])


# -- the command -------------------------------------------------------------------------------


def _write_data(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "a.png").write_bytes(_png("red"))
    (folder / "b.png").write_bytes(_png("green"))
    rows = [
        {"id": "c1", "text": "Describe this picture.", "images": ["a.png"],
         "categories": {"captioning": True, "ocr": False, "humor": False}},
        {"id": "c2", "text": "Read the sign.", "images": ["b.png"],
         "categories": {"captioning": False, "ocr": True, "humor": False}},
        {"id": "c3", "text": "Why is this funny?", "images": ["a.png", "b.png"],
         "categories": {"captioning": False, "ocr": None, "humor": True}},
    ]  # fmt: skip
    data = folder / "prompts.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return data


def _coin_config(path: Path) -> Path:
    path.write_text(
        'backend: coin\nname: coin-judge\nlabels: ["yes", "no", "eh"]\n'
        'reply: "<decision>{label}<decision>"\n',
        encoding="utf-8",
    )
    return path


def test_command_end_to_end_with_the_coin_judge(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, judge = _write_data(tmp_path / "data"), _coin_config(tmp_path / "judge.yaml")
    out = tmp_path / "out"
    argv = ["visionarena", "classify", str(data), "--judge", str(judge), "--out", str(out)]
    argv += ["--categories", "captioning", "ocr", "humor", "--reference-labels"]
    argv += ["--prompt-set", "paper"]
    assert main(argv) == 0
    first = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert first["judge_calls"] == {"asked": 9, "cached": 0}
    labels = [json.loads(line) for line in (out / "labels.jsonl").read_text().splitlines()]
    assert [row["id"] for row in labels] == ["c1", "c2", "c3"]
    outcomes = {"yes": True, "no": False, "eh": None}
    for row in labels:
        for category in ("captioning", "ocr", "humor"):
            label = row[f"{category}_reply"].removeprefix("<decision>").removesuffix("<decision>")
            assert row[category] is outcomes[label]
    table = pq.read_table(out / "labels.parquet").to_pylist()
    assert table == labels
    for category, counts in first["counts"].items():
        column = [row[category] for row in labels]
        assert counts.get("unparseable", 0) == column.count(None)
        assert counts.get("yes", 0) == column.count(True)
    assert set(first["agreement"]) == {"captioning", "ocr", "humor"}
    printed = capsys.readouterr().out
    assert "against the reference labels" in printed and "9 asked" in printed

    assert main(argv) == 0
    second = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert second["judge_calls"] == {"asked": 0, "cached": 9}
    assert second["counts"] == first["counts"] and second["agreement"] == first["agreement"]


def test_command_through_the_openai_backend_sends_only_each_classifiers_inputs(
    tmp_path: Path,
) -> None:
    data = _write_data(tmp_path / "data")

    def replier(call: Call) -> str:
        return "<decision>yes</decision>"

    with OpenAIStub(replier) as stub:
        judge = tmp_path / "judge.yaml"
        judge.write_text(
            f"backend: openai\nname: stub\nbase_url: {stub.base_url}\nmodel: flash\n"
            "max_retries: 0\n",
            encoding="utf-8",
        )
        out = tmp_path / "out"
        argv = ["visionarena", "classify", str(data), "--judge", str(judge), "--out", str(out)]
        argv += ["--prompt-set", "paper"]
        assert main([*argv, "--categories", "captioning", "homework", "--limit", "2"]) == 0
    assert len(stub.calls) == 4
    texts = {"text": load_classifier_prompt("captioning").text,
             "image": load_classifier_prompt("homework").text}  # fmt: skip
    for call in stub.calls:
        assert call.body is not None
        system, user = call.body["messages"]
        assert system["role"] == "system"
        content = user["content"]
        kinds = [part["type"] for part in content] if isinstance(content, list) else ["text"]
        if system["content"] == texts["text"]:
            assert kinds == ["text"]
        else:
            assert system["content"] == texts["image"] and kinds == ["image_url"]
    labels = [json.loads(line) for line in (out / "labels.jsonl").read_text().splitlines()]
    assert [(r["captioning"], r["homework"]) for r in labels] == [(True, True), (True, True)]


@pytest.mark.parametrize(
    ("second", "message"),
    [
        ('{"id": "b", "images": "x.png"}', "field 'images'"),
        # a misspelt "text" would otherwise classify an empty prompt
        ('{"id": "b", "prompt": "Hi."}', "unknown field 'prompt' (fields: categories, id, images"),
    ],
)
def test_command_names_file_and_line_of_a_bad_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], second: str, message: str
) -> None:
    data = tmp_path / "bad.jsonl"
    data.write_text('{"id": "a", "text": "hi"}\n' + second + "\n", "utf-8")
    judge = _coin_config(tmp_path / "judge.yaml")
    argv = ["visionarena", "classify", str(data), "--judge", str(judge), "--out", str(tmp_path)]
    assert main(argv) == 2
    assert f"{data}, line 2: {message}" in capsys.readouterr().err
    assert main([*argv, "--reference-labels", "--limit", "1"]) == 2
    assert f"{data}, line 1: no field 'categories'" in capsys.readouterr().err


def test_command_names_a_bad_judge_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _write_data(tmp_path / "data")
    judge = tmp_path / "judge.yaml"
    judge.write_text("backend: coin\nlabels: []\n", encoding="utf-8")
    argv = ["visionarena", "classify", str(data), "--judge", str(judge), "--out", str(tmp_path)]
    assert main(argv) == 2
    assert f"{judge}: labels (coin model)" in capsys.readouterr().err


def test_command_reads_a_chat_folder(tmp_path: Path) -> None:
    from vlmscope.tracks.visionarena.rows import SAMPLE_DIR

    judge, out = _coin_config(tmp_path / "judge.yaml"), tmp_path / "out"
    argv = ["visionarena", "classify", str(SAMPLE_DIR / "chat"), "--judge", str(judge)]
    assert main([*argv, "--out", str(out), "--reference-labels", "--limit", "2"]) == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["rows"] == 2 and set(summary["agreement"]) == set(PROMPT_CATEGORIES)


def test_the_commands_category_list_is_the_modules() -> None:
    """The command spells the list out (its parser imports nothing); it must not drift."""
    from vlmscope.cli.visionarena import CATEGORIES

    assert CATEGORIES == PROMPT_CATEGORIES


def test_chat_reference_labels_are_what_the_rows_say(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Chat row without `categories` has no reference labels (an error when asked for), and a
    null flag is left out of the comparison: neither is read as "no", as the row's `categories`
    field (used for the category boards) reads them."""
    import pyarrow as pa

    from vlmscope.tracks.visionarena.rows import SAMPLE_DIR

    source = next((SAMPLE_DIR / "chat").glob("data/*.parquet"))
    rows = pq.read_table(source).to_pylist()[:2]
    judge = _coin_config(tmp_path / "judge.yaml")
    for name, categories in (("none", None), ("null", {"ocr": None, "captioning": True})):
        folder = tmp_path / name / "data"
        folder.mkdir(parents=True)
        changed = [{k: v for k, v in row.items() if k != "categories"} for row in rows]
        if categories is not None:
            changed = [{**row, "categories": categories} for row in changed]
        pq.write_table(pa.Table.from_pylist(changed), folder / source.name)
        out = tmp_path / f"out-{name}"
        argv = ["visionarena", "classify", str(folder.parent), "--judge", str(judge)]
        code = main([*argv, "--out", str(out), "--reference-labels", "--categories", "ocr"])
        if categories is None:
            assert code == 2 and "no field 'categories'" in capsys.readouterr().err
            continue
        assert code == 0
        summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
        assert summary["agreement"]["ocr"]["compared"] == 0
