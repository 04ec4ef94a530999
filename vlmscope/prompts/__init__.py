"""Prompt files: the prompts that define a benchmark, kept as data that cites its paper.

A file is an optional `---` YAML header (the source, whether the text is verbatim or
reconstructed, how replies are read), then the prompt text. A config names a packaged prompt by
file name or any prompt file by path.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml


@dataclass(frozen=True)
class PromptFile:
    source: str
    header: dict[str, Any]
    text: str


def read_prompt_file(source: str) -> PromptFile:
    """Read a packaged prompt (`visionarena_bench_judge.txt`) or a prompt file by path."""
    path = Path(source)
    if path.is_file():
        raw = path.read_text(encoding="utf-8")
    else:
        packaged = resources.files("vlmscope") / "prompts" / source
        if not packaged.is_file():
            raise ValueError(f"prompt {source!r} is neither a file nor a packaged prompt")
        raw = packaged.read_text(encoding="utf-8")
    header, text = split_header(raw, source=source)
    return PromptFile(source=source, header=header, text=text)


def split_header(raw: str, *, source: str = "prompt") -> tuple[dict[str, Any], str]:
    """Separate an optional `---` YAML header from the prompt text."""
    if not raw.startswith("---\n"):
        return {}, raw
    end = raw.find("\n---\n", 4)
    if end < 0:
        raise ValueError(f"{source}: header opened with '---' but never closed")
    header = yaml.safe_load(raw[4:end]) or {}
    if not isinstance(header, dict):
        raise ValueError(f"{source}: header is not a mapping")
    return header, raw[end + len("\n---\n") :]
