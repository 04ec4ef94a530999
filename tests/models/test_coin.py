"""The coin backend: a reply picked by a hash of the request, the same every time."""

from __future__ import annotations

from collections import Counter

from vlmscope.config import CoinModelConfig, parse_config
from vlmscope.judges.verdicts import parse_verdict
from vlmscope.messages import user_request
from vlmscope.models.registry import build_backend


def test_same_request_same_reply_and_labels_spread() -> None:
    backend = build_backend(CoinModelConfig(backend="coin"))
    requests = [user_request(f"prompt {i}") for i in range(200)]
    first = backend.generate(requests)
    assert [r.text for r in backend.generate(requests)] == [r.text for r in first]
    labels = Counter(parse_verdict(r.text).label for r in first)
    assert set(labels) == {"A>>B", "A>B", "A=B", "B>A", "B>>A"}
    assert min(labels.values()) > 20  # a hash, not a constant


def test_reply_template_and_labels_are_settings() -> None:
    config = CoinModelConfig(backend="coin", labels=["B>A"], reply="verdict: [[{label}]] done")
    (reply,) = build_backend(config).generate([user_request("x")])
    assert reply.text == "verdict: [[B>A]] done"


def test_a_config_names_it_as_a_judge() -> None:
    config = parse_config(
        {
            "models": [{"backend": "oracle"}],
            "tracks": [{"name": "megabench", "judge": {"backend": "coin", "name": "c"}}],
        }
    )
    assert config.tracks[0].judge is not None and config.tracks[0].judge.backend == "coin"
