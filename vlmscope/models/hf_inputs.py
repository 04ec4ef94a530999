"""Turn a request into what a transformers processor takes, within the model's context.

Each request is encoded on its own first: that gives its true prompt length (to sort a batch by
length and to detect a context overflow before the batch runs, so one oversized request cannot
fail its neighbours), and the chance to retry it with fewer images. MEGA-Bench does the same:
a request that does not fit loses its earliest images until it does (paper App. D.2).
"""

from __future__ import annotations

import io
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from vlmscope.config import ImageBudget
from vlmscope.messages import ImagePart, Request, Response, Status
from vlmscope.models.images import limit_images
from vlmscope.models.prompting import with_system_prompt

# Messages of errors that mean "the prompt does not fit": learned position embeddings indexed
# past their end, servers' and tokenizers' length errors, a cache that is full.
_OVERFLOW_MESSAGE = re.compile(
    r"index out of range in self|maximum context length|max_position_embeddings|"
    r"context length|sequence length|too long|cache is full|"
    r"maximum model length|longer than the max",  # vLLM's wording
    re.IGNORECASE,
)


class ContextOverflow(Exception):
    """The prompt plus the tokens to generate do not fit in the model's positions."""


def is_overflow(err: BaseException) -> bool:
    """An error that fewer images could cure: too many positions, or device memory exhausted."""
    if isinstance(err, ContextOverflow):
        return True
    if type(err).__name__ == "OutOfMemoryError":
        return True
    return bool(_OVERFLOW_MESSAGE.search(str(err)))


@dataclass
class Prepared:
    """A request ready for a batch: its prompt, decoded images and everything to report."""

    request: Request  # the original, for a retry that starts again from all its images
    prompt: str
    images: list[Image.Image]
    prompt_tokens: int
    max_new_tokens: int
    notes: list[str] = field(default_factory=list)
    attempts: int = 1
    seconds: float = 0.0
    inputs: Any = None  # the processor's output holding this request (the engine prefills it)
    row: int = 0  # this request's row in `inputs`
    group: int = 1  # requests encoded together in `inputs`


@dataclass(frozen=True)
class Encoder:
    """Encodes requests for one processor, under one image budget and position limit, with the
    model config's system prompt and chat-template arguments (`enable_thinking`, ...)."""

    processor: Any
    budget: ImageBudget
    max_positions: int | None
    system_prompt: str | None = None
    template_kwargs: Mapping[str, Any] = field(default_factory=dict)

    def prepare(
        self,
        request: Request,
        max_new_tokens: int,
        *,
        keep: int | None = None,
        history: tuple[str, ...] = (),
        attempts: int = 0,
    ) -> Prepared | Response:
        """Fit `request` (keeping at most `keep` images) or say why it cannot be answered.

        On an overflow the image count is halved (5 -> 2 -> 1 -> 0) and each retry is noted.
        Never raises for a bad request: the failure becomes the response.
        """
        start = time.perf_counter()
        keep = min(self.budget.max_images, len(request.images)) if keep is None else keep
        notes = list(history)
        while True:
            attempts += 1
            try:
                fitted, budget_notes = limit_images(request, keep, self.budget.max_side)
                prompt, images = self.prompt_and_images(fitted)
                inputs = encode(self.processor, [prompt], [images])
                prompt_tokens = int(inputs["attention_mask"].sum())
                self._check_fits(prompt_tokens, max_new_tokens)
            except Exception as err:
                if not is_overflow(err):
                    return _failure(f"{type(err).__name__}: {err}", notes, attempts)
                if keep == 0:
                    return _failure(
                        f"context overflow even without images: {err}",
                        notes,
                        attempts,
                        status=Status.CONTEXT_OVERFLOW,
                    )
                notes.append(overflow_note(err, keep))
                keep //= 2
                continue
            return Prepared(
                request=request,
                prompt=prompt,
                images=images,
                prompt_tokens=prompt_tokens,
                max_new_tokens=max_new_tokens,
                notes=notes + budget_notes,
                attempts=attempts,
                seconds=time.perf_counter() - start,
                inputs=inputs,
            )

    def prepare_group(self, requests: list[tuple[Request, int]]) -> list[Prepared | Response]:
        """Encode (request, token limit) pairs in one processor call, left-padded, so that
        they can be prefilled together; if any of them cannot be encoded or does not fit as
        it is, each is prepared alone (`prepare` knows how to retry and report)."""
        if len(requests) == 1:
            return [self.prepare(*requests[0])]
        start = time.perf_counter()
        try:
            fitted = [limit_images(r, min(self.budget.max_images, len(r.images)),
                                   self.budget.max_side) for r, _ in requests]  # fmt: skip
            parts = [self.prompt_and_images(request) for request, _ in fitted]
            inputs = encode(self.processor, [p for p, _ in parts], [i for _, i in parts])
            lengths = [int(n) for n in inputs["attention_mask"].sum(dim=1)]
            for length, (_, limit) in zip(lengths, requests, strict=True):
                self._check_fits(length, limit)
        except Exception:
            return [self.prepare(request, limit) for request, limit in requests]
        seconds = (time.perf_counter() - start) / len(requests)
        return [
            Prepared(
                request=request,
                prompt=prompt,
                images=images,
                prompt_tokens=length,
                max_new_tokens=limit,
                notes=list(notes),
                seconds=seconds,
                inputs=inputs,
                row=row,
                group=len(requests),
            )  # fmt: skip
            for row, ((request, limit), (prompt, images), length, (_, notes)) in enumerate(
                zip(requests, parts, lengths, fitted, strict=True)
            )
        ]

    def prompt_and_images(self, request: Request) -> tuple[str, list[Image.Image]]:
        """The chat-template prompt (images as placeholders, in order) and the decoded images."""
        image_token = getattr(self.processor, "image_token", None)
        prompt = self.processor.apply_chat_template(
            chat_messages(with_system_prompt(request, self.system_prompt), image_token),
            add_generation_prompt=True,
            tokenize=False,
            **self.template_kwargs,
        )
        return prompt, [_decode(part, n) for n, part in enumerate(request.images, 1)]

    def _check_fits(self, prompt_tokens: int, max_new_tokens: int) -> None:
        if self.max_positions is not None and prompt_tokens + max_new_tokens > self.max_positions:
            raise ContextOverflow(
                f"{prompt_tokens} prompt + {max_new_tokens} new tokens"
                f" > {self.max_positions} positions"
            )


def chat_messages(request: Request, image_token: str | None = None) -> list[dict[str, Any]]:
    """The conversation in the processor's chat format: system text first, parts in order.

    Text that spells the processor's image token (a MEGA-Bench question still holds its
    `<image>` placeholders; a judge prompt quotes that question) would be read as one more
    image slot; a zero-width space keeps it text.
    """
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": [{"type": "text", "text": request.system}]})
    for turn in request.turns:
        content = [
            {"type": "image"}
            if isinstance(part, ImagePart)
            else {"type": "text", "text": _literal(part.text, image_token)}
            for part in turn.parts
        ]
        messages.append({"role": turn.role, "content": content})
    return messages


def _literal(text: str, image_token: str | None) -> str:
    if not image_token or image_token not in text:
        return text
    return text.replace(image_token, image_token[0] + "\u200b" + image_token[1:])


def encode(processor: Any, prompts: list[str], images: list[list[Image.Image]]) -> Any:
    """Processor call for a batch; `images=None` when no request has any (processors insist)."""
    return processor(
        text=prompts,
        images=images if any(images) else None,
        padding=True,
        return_tensors="pt",
    )


def overflow_note(err: BaseException, images: int) -> str:
    return f"context overflow with {images} images ({err}); retrying with {images // 2}"


def _decode(part: ImagePart, number: int) -> Image.Image:
    """RGB, because vision towers are trained on it (RGBA or palette input breaks normalisation).
    An unreadable image is named (its position in the request, and its label)."""
    try:
        with Image.open(io.BytesIO(part.data)) as image:
            return image.convert("RGB")
    except Exception as err:
        label = f" ({part.name})" if part.name else ""
        raise ValueError(
            f"image {number}{label} cannot be read: {type(err).__name__}: {err}"
        ) from err


def _failure(
    error: str, notes: list[str], attempts: int, *, status: Status = Status.REQUEST_FAILED
) -> Response:
    return Response(
        text="", status=status, error=error, image_notes=tuple(notes), attempts=attempts
    )


def answer_failed(item: Prepared, err: Exception) -> Response:
    """The answer of a prepared request that failed on the device: a context overflow only
    when no image is left to drop."""
    images = len(item.images)
    status = Status.CONTEXT_OVERFLOW if is_overflow(err) and images == 0 else Status.REQUEST_FAILED
    return Response(
        text="",
        status=status,
        error=f"{type(err).__name__}: {err}",
        image_notes=tuple(item.notes),
        attempts=item.attempts,
    )
