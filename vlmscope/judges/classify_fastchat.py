"""FastChat's VisionArena classifiers: the prompt set that made the released `categories` labels.

The paper prints its classifier prompts in Appendix 12 (`vlmscope.judges.classify`, set
`paper`), but the labels VisionArena published were made by FastChat's
`fastchat/serve/monitor/classify/category.py` (with `vision_config.yaml`: gemini-1.5-flash,
temperature 0, 512 tokens), whose prompts and messages differ from the paper's in every
classifier. This set (`fastchat`) asks as that code asks, each prompt file
(`vlmscope/prompts/visionarena_classify_fastchat_<category>.txt`) holding its system prompt
verbatim and saying how the message is laid out:

* the text is every user turn of the conversation joined by newlines, cut at 12,500
  characters, wrapped in the prompt's `template` (`<user_prompt>\\n...\\n</user_prompt>`);
* `text` classifiers (captioning, entity recognition, creative writing) get that text only;
  `both` (OCR, humor) the text, then the image; `image` (homework, diagram) an empty text, then
  the image: the user message always holds the text part first;
* the image is one image, the first of the conversation's first turn, re-encoded as PNG and
  sent as FastChat sends it, under a data URL that says `image/jpeg`;
* a reply is read as FastChat reads it (`fastchat_word`): lowercased, newlines removed (for
  creative writing also `[`, `]` and spaces), every `<decision>(\\w+)</decision>` found; one
  distinct word is the answer, none or several are no answer. FastChat scores a reply as yes
  only when that word is "yes", so an unreadable reply counts as no there (`fastchat_label`);
  here it is an unparseable decision, counted, and FastChat's score is reported beside it.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence

from vlmscope.messages import ImagePart, Part

FASTCHAT = "fastchat"
PAPER = "paper"
PROMPT_SETS = (FASTCHAT, PAPER)
PROMPT_CHARS = 12_500
READINGS = ("decision", "decision_compact")
FASTCHAT_IMAGE_MIME = "image/jpeg"
"""The MIME type FastChat's `pre_process` (openai api_type) writes in the data URL of the PNG it
sends: `data:image/jpeg;base64,` + the PNG's base64."""
_WORD = re.compile(r"<decision>(\w+)<\/decision>")


def fastchat_text(user_turns: Sequence[str], template: str) -> str:
    """The user turns joined by newlines, cut at `PROMPT_CHARS`, put into `template`."""
    return template.replace("{PROMPT}", "\n".join(user_turns)[:PROMPT_CHARS])


def fastchat_image(images: Sequence[bytes | ImagePart]) -> list[ImagePart]:
    """The first image, re-encoded as PNG (as FastChat does before sending it) and declared
    `image/jpeg`, as FastChat's data URL labels that PNG (`FASTCHAT_IMAGE_MIME`); none if the
    conversation has none."""
    if not images:
        return []
    first = images[0]
    data = first.data if isinstance(first, ImagePart) else first
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
    return [ImagePart(buffer.getvalue(), mime=FASTCHAT_IMAGE_MIME)]


def fastchat_parts(
    inputs: str, template: str, user_turns: Sequence[str], images: Sequence[bytes | ImagePart]
) -> list[str | Part]:
    """The user message's parts for a classifier that sees `inputs` (module docstring)."""
    if inputs == "text":
        return [fastchat_text(user_turns, template)]
    text = fastchat_text(user_turns, template) if inputs == "both" else ""
    return [text, *fastchat_image(images)]


def fastchat_word(reply: str, reading: str) -> str | None:
    """The word FastChat reads from a reply (its `get_score`), None when it reads none."""
    text = reply.replace("\n", "")
    if reading == "decision_compact":
        text = text.replace("[", "").replace("]", "").replace(" ", "")
    found = {word for word in _WORD.findall(text.lower()) if word}
    return found.pop() if len(found) == 1 else None


def fastchat_label(word: str | None) -> bool:
    """FastChat's score of a read word (`post_process`): yes is true, anything else false."""
    return word == "yes"
