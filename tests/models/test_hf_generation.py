"""The hf backend's decoding options: what `generate` is given, and what comes back."""

from __future__ import annotations

from pathlib import Path

from tests.models.helpers import backend
from vlmscope.config import GenerationOptions
from vlmscope.messages import GenerationParams, Response, Usage, user_request
from vlmscope.models.hf_generation import Decoding, cut_at_stop, finish, generate_kwargs

THINK = ("<think>", "</think>")


def test_greedy_unless_a_temperature_above_zero_asks_for_sampling() -> None:
    assert generate_kwargs(GenerationOptions()) == {"do_sample": False, "num_beams": 1}
    zero = GenerationOptions(temperature=0, top_p=0.5, repetition_penalty=1.2)
    assert generate_kwargs(zero) == {"do_sample": False, "num_beams": 1, "repetition_penalty": 1.2}
    sampled = GenerationOptions(temperature=0.7, top_k=20, stop=["\n\n"])
    assert generate_kwargs(sampled, tokenizer="tok") == {
        "do_sample": True, "num_beams": 1, "temperature": 0.7, "top_k": 20,
        "stop_strings": ["\n\n"], "tokenizer": "tok",
    }  # fmt: skip


def test_a_reply_is_cut_at_its_first_stop_string_then_split() -> None:
    assert cut_at_stop("a END b STOP c", ["STOP", "END"]) == "a "
    assert cut_at_stop("abc", []) == "abc"
    decoding = Decoding(GenerationOptions(stop=["<|end|>"]), THINK)
    raw = Response("hm, A?</think>\n\nB<|end|>junk", usage=Usage(3, 10))
    done = finish(raw, "<|im_start|>assistant\n<think>\n", decoding)
    assert (done.text, done.reasoning, done.truncated_in_reasoning) == ("B", "hm, A?", False)


def test_seeded_sampling_repeats_and_differs_from_greedy(tiny_dirs: dict[str, Path]) -> None:
    request = user_request("What colour is it?", params=GenerationParams(max_new_tokens=12))
    hot = {"generation": {"temperature": 5.0, "seed": 3}}
    first, again = (backend(tiny_dirs["llava"], **hot).generate([request])[0] for _ in range(2))
    greedy = backend(tiny_dirs["llava"]).generate([request])[0]
    assert first.text == again.text != greedy.text


def test_system_prompt_and_template_arguments_reach_the_prompt(
    tiny_dirs: dict[str, Path], tmp_path: Path
) -> None:
    from vlmscope.models.tiny import build_tiny_model

    build_tiny_model(tmp_path / "thinking", "llava_thinking")
    request = user_request("Q?", system="Track text.")
    on = backend(tmp_path / "thinking", system_prompt="Model text.")._load().encoder
    prompt, _ = on.prompt_and_images(request)
    assert "<|im_start|>system\nModel text.\n\nTrack text.<|im_end|>" in prompt
    assert prompt.endswith("<|im_start|>assistant\n<think>\n")
    off = {"generation": {"chat_template_kwargs": {"enable_thinking": False}}}
    prompt, _ = backend(tmp_path / "thinking", **off)._load().encoder.prompt_and_images(request)
    assert prompt.endswith("<think>\n\n</think>\n\n") and "Model text." not in prompt
