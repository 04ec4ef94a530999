"""Read and validate ProBench rows (`HelloKKMe/ProBench`, split `train`) in either layout.

The `datasets` builder and the track read rows through this module, so a bad row fails the same
way everywhere: with its file, its `uuid`, the field and what is wrong, before any model runs.

Layouts (`row_files.py` finds them; `data_dir` holds one): the Hub's parquet
(`data/train-*.parquet`, `train.parquet` or `*.parquet`; `image` the `Image` feature's
{bytes, path} struct or plain bytes), or one `.json`/`.jsonl` file whose `image` is a file name
inside `images/` beside it, refused if it leads out of the folder.

Rules, as the official scripts (`gen_answer_vllm.py`, `show_result.py`) use the columns:
- `conversations` alternates human, gpt, ... starting with human and ending with gpt; questions
  are the human turns with `<|img|>` removed, then stripped; the `gpt` turns are the baseline's
  (`gpt-4o-2024-05-13`) answers, kept as given;
- singleround and multi-linguistic rows have one human turn, multi-round rows at least two;
- `challenge` (EASY/HARD per axis) and `category` are the singleround filters: a singleround row
  must carry all three axes and both categories. Other rows may leave them missing, null or
  empty (read as ""), but a challenge value they do give must still be EASY or HARD;
- `language` is the multi-linguistic filter: required there, optional ("" if absent) elsewhere;
- a repeated `uuid` is an error: the row would be asked and judged twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vlmscope.tracks.hub_files import image_format
from vlmscope.tracks.probench.row_files import (
    REQUIRED_COLUMNS,
    ProBenchDataError,
    read_image_file,
    records,
)
from vlmscope.tracks.shipped_samples import SAMPLES_ROOT

CHAT_TYPES = ("singleround", "multi-round", "multi-linguistic")
CHALLENGE_AXES = ("challenge_image", "challenge_reasoning", "challenge_textual")
CATEGORY_FIELDS = ("image_category", "question_category")
DIFFICULTIES = ("EASY", "HARD")
IMAGE_PLACEHOLDER = "<|img|>"
#: The sample shipped as package data (`dataset_scripts/make_probench_sample.py` writes it).
SAMPLE_DIR = SAMPLES_ROOT / "probench"
_SPEAKERS = ("human", "gpt")

Turns = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class ProBenchRow:
    """One validated upstream row; `image` holds the encoded image file (PNG, JPEG, ...)."""

    uuid: str
    chat_type: str
    questions: tuple[str, ...]
    reference_answers: tuple[str, ...]
    image: bytes
    image_format: str
    challenge: Mapping[str, str] = field(hash=False)  # every axis; "" where a row has none
    image_category: str
    question_category: str
    language: str

    @property
    def rounds(self) -> int:
        return len(self.questions)


def read_rows(data_dir: str | Path, chat_type: str | None = None) -> list[ProBenchRow]:
    """All rows of `data_dir` (or those of one chat type), validated, in file order."""
    return [row for row, _ in read_rows_and_turns(data_dir, chat_type)]


def read_rows_and_turns(
    data_dir: str | Path, chat_type: str | None = None
) -> list[tuple[ProBenchRow, Turns]]:
    """`read_rows` with each row's conversation as given: (from, value) pairs, `<|img|>` kept.

    Every row is validated (and uuids checked for repeats) before `chat_type` selects."""
    if chat_type is not None and chat_type not in CHAT_TYPES:
        raise ValueError(f"chat_type {chat_type!r} is not one of {', '.join(CHAT_TYPES)}")
    seen: dict[str, int] = {}
    out: list[tuple[ProBenchRow, Turns]] = []
    for position, (source, record, image_dirs) in enumerate(records(Path(data_dir))):
        try:
            row = parse_record(record, position=position, image_dirs=image_dirs)
        except ProBenchDataError as err:
            raise ProBenchDataError(f"{source}, {err}") from None
        if row.uuid in seen:
            raise ProBenchDataError(
                f"{source}, uuid {row.uuid}: field 'uuid' repeats row {seen[row.uuid]} "
                f"(row {position}); it would be asked and judged twice"
            )
        seen[row.uuid] = position
        if chat_type is None or row.chat_type == chat_type:
            out.append((row, tuple((t["from"], t["value"]) for t in record["conversations"])))
    return out


def parse_record(
    record: Mapping[str, Any], *, position: int, image_dirs: tuple[Path, ...] = ()
) -> ProBenchRow:
    """Validate one raw record. With `image_dirs`, `image` may be a file name in one of them."""
    uuid = _uuid(record, position)
    where = f"uuid {uuid}"
    missing = [c for c in REQUIRED_COLUMNS if c not in record]
    if missing:
        raise ProBenchDataError(f"{where}: missing field(s) {', '.join(missing)}")
    chat_type = record["chat_type"]
    if chat_type not in CHAT_TYPES:
        raise ProBenchDataError(
            f"{where}: field 'chat_type' is {chat_type!r}, expected one of {', '.join(CHAT_TYPES)}"
        )
    questions, answers = _conversation(record["conversations"], where, chat_type)
    single = chat_type == "singleround"
    challenge = _labels(record.get("challenge"), where, "challenge", CHALLENGE_AXES, single)
    category = _labels(record.get("category"), where, "category", CATEGORY_FIELDS, single)
    language = _text(record.get("language"), where, "language")
    if chat_type == "multi-linguistic" and not language.strip():
        raise ProBenchDataError(
            f"{where}: field 'language' is empty; a multi-linguistic row needs it"
        )
    image, image_format = _image(record["image"], where, image_dirs)
    return ProBenchRow(
        uuid=uuid,
        chat_type=chat_type,
        questions=questions,
        reference_answers=answers,
        image=image,
        image_format=image_format,
        challenge=challenge,
        image_category=category["image_category"],
        question_category=category["question_category"],
        language=language,
    )


def _uuid(record: Mapping[str, Any], position: int) -> str:
    value = record.get("uuid")
    if not isinstance(value, str) or not value.strip():
        raise ProBenchDataError(f"row {position}: field 'uuid' is missing or not text: {value!r}")
    return value


def _conversation(
    value: Any, where: str, chat_type: str
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if not isinstance(value, list | tuple) or not value:
        raise ProBenchDataError(f"{where}: field 'conversations' is not a non-empty list of turns")
    for k, turn in enumerate(value):
        if not (
            isinstance(turn, Mapping)
            and isinstance(turn.get("from"), str)
            and isinstance(turn.get("value"), str)
        ):
            raise ProBenchDataError(
                f"{where}: field 'conversations' turn {k} is not {{from, value}} text: "
                f"{str(turn)[:80]!r}"
            )
    speakers = [turn["from"] for turn in value]
    if len(speakers) % 2 or any(s != _SPEAKERS[k % 2] for k, s in enumerate(speakers)):
        found = ", ".join(speakers[:20]) + (", ..." if len(speakers) > 20 else "")
        raise ProBenchDataError(
            f"{where}: field 'conversations' must alternate human, gpt, human, gpt, ... starting "
            f"with human, as many gpt turns as human turns; found {speakers.count('human')} "
            f"human and {speakers.count('gpt')} gpt turns: {found}"
        )
    questions = tuple(t["value"].replace(IMAGE_PLACEHOLDER, "").strip() for t in value[::2])
    for k, question in enumerate(questions):
        if not question:
            raise ProBenchDataError(
                f"{where}: field 'conversations' turn {2 * k}: the question is empty once "
                f"{IMAGE_PLACEHOLDER!r} is removed"
            )
    expected = "at least 2" if chat_type == "multi-round" else "exactly 1"
    if (len(questions) >= 2) != (chat_type == "multi-round"):
        raise ProBenchDataError(
            f"{where}: field 'conversations' has {len(questions)} human turn(s); "
            f"a {chat_type} row has {expected}"
        )
    return questions, tuple(t["value"] for t in value[1::2])


def _labels(
    value: Any, where: str, name: str, keys: tuple[str, ...], required: bool
) -> dict[str, str]:
    """A struct of text labels; `required`: every key present and non-empty (singleround)."""
    if value is None or value == "":
        value = {}
    if not isinstance(value, Mapping):
        raise ProBenchDataError(
            f"{where}: field {name!r} is {type(value).__name__}, expected a record of "
            f"{', '.join(keys)}"
        )
    labels = {key: _text(value.get(key), where, f"{name}.{key}").strip() for key in keys}
    for key, label in labels.items():
        if required and not label:
            raise ProBenchDataError(
                f"{where}: field '{name}.{key}' is missing or empty; a singleround row needs it"
            )
        if name == "challenge" and label and label not in DIFFICULTIES:
            raise ProBenchDataError(
                f"{where}: field '{name}.{key}' is {label!r}, expected EASY or HARD"
            )
    return labels


def _text(value: Any, where: str, name: str) -> str:
    """Optional text: null reads as empty text, anything else but text is an error."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ProBenchDataError(f"{where}: field '{name}' is {type(value).__name__}, expected text")
    return value


def _image(value: Any, where: str, image_dirs: tuple[Path, ...]) -> tuple[bytes, str]:
    """Bytes, an `Image` struct {bytes, path} or (with `image_dirs`) a file name -> bytes, format.

    `verify` reads the header and, for PNG, every chunk's checksum without decoding pixels; damage
    inside JPEG entropy data shows only when the image is decoded for a request."""
    name = value.get("path") if isinstance(value, Mapping) else value
    data = value.get("bytes") if isinstance(value, Mapping) else value
    if isinstance(data, bytes | bytearray | memoryview) and len(data):
        data = bytes(data)
    elif isinstance(name, str) and name.strip() and image_dirs:
        data = read_image_file(name, where, image_dirs)
    elif isinstance(value, Mapping | str | bytes | None):
        raise ProBenchDataError(
            f"{where}: field 'image' holds no image bytes"
            + (f" (only the path {name!r})" if isinstance(name, str) and name else "")
        )
    else:
        raise ProBenchDataError(
            f"{where}: field 'image' is {type(value).__name__}, expected image bytes, "
            "an Image {bytes, path} record or (beside a JSON file) a file name"
        )
    return data, image_format(data, where, "image", ProBenchDataError) or "PNG"
