"""Multi-round ProBench: each turn is its own cached request carrying the model's own history.

A stub model answers through the OpenAI-compatible backend (each answer names the turn it
answers), the judge is the coin backend. Checked: turn k's request holds the model's own
answers to turns 1..k-1 (never the reference answers); a run killed when the first turn-3
request goes out resumes at turn 3 with turns 1 and 2 not asked again; every turn's answer
reaches the details.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import yaml

from tests.faults.helpers import rows
from tests.foundation.test_resume import env
from tests.servers import Call, OpenAIStub
from vlmscope.runner.results import result_dir
from vlmscope.tracks.probench.rows import SAMPLE_DIR, read_rows

ROOT = Path(__file__).resolve().parents[2]
MODEL = "stub-model"
MULTI_ROUND = [row for row in read_rows(SAMPLE_DIR) if row.chat_type == "multi-round"]


def _user_turns(call: Call) -> int:
    return sum(m["role"] == "user" for m in (call.body or {}).get("messages", []))


def answer(call: Call) -> str:
    """Names the turn and the question, so a test can tell whose answer is in a history."""
    return f"stub answer to turn {_user_turns(call)}: {call.prompt[:40]}"


def _config(path: Path, base_url: str) -> Path:
    config: dict[str, Any] = {
        "models": [
            {
                "backend": "openai",
                "name": MODEL,
                "model": MODEL,
                "base_url": base_url,
                "max_retries": 0,
                "concurrency": 2,
            }
        ],
        "tracks": [
            {
                "name": "probench",
                "subset": "multi-round",
                "judge": {"backend": "coin", "name": "coin-judge"},
                "options": {"bootstrap_rounds": 10},
            }
        ],
    }
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


def _run(config: Path, out: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, str(ROOT / "run_eval.py"), "--config", str(config)]
    command += ["--output-dir", str(out)]
    return subprocess.Popen(command, env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def test_the_sample_has_conversations_long_enough() -> None:
    assert max(row.rounds for row in MULTI_ROUND) >= 4


def test_killed_after_turn_two_resumes_at_turn_three(tmp_path: Path) -> None:
    out = tmp_path / "out"
    killer: dict[str, Any] = {"pid": None, "fired": False}
    lock = threading.Lock()

    def kill_at_turn_three(call: Call) -> str:
        with lock:
            if _user_turns(call) >= 3 and killer["pid"] and not killer["fired"]:
                os.kill(killer["pid"], signal.SIGKILL)  # before this answer is committed
                killer["fired"] = True
        return answer(call)

    with OpenAIStub(kill_at_turn_three) as stub:  # one server: the model's identity holds its URL
        config = _config(tmp_path / "probench.yaml", stub.base_url)
        first = _run(config, out)
        killer["pid"] = first.pid
        _, stderr = first.communicate(timeout=300)
        assert killer["fired"], stderr.decode()[-3000:]
        assert first.returncode == -signal.SIGKILL
        asked_first = [_user_turns(c) for c in stub.calls]
        second = _run(config, out)
        _, stderr = second.communicate(timeout=300)
        assert second.returncode == 0, stderr.decode()[-3000:]
        calls = list(stub.calls)[len(asked_first) :]
    expected_first = sum(min(row.rounds, 2) for row in MULTI_ROUND)
    assert asked_first.count(1) + asked_first.count(2) == expected_first
    # nothing of turns 1 and 2 is asked again; every later turn is asked exactly once
    # (the turn-3 requests the killed run sent got no committed answer, so they are asked again)
    assert sorted(_user_turns(c) for c in calls) == sorted(
        k for row in MULTI_ROUND for k in range(3, row.rounds + 1)
    )
    for call in calls:
        _assert_history_is_own(call)

    details = rows(result_dir(out, MODEL, "probench"), "details")
    by_id = {d["sample_id"]: d for d in details}
    for row in MULTI_ROUND:
        turns = _extra(by_id[row.uuid])["turns"]
        assert [t["question"] for t in turns] == list(row.questions)
        assert [t["baseline_answer"] for t in turns] == list(row.reference_answers)
        assert all(
            t["answer"].startswith(f"stub answer to turn {i + 1}:") for i, t in enumerate(turns)
        )


def _assert_history_is_own(call: Call) -> None:
    """Every assistant message is the stub's own answer to the turn before it."""
    messages = (call.body or {})["messages"]
    user_turn = 0
    for message in messages:
        if message["role"] == "user":
            user_turn += 1
        elif message["role"] == "assistant":
            assert message["content"].startswith(f"stub answer to turn {user_turn}:"), message
    references = {a for row in MULTI_ROUND for a in row.reference_answers}
    assert not any(m["content"] in references for m in messages if m["role"] == "assistant")


def _extra(detail: dict[str, Any]) -> dict[str, Any]:
    extra = detail["extra"]
    return json.loads(extra) if isinstance(extra, str) else extra


def test_single_run_asks_each_turn_once(tmp_path: Path) -> None:
    with OpenAIStub(answer) as stub:
        proc = _run(_config(tmp_path / "c.yaml", stub.base_url), tmp_path / "out")
        _, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, stderr.decode()[-3000:]
        turns = sorted(_user_turns(c) for c in stub.calls)
    assert turns == sorted(k for row in MULTI_ROUND for k in range(1, row.rounds + 1))
