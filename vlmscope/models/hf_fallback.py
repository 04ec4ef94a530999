"""What failed batches taught the `hf` backend, and the notes the run summary shows for it.

A batch can fail although each of its requests works alone: out of device memory (later
batches, or decode slots, are smaller), or a family that cannot batch multi-image requests
(those go one at a time). Each lesson is noted once with how many failed batches it cost (a
batch answered in halves may fail at more than one level).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vlmscope.models.hf_inputs import Prepared


@dataclass
class BatchLessons:
    max_batch: int | None = None
    multi_image_alone: bool = False
    _lessons: dict[str, tuple[str, int]] = field(default_factory=dict)  # kind -> (note, count)

    def batch_size(self, configured: int) -> int:
        return configured if self.max_batch is None else min(configured, self.max_batch)

    def alone(self, item: Prepared) -> bool:
        return self.multi_image_alone and len(item.images) > 1

    def learn(self, items: list[Prepared], err: Exception, model_type: str) -> None:
        """A batch of `items` failed with `err`, yet in smaller batches every one was answered."""
        if out_of_memory(err):
            self._smaller(len(items))
        elif any(len(i.images) > 1 for i in items):  # (an outer level of the same halving, too)
            self.multi_image_alone = True
            self._note(
                "multi-image",
                f"{model_type or 'the model'} failed on a batch holding multi-image requests"
                f" ({_brief(err)}) that work alone: multi-image requests go one at a time since",
            )
        else:
            self._note(
                "other",
                f"a batch failed ({_brief(err)}) though each of its requests works alone;"
                " answered in smaller batches",
            )

    def learn_decode_failure(self, running: int, err: Exception) -> None:
        """A decode step over `running` requests failed: decode fewer at once from now on."""
        if out_of_memory(err):
            self._smaller(running)
        else:
            self.max_batch = max(1, running // 2)
            self._note(
                "decode",
                f"a decode step over {running} requests failed ({_brief(err)});"
                " decoding fewer at once since",
            )

    def notes(self) -> list[str]:
        notes = []
        for kind, (note, count) in self._lessons.items():
            text = note.format(self.max_batch) if kind == "memory" else note
            notes.append(text if count == 1 else f"{text} ({count} failed batches)")
        return notes

    def _smaller(self, size: int) -> None:
        half = max(1, size // 2)
        self.max_batch = half if self.max_batch is None else min(self.max_batch, half)
        self._note("memory", "out of device memory: batches of at most {} since")

    def _note(self, kind: str, note: str) -> None:
        first, count = self._lessons.get(kind, (note, 0))
        self._lessons[kind] = (first, count + 1)


def out_of_memory(err: Exception) -> bool:
    return type(err).__name__ == "OutOfMemoryError"


def _brief(err: Exception) -> str:
    return " ".join(f"{type(err).__name__}: {err}".split())[:200]
