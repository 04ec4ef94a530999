"""A run against an OpenAI-compatible server that fails 20% of all attempts, six ways.

The stub (`fault_plan.FaultPlan`) answers 429 with Retry-After, 500, nothing within the client's
timeout, truncated JSON, a 50 MB body that is not a completion, or a slow drip (each read gets
bytes in time, the whole reply does not), in turn. Generation (two or more models on the
`colours` track) and judging (the `colours_pairwise` track's judge) both go through it. Every
request must end answered or counted as failed, in the details and summaries, with the cause
and number of attempts the injected faults imply; the backends' retry counters must match what
was injected kind by kind (a 50 MB body that does not arrive within the timeout may rightly be
booked as a timeout); and the run must finish (a hang fails the test, it never blocks it).

Bounded version: 2 models, a few dozen requests. `-m slow`: 10 models and a different seed.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.colour_track import ColourTrack
from tests.faults.fault_plan import KINDS, FaultPlan, booked_as, conversation
from tests.faults.helpers import finish_within, rows
from tests.servers import Call, OpenAIStub
from vlmscope.config import OpenAIModelConfig, RunConfig, TrackConfig, parse_config
from vlmscope.models.images import apply_image_budget
from vlmscope.models.openai_payload import chat_body
from vlmscope.runner import generate, loop, score
from vlmscope.runner.results import result_dir

TIMEOUT_S = 1.0  # the client's; a 50 MB body is read and rejected well within it
MAX_RETRIES = 1  # so that some requests run out of attempts and must be counted as failed
N_COLOURS = 12  # the colour track's first 12 prompts are all different requests
PAIRWISE = "colours_pairwise"


def answer(call: Call) -> str:
    """A bot names itself (so judge prompts tell bots apart); the judge always sees a tie."""
    model = (call.body or {}).get("model", "")
    return "[[A=B]]" if model == "judge" else f"{model} says red"


def _api(name: str, base_url: str, concurrency: int) -> dict[str, Any]:
    return {"backend": "openai", "name": name, "base_url": base_url, "model": name,
            "concurrency": concurrency, "timeout_s": TIMEOUT_S, "max_retries": MAX_RETRIES,
            "backoff_base_s": 0.01, "backoff_max_s": 0.05}  # fmt: skip


def _config(out: Path, base_url: str, bots: list[str]) -> RunConfig:
    return parse_config(
        {
            "output_dir": str(out),
            "models": [
                {"backend": "oracle", "name": "baseline"},
                *(_api(bot, base_url, N_COLOURS) for bot in bots),
            ],
            "tracks": [
                {"name": "colours", "options": {"n_samples": N_COLOURS}},
                {
                    "name": PAIRWISE,
                    "judge": _api("judge", base_url, 8),
                    "options": {"baseline": "baseline", "bootstrap_rounds": 10},
                },
            ],
        }
    )


def _stats_by_name(built: list[Any]) -> dict[str, Counter[str]]:
    """Each API backend's counters, summed over every instance built under its name."""
    totals: dict[str, Counter[str]] = {}
    for backend in built:
        if hasattr(backend, "stats"):
            totals.setdefault(backend.name, Counter()).update(backend.stats)
    return {name: Counter({k: v for k, v in s.items() if v}) for name, s in totals.items()}


def _sample_keys(config: RunConfig, bot: str) -> dict[str, tuple[str, str]]:
    """Sample id -> the stub's key of the request the bot sends for it."""
    model = next(m for m in config.models if m.name == bot)
    assert isinstance(model, OpenAIModelConfig)
    track = ColourTrack(TrackConfig(name="colours", options={"n_samples": N_COLOURS}), limit=None)
    keys = {}
    for sample in track.samples(model):
        budgeted, _ = apply_image_budget(sample.request, model.image_budget)
        messages = chat_body(budgeted, model.model, model.max_new_tokens)["messages"]
        keys[sample.id] = (bot, conversation(json.loads(json.dumps(messages))))
    return keys


def _error_cause(error: str) -> str:
    return error.split(" ", 1)[0]


def _by_kind(expected: Counter[str], prefix: str) -> Counter[str]:
    return Counter({k.split(":", 1)[1]: n for k, n in expected.items() if k.startswith(prefix)})


def check_counters(stats: Counter[str], expected: Counter[str]) -> int:
    """A backend's own counters against the faults its requests met; returns how many 50 MB
    bodies it booked as timeouts."""
    for name in ("requests", "ok", "failed", "retries"):
        assert stats[name] == expected[name], name
    retried = Counter({c: stats[f"retries_{c}"] for c in ("rate_limited", "server_error",
                       "timeout", "bad_body", "connection")})  # fmt: skip
    late = booked_as(_by_kind(expected, "retried:"), retried)
    assert late is not None, (stats, expected)
    return late


def run_with_faults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, bots: int, seed: int, limit_s: float
) -> None:
    names = [f"bot-{i}" for i in range(bots)]
    plan = FaultPlan(answer, timeout_s=TIMEOUT_S, seed=seed)
    built: list[Any] = []
    real_build = generate.build_backend

    def recording_build(*args: Any, **kwargs: Any) -> Any:
        built.append(real_build(*args, **kwargs))
        return built[-1]

    # generation builds the models under test, scoring the judge: each module looks it up itself
    monkeypatch.setattr(generate, "build_backend", recording_build)
    monkeypatch.setattr(score, "build_backend", recording_build)
    out = tmp_path / "out"
    with OpenAIStub(plan) as stub:
        config = _config(out, stub.base_url, names)
        report = finish_within(lambda: loop.run(config), limit_s, "the run against the stub")
        calls = len(stub.calls)
    stats = _stats_by_name(built)
    max_attempts = MAX_RETRIES + 1
    assert sum(len(v) for v in plan.log.values()) == calls  # the plan saw every call

    # nothing lost: every sample of every (model, track) is in the details, answered or failed
    for track_report in report.tracks:
        assert track_report.result_dir is not None
        details = rows(track_report.result_dir, "details")
        (summary,) = rows(track_report.result_dir, "summary")
        expected_n = N_COLOURS if track_report.track == "colours" else 8
        assert len(details) == expected_n == sum(summary["status_counts"].values())
        assert {r["status"] for r in details} <= {"ok", "request_failed"}
        failed = sum(r["status"] != "ok" for r in details)
        assert summary["run_counts"]["failed"] == failed == track_report.failed

    late = {}
    judge_keys = plan.keys("judge")
    for bot in names:
        keys = plan.keys(bot)
        late[bot] = check_counters(stats[bot], plan.expected(keys, max_attempts))
        by_sample = _sample_keys(config, bot)
        assert set(by_sample.values()) == set(keys)  # each request reached the stub
        for track in ("colours", PAIRWISE):
            for row in rows(result_dir(out, bot, track), "details"):
                end = plan.final(by_sample[row["sample_id"]], max_attempts)
                assert row["attempts"] == end.attempts, row["sample_id"]
                if end.failed_kind is None:
                    assert (row["status"], row["error"]) == ("ok", "")
                    assert row["response"] == f"{bot} says red"
                else:
                    assert row["status"] == "request_failed" and row["response"] == ""
                    assert _error_cause(row["error"]) in end.causes, row["error"]
                    assert f"after {max_attempts} attempts" in row["error"]
        # judging: a game whose judge request failed is counted (and kept), never a verdict
        mine = [k for k in judge_keys if f"{bot} says red" in plan.prompts[k]]
        ended = [plan.final(k, max_attempts) for k in mine]
        games = [
            game
            for row in rows(result_dir(out, bot, PAIRWISE), "details")
            for game in json.loads(row["extra"]).get("games", [])
        ]
        assert len(games) == len(mine)  # one judge request per game played
        errors = Counter(_error_cause(g["error"]) for g in games if g["error"])
        failed_kinds = Counter(e.failed_kind for e in ended if e.failed_kind)
        assert booked_as(failed_kinds, errors) is not None, (failed_kinds, errors)
        assert all(g["label"] is None for g in games if g["error"])
        assert all(g["label"] == "A=B" for g in games if not g["error"])
        (summary,) = rows(result_dir(out, bot, PAIRWISE), "summary")
        assert summary["scores"]["unparseable_games"] == sum(errors.values())
    late["judge"] = check_counters(stats["judge"], plan.expected(judge_keys, max_attempts))

    _print_counts(plan, stats, calls, max_attempts, ["judge", *names], late)
    # the run met every fault kind, and requests that recovered and that ran out of attempts,
    # both when generating and when judging (the seeds are chosen so)
    assert set(plan.injected(plan.log)) == set(KINDS)
    for side in (sum((stats[b] for b in names), Counter()), stats["judge"]):
        assert side["failed"] >= 1 and side["retries"] > side["failed"], side


def _print_counts(
    plan: FaultPlan,
    stats: dict[str, Counter[str]],
    calls: int,
    max_attempts: int,
    names: list[str],
    late: dict[str, int],
) -> None:
    """Per fault kind: injected, and what became of it (retried, or the end of a request)."""
    expected = plan.expected(plan.log, max_attempts)
    injected = plan.injected(plan.log)
    print(f"\nHTTP fault campaign: {calls} calls, {sum(injected.values())} faults injected "
          f"({sum(injected.values()) / calls:.0%})")  # fmt: skip
    for kind in KINDS:
        retried, failed = expected[f"retried:{kind}"], expected[f"failed:{kind}"]
        assert injected[kind] == retried + failed
        print(f"  {kind:15} injected={injected[kind]:3}  retried={retried:3}  failed={failed}")
    print(f"  50 MB bodies not read within {TIMEOUT_S:g} s (booked as timeouts): "
          f"{sum(late.values())}")  # fmt: skip
    for name in names:
        mine = plan.expected(plan.keys(name), max_attempts)
        retries = {k.removeprefix("retries_"): v for k, v in stats[name].items() if "_" in k}
        print(f"  {name:6} requests={mine['requests']:3} ok={mine['ok']:3} "
              f"failed={mine['failed']}  client retries {retries}")  # fmt: skip


def test_every_request_ends_answered_or_counted(tmp_path, monkeypatch):
    run_with_faults(tmp_path, monkeypatch, bots=2, seed=2, limit_s=120)


@pytest.mark.slow
def test_every_request_ends_answered_or_counted_at_scale(tmp_path, monkeypatch):
    run_with_faults(tmp_path, monkeypatch, bots=10, seed=3, limit_s=600)
