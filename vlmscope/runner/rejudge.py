"""Re-judge a run's answers with another judge, asking no model again.

A run's results say what one judge made of its models' answers. `rejudge` scores the same
answers with another judge (or a panel): the run's config (kept beside its results as
`run_config.json`, or given) with each chosen track's judge replaced, its output under
`RESULTS/_judges/<judge>/` (the Space shows those results when pointed there, never mixed with
the run's own), its cache the run's: every answer is read from it, and the new judgments are
added to it (a second rejudge with the same judge asks nothing). The generate phase is not run at
all, so no model is asked; an answer the cache lacks is restored from the run's details (the
answer text, its status and token counts; a multi-turn sample's turns from the answers its
details keep, with their traces where `earlier_turns` holds them), and one found nowhere stops the rejudge naming the model, track and sample.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vlmscope.cache import ResponseCache
from vlmscope.config import (
    ConfigError,
    JudgePanelConfig,
    ModelConfig,
    RunConfig,
    folder_name,
    parse_config,
)
from vlmscope.hub_export import load_folder
from vlmscope.messages import Request, Response, Status, Usage
from vlmscope.runner import turn_details
from vlmscope.runner.answer_keys import AnswerKeys, oracle_references
from vlmscope.runner.generate import TrackReport, utc_now
from vlmscope.runner.loop import RunReport
from vlmscope.runner.output_lock import output_lock
from vlmscope.runner.plan import PlannedTrack, plan_tracks
from vlmscope.runner.pricing import run_pricer
from vlmscope.runner.results import result_dir
from vlmscope.runner.run_files import REJUDGED_DIR, RUN_CONFIG_FILE
from vlmscope.runner.score import aggregate_all, score_all
from vlmscope.tracks.base import Sample
from vlmscope.tracks.conversation import turn_count, walk_conversations


class AnswersMissing(RuntimeError):
    """An answer that is neither in the cache nor in the run's details."""


@dataclass(frozen=True)
class Rejudged:
    """What a rejudge did: the run report of the new results, where they are, what was
    restored from the details."""

    report: RunReport
    config: RunConfig
    original: RunConfig
    restored: int


def run_config_of(results: Path, given: Path | None = None) -> RunConfig:
    """The config the results came from: `given`, else the one the run kept beside them."""
    if given is not None:
        from vlmscope.config import load_config

        config = load_config(given)
    else:
        path = results / RUN_CONFIG_FILE
        if not path.is_file():
            raise ConfigError(
                f"{results}: no {RUN_CONFIG_FILE} (runs write it beside their results); give "
                "the config the run was made with (--config)"
            )
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise ConfigError(f"{path}: {err}") from err
        config = parse_config(raw, source=str(path))
    cache = config.cache_path or str(results / "cache.sqlite")
    return config.model_copy(update={"output_dir": str(results), "cache_path": cache})


def rejudged_config(
    original: RunConfig,
    judge: ModelConfig | JudgePanelConfig,
    tracks: Sequence[str] | None,
) -> RunConfig:
    """The original config, only its judged tracks (or `tracks`), each judged by `judge`, its
    results under `_judges/<judge>`, its cache the original's."""
    judged = [t for t in original.tracks if t.judge is not None]
    if tracks:
        known = {t.name for t in original.tracks}
        unknown = [t for t in tracks if t not in known]
        if unknown:
            raise ConfigError(
                f"--tracks: {', '.join(unknown)} not in the run (have: {', '.join(known)})"
            )
        unjudged = [t for t in tracks if t not in {j.name for j in judged}]
        if unjudged:
            raise ConfigError(f"--tracks: {', '.join(unjudged)} had no judge in the run")
        judged = [t for t in judged if t.name in tracks]
    if not judged:
        raise ConfigError("the run has no judged track to judge again")
    name = judge.panel_name if isinstance(judge, JudgePanelConfig) else judge.name
    out = Path(original.output_dir) / REJUDGED_DIR / folder_name(name)
    return original.model_copy(
        update={
            "tracks": [t.model_copy(update={"judge": judge}) for t in judged],
            "output_dir": str(out),
            "cache_path": str(original.cache_file),
            "push_to_hub": None,
            "budget_usd": None,
        }
    )


def rejudge(
    original: RunConfig,
    judge: ModelConfig | JudgePanelConfig,
    tracks: Sequence[str] | None = None,
) -> Rejudged:
    """Score the run's cached answers with `judge` and fit the boards again."""
    config = rejudged_config(original, judge, tracks)
    planned = plan_tracks(config, source="rejudge")
    pricer = run_pricer(config)
    report = RunReport(output_dir=Path(config.output_dir), limit=config.limit)
    with output_lock(config.output_dir):
        cache = ResponseCache(config.cache_file)
        try:
            restored = restore_answers(config, planned, cache, Path(original.output_dir))
            report.tracks = [_all_cached(m, p) for m in config.models for p in planned]
            results = score_all(config, planned, report.tracks, cache, pricer)
            report.boards = aggregate_all(config, planned, results)
        finally:
            cache.close()
    return Rejudged(report, config, original, restored)


def _all_cached(model: ModelConfig, plan: PlannedTrack) -> TrackReport:
    """The generate phase's report of a (model, track) whose every answer is cached."""
    samples = plan.track.samples(model)
    total = sum(turn_count(s) for s in samples)
    return TrackReport(
        model.name, plan.track.name, total, total, started_at=utc_now(), samples=len(samples)
    )


def restore_answers(
    config: RunConfig, planned: Sequence[PlannedTrack], cache: ResponseCache, results: Path
) -> int:
    """Put every answer the cache lacks back from the run's details; how many were restored.
    An answer found in neither raises `AnswersMissing`."""
    from vlmscope.models.registry import build_backend

    restored = 0
    for model in config.models:
        samples_by_track = [p.track.samples(model) for p in planned]
        keys_of = AnswerKeys(
            build_backend(model).identity, oracle_references(model, samples_by_track)
        )
        for plan, samples in zip(planned, samples_by_track, strict=True):
            folder = result_dir(results, model.name, plan.track.name, config.limit)
            restored += _restore_track(model.name, plan.track.name, samples, keys_of, cache,
                                       folder)  # fmt: skip
    return restored


def _restore_track(
    model: str,
    track: str,
    samples: Sequence[Sample],
    keys_of: AnswerKeys,
    cache: ResponseCache,
    folder: Path,
) -> int:
    """Restore one (model, track)'s missing answers, a turn at a time (a later turn's request
    holds the answers before it)."""

    def lookup(requests: list[Request]) -> list[Response | None]:
        return _found(cache, [keys_of(r) for r in requests])

    restored = 0
    details: dict[str, list[Response]] | None = None
    while True:
        conversations = walk_conversations(samples, lookup)
        missing = [(s, c) for s, c in zip(samples, conversations, strict=True) if c.next_request]
        if not missing:
            return restored
        details = _answers_in_details(folder) if details is None else details
        entries = {}
        for sample, conversation in missing:
            turn = len(conversation.responses)
            kept = details.get(sample.id, [])
            if turn >= len(kept) or conversation.next_request is None:
                raise AnswersMissing(
                    f"{model} / {track}: sample {sample.id!r} has no cached answer to turn {turn + 1} "
                    f"and none in the run's details ({folder})"
                )
            entries[keys_of(conversation.next_request)] = kept[turn]
        cache.put_many(entries, backend=model)
        restored += len(entries)


def _found(cache: ResponseCache, keys: list[str]) -> list[Response | None]:
    stored = cache.get_many(keys)
    return [stored.get(k) for k in keys]


def _answers_in_details(folder: Path) -> dict[str, list[Response]]:
    """Each sample's answers as its details row keeps them: every turn's (the `turns` a
    multi-turn track's details hold), else the row's response."""
    try:
        rows = load_folder(folder, "details").to_list()
    except FileNotFoundError:
        return {}
    return {str(row["sample_id"]): _row_answers(row) for row in rows}


def _row_answers(row: dict[str, Any]) -> list[Response]:
    final = Response(
        text=str(row.get("response") or ""),
        status=Status(row.get("status") or "ok"),
        error=row.get("error") or None,
        usage=Usage(
            prompt_tokens=int(row.get("prompt_tokens") or 0),
            completion_tokens=int(row.get("completion_tokens") or 0),
            reasoning_tokens=int(row.get("reasoning_tokens") or 0),
        ),
        latency_s=float(row.get("latency_s") or 0.0),
        reasoning=str(row.get("reasoning") or ""),
        truncated_in_reasoning=bool(row.get("truncated_in_reasoning")),
    )
    if kept := row.get(turn_details.COLUMN):  # earlier answers with their traces
        return [*turn_details.earlier_responses(kept), final]
    try:
        turns = json.loads(row.get("extra") or "{}").get("turns")
    except (ValueError, AttributeError):
        turns = None
    if not isinstance(turns, list) or not turns:
        return [final]
    earlier = [Response(text=str(t.get("answer") or "")) for t in turns[:-1]]
    return [*earlier, final]
