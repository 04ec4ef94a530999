"""Model weights a run cannot have, found before the first track runs.

A local model (`hf`, `vllm`, a judge too) names a folder or a Hub repo in `path`. A repo that
is neither in the Hugging Face cache nor reachable used to cost minutes of download retries,
then a transformers error naming no model entry; this check takes a second and names the entry
(`model 'x': path '...' ... (models.0 in run.yaml)`, the form the loader's own errors take) and
the way out. A folder that exists, a tiny model built on first
use (`tiny_arch`) and a repo already in the cache pass; a missing folder fails; an uncached
repo fails when `HF_HUB_OFFLINE` is set (nothing may be downloaded) or when the Hub does not
answer one quick request. Whether the repo exists or needs a token is left to the download,
which says so itself.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

from vlmscope.config import ConfigError, JudgePanelConfig, ModelConfig, RunConfig

PROBE_TIMEOUT_S = 5.0
DEFAULT_ENDPOINT = "https://huggingface.co"

Probe = Callable[[str], str | None]
"""Asks the Hub endpoint once: None when it answers, else why not."""


def check_model_sources(
    config: RunConfig, *, source: str = "config", probe: Probe | None = None
) -> None:
    """Raise `ConfigError` naming the first model entry whose weights cannot be had."""
    reachable: dict[str, str | None] = {}  # the probe's answer, asked at most once
    for field, model in model_entries(config):
        problem = _source_problem(model, reachable, probe or probe_hub)
        if problem:
            path = getattr(model, "path", "")
            raise ConfigError(
                f"model {model.name!r}: path {path!r} {problem} ({field} in {source})"
            )


def model_entries(config: RunConfig) -> Iterator[tuple[str, ModelConfig]]:
    """Every model of the run and every track's judge, with the field that holds it."""
    for index, model in enumerate(config.models):
        yield f"models.{index}", model
    for index, track in enumerate(config.tracks):
        if isinstance(track.judge, JudgePanelConfig):  # a panel: each of its judges
            for member, judge in enumerate(track.judge.judges):
                yield f"tracks.{index}.judge.judges.{member}", judge
        elif track.judge is not None:
            yield f"tracks.{index}.judge", track.judge


def _source_problem(model: ModelConfig, reachable: dict[str, str | None], probe: Probe) -> str:
    path = getattr(model, "path", None)
    if path is None or getattr(model, "tiny_arch", None) is not None:
        return ""  # an API model, the oracle, the coin; or a tiny model built on first use
    if Path(path).expanduser().exists():
        return ""
    if not _is_repo_id(path):
        return "is no folder (a local model's path is a folder or a Hub repo id)"
    if _in_hub_cache(path, getattr(model, "revision", None)):
        return ""
    if _offline():
        return (
            "is not a local folder and not in the Hugging Face cache, and HF_HUB_OFFLINE is "
            f"set, so it cannot be downloaded: download it first (`hf download {path}`), unset "
            "HF_HUB_OFFLINE, or set path to a local folder"
        )
    endpoint = os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT
    if endpoint not in reachable:
        reachable[endpoint] = probe(endpoint)
    if reachable[endpoint]:
        return (
            f"is not in the Hugging Face cache and the Hub ({endpoint}) cannot be reached "
            f"({reachable[endpoint]}): check the network, or download it where the Hub is "
            "reachable and set HF_HUB_OFFLINE=1, or set path to a local folder"
        )
    return ""


def _is_repo_id(path: str) -> bool:
    """`org/name` or `name`: no absolute, relative or home prefix, at most one slash."""
    return not path.startswith(("/", ".", "~")) and path.count("/") <= 1 and bool(path.strip())


def _in_hub_cache(repo_id: str, revision: str | None) -> bool:
    from huggingface_hub import try_to_load_from_cache

    try:
        found = try_to_load_from_cache(repo_id, "config.json", revision=revision)
    except ValueError:  # not a valid repo id
        return False
    return isinstance(found, str)


def _offline() -> bool:
    value = os.environ.get("HF_HUB_OFFLINE") or os.environ.get("TRANSFORMERS_OFFLINE") or ""
    return value.strip().upper() in {"1", "ON", "YES", "TRUE"}


def probe_hub(endpoint: str) -> str | None:
    """One HEAD request to the endpoint, no retries: None if any HTTP answer came back."""
    import httpx

    try:
        httpx.head(endpoint, timeout=PROBE_TIMEOUT_S, follow_redirects=False)
    except httpx.HTTPError as err:
        return f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
    return None
