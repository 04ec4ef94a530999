"""The question prompt exactly as the official SimpleVQA pipeline sends it.

Source: SimpleVQA/SimpleVQA `data_engineering/vqa_request/prompt.py` (the templates without a
confidence score) and `simplevqa_request_lvlm_api_parallel.py` (one user turn, the image first,
then the text; the template's `[<question>]` placeholder, brackets included, replaced by the
question). Other harnesses send the bare question or add their own suffix; their numbers are not
comparable with the paper's, which is why the instruction is reproduced character for character.
"""

from __future__ import annotations

from vlmscope.messages import GenerationParams, ImagePart, Request, user_request

QUESTION_PLACEHOLDER = "[<question>]"

INSTRUCTIONS: dict[str, str] = {
    "CN": (
        "假如你是一个计算机视觉专家，请理解图片内容，并回答给出的问题，要求只能回答一个命名实体：\n"
        "## 下面我们提出问题: \n"
        "[<question>]\n"
    ),
    "EN": (
        "If you are a computer vision expert, please understand the picture and answer the question"
        " below. The answer must be a short named entity:\n"
        "## Now let's ask the question:\n"
        "[<question>]\n"
    ),
}

#: Greedy decoding: the official script sends the API default, but a leaderboard must repeat.
QUESTION_PARAMS = GenerationParams(temperature=0.0)


def question_text(language: str, question: str) -> str:
    """The instruction in the row's language (`CN` or `EN`) with the question filled in."""
    return INSTRUCTIONS[language].replace(QUESTION_PLACEHOLDER, question)


def question_request(image: bytes, image_name: str, language: str, question: str) -> Request:
    """One user turn: the image, then the instruction and question."""
    return user_request(
        ImagePart(image, image_name), question_text(language, question), params=QUESTION_PARAMS
    )
