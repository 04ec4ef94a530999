"""Requests to a model and the responses that come back.

A request is a conversation (optional system text, then user/assistant turns whose content is an
ordered list of text and image parts) plus generation parameters. Images travel as encoded bytes
(PNG/JPEG) so that the content hash of a request covers exactly what a model sees: change one pixel
and the request is a different request, with its own cache entry.
"""

from __future__ import annotations

import enum
import hashlib
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Literal

Role = Literal["user", "assistant"]


@dataclass(frozen=True)
class TextPart:
    text: str


@dataclass(frozen=True)
class ImagePart:
    """An image as encoded file bytes; `name` is only a label for logs and details.

    `mime` is a MIME type the request declares for the bytes, sent as is where a payload
    names one (an OpenAI data URL); None, the default, means the type read from the bytes.
    A reference that mislabels its images (FastChat's classifiers send PNG bytes as
    `image/jpeg`) is reproduced this way; a declared type enters the request's hash."""

    data: bytes
    name: str = ""
    mime: str | None = None

    def digest(self) -> str:
        """sha256 of the bytes, computed once per part (requests are hashed on every walk of a
        conversation and every cache lookup; the image bytes dominate that cost)."""
        cached: str | None = self.__dict__.get("_digest")
        if cached is None:
            cached = hashlib.sha256(self.data).hexdigest()
            object.__setattr__(self, "_digest", cached)
        return cached


class DeferredImagePart(ImagePart):
    """An image whose bytes are made again each time they are read, from a file on disk.

    A benchmark's requests are built all at once (every sample, for every model) but sent a
    batch at a time; holding every image's bytes from the first to the last would hold the
    whole benchmark's media in memory. This part holds only how to make the bytes (`load`,
    deterministic) and their sha256 (`digest`, computed when the request was built), so the
    request hash, and the cache key, are the same as for an `ImagePart` of those bytes.
    """

    def __init__(self, load: Callable[[], bytes], digest: str, name: str = "") -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "_load", load)
        object.__setattr__(self, "_digest", digest)

    @property
    def data(self) -> bytes:
        loaded: bytes = self.__dict__["_load"]()
        return loaded


Part = TextPart | ImagePart


@dataclass(frozen=True)
class Turn:
    role: Role
    parts: tuple[Part, ...]

    @property
    def text(self) -> str:
        """The turn's text parts joined: what a text-only judge reads."""
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))


@dataclass(frozen=True)
class GenerationParams:
    """Decoding settings. Greedy (temperature 0) is the default everywhere: results must repeat."""

    max_new_tokens: int = 512
    temperature: float = 0.0


def effective_max_new_tokens(requested: int, cap: int | None) -> int:
    """The one rule for a reply's length: the request's own limit (the track's, which knows the
    benchmark's official value), lowered to the backend config's `max_new_tokens` when set."""
    return requested if cap is None else min(requested, cap)


@dataclass(frozen=True)
class Request:
    """One call to a model: what is sent, and nothing else (its hash is the cache key).

    `system_parts` sends the system text as a list of one text part rather than a plain string
    where a payload can say either (an OpenAI body): ProBench's judge call does so. It enters
    the hash only when set, so every other request keeps its key."""

    turns: tuple[Turn, ...]
    system: str | None = None
    params: GenerationParams = GenerationParams()
    system_parts: bool = False

    @property
    def images(self) -> list[ImagePart]:
        return [p for t in self.turns for p in t.parts if isinstance(p, ImagePart)]

    def content_hash(self) -> str:
        """sha256 over the system text, every part (image bytes included) and the parameters;
        computed once per request (the request is frozen)."""
        cached: str | None = self.__dict__.get("_content_hash")
        if cached is None:
            cached = self._hash()
            object.__setattr__(self, "_content_hash", cached)
        return cached

    def _hash(self) -> str:
        payload: dict[str, Any] = {
            "system": self.system,
            "turns": [
                {
                    "role": t.role,
                    "parts": [
                        {"text": p.text} if isinstance(p, TextPart) else _image_key(p)
                        for p in t.parts
                    ],
                }
                for t in self.turns
            ],
            "params": asdict(self.params),
        }
        if self.system_parts:
            payload["system_parts"] = True
        return _sha256_json(payload)

    def with_turns(self, turns: tuple[Turn, ...]) -> Request:
        return Request(turns, self.system, self.params, self.system_parts)

    def continued(self, answer: str, user_text: str) -> Request:
        """The next turn of a conversation: this request, the model's own answer to it, then
        the user's next text (multi-turn benchmarks send the model's answers, not a reference's,
        as the history)."""
        return self.with_turns(
            (
                *self.turns,
                Turn("assistant", (TextPart(answer),)),
                Turn("user", (TextPart(user_text),)),
            )
        )


def _image_key(part: ImagePart) -> dict[str, str]:
    """An image's share of the request hash: its bytes, and its MIME type only when declared
    (so every request without one keeps the key it always had)."""
    if part.mime is None:
        return {"image": part.digest()}
    return {"image": part.digest(), "mime": part.mime}


def user_request(
    *parts: str | bytes | Part,
    system: str | None = None,
    params: GenerationParams | None = None,
) -> Request:
    """A single user turn built from strings (text) and bytes (encoded images), in order."""
    built: list[Part] = []
    for p in parts:
        if isinstance(p, str):
            built.append(TextPart(p))
        elif isinstance(p, bytes):
            built.append(ImagePart(p))
        else:
            built.append(p)
    return Request(
        turns=(Turn("user", tuple(built)),),
        system=system,
        params=params or GenerationParams(),
    )


class Status(str, enum.Enum):
    """How a request ended. Anything but OK is counted and shown, never dropped."""

    OK = "ok"
    REQUEST_FAILED = "request_failed"
    CONTEXT_OVERFLOW = "context_overflow"


@dataclass(frozen=True)
class Usage:
    """Token counts. `completion_tokens` counts everything generated, a reasoning trace
    included; `reasoning_tokens` is the trace's share: the server's count
    (`completion_tokens_details.reasoning_tokens`) or, `reasoning_tokens_estimated`, a share of
    `completion_tokens` in proportion to the trace's length."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    reasoning_tokens_estimated: bool = False


@dataclass(frozen=True)
class Response:
    """What a backend returned for one request, with enough to audit it later.

    `image_notes` says what the image budget did (dropped or resized images, retries with fewer
    images after a context overflow), so a score can be traced back to what the model really saw.

    `text` is the answer only: what every scorer, grader and judge reads. A model that thinks
    first has its trace in `reasoning` (from the reply's reasoning field or from between its
    reasoning tags, `vlmscope.models.reasoning`); `truncated_in_reasoning` marks a reply that
    ended inside its trace, so it has no answer.
    """

    text: str
    status: Status = Status.OK
    error: str | None = None
    usage: Usage = Usage()
    latency_s: float = 0.0
    image_notes: tuple[str, ...] = ()
    attempts: int = 1
    reasoning: str = ""
    truncated_in_reasoning: bool = False

    @property
    def ok(self) -> bool:
        return self.status is Status.OK

    @property
    def answer_tokens(self) -> int:
        """Tokens of the answer alone (0 when the backend counted none): what style control
        measures, as the arena does; a reasoning trace is not part of what a reader sees."""
        return max(0, self.usage.completion_tokens - self.usage.reasoning_tokens)

    def to_json(self) -> dict[str, Any]:
        """A JSON record; the reasoning fields only when set, so a reply without reasoning is
        stored exactly as before they existed."""
        record = asdict(self)
        record["status"] = self.status.value
        record["image_notes"] = list(self.image_notes)
        for name, value in (*_REASONING_DEFAULTS, *_USAGE_DEFAULTS):
            target = record["usage"] if name in record["usage"] else record
            if target[name] == value:
                del target[name]
        return record

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> Response:
        return cls(
            text=record["text"],
            status=Status(record["status"]),
            error=record.get("error"),
            usage=Usage(**record.get("usage", {})),
            latency_s=float(record.get("latency_s", 0.0)),
            image_notes=tuple(record.get("image_notes", ())),
            attempts=int(record.get("attempts", 1)),
            reasoning=str(record.get("reasoning", "")),
            truncated_in_reasoning=bool(record.get("truncated_in_reasoning", False)),
        )


_REASONING_DEFAULTS = (("reasoning", ""), ("truncated_in_reasoning", False))
_USAGE_DEFAULTS = (("reasoning_tokens", 0), ("reasoning_tokens_estimated", False))


def failed(error: str, *, status: Status = Status.REQUEST_FAILED, attempts: int = 1) -> Response:
    return Response(text="", status=status, error=error, attempts=attempts)


def _sha256_json(payload: Any) -> str:
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cache_key(backend_identity: dict[str, Any], request: Request) -> str:
    """The cache key of (backend identity and parameters, request)."""
    return _sha256_json({"backend": backend_identity, "request": request.content_hash()})
