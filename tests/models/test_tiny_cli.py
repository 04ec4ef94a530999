import argparse
from pathlib import Path

import pytest

from vlmscope.cli.make_tiny_model import add_subparser
from vlmscope.models import tiny


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="vlmscope")
    add_subparser(parser.add_subparsers(dest="command"))
    return parser.parse_args(list(argv))


def test_help_says_it_is_not_for_evaluation(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse("make-tiny-model", "--help")
    text = " ".join(capsys.readouterr().out.split())
    assert "random-weight" in text and "NOT for evaluation" in text


def test_same_seed_same_files_other_seed_other_weights(tmp_path: Path) -> None:
    for name, seed in (("a", "3"), ("b", "3"), ("c", "4")):
        args = parse("make-tiny-model", str(tmp_path / name), "--arch", "idefics3", "--seed", seed)
        assert args.func(args) == 0
    files = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert {"config.json", "model.safetensors", "tokenizer.json", "chat_template.jinja"} <= set(
        files
    )
    assert files == sorted(p.name for p in (tmp_path / "b").iterdir())
    for name in files:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    weights = (tmp_path / "a" / "model.safetensors").read_bytes()
    assert weights != (tmp_path / "c" / "model.safetensors").read_bytes()
    assert (tmp_path / "a" / "tokenizer.json").read_bytes() == (
        tmp_path / "c" / "tokenizer.json"
    ).read_bytes()


def test_refuses_to_overwrite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "keep.txt").write_text("mine")
    args = parse("make-tiny-model", str(tmp_path / "m"), "--arch", "llava")
    assert args.func(args) == 1
    assert "not an empty directory" in capsys.readouterr().err
    assert [p.name for p in (tmp_path / "m").iterdir()] == ["keep.txt"]


def test_ensure_keeps_the_first_complete_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rival that finishes first wins; the loser's copy is discarded, nothing half-built stays."""
    target = tmp_path / "models" / "tiny"
    real_build = tiny.build_tiny_model

    def build_while_a_rival_finishes(out_dir: Path, arch: tiny.TinyArch, *, seed: int = 0) -> int:
        real_build(target, arch, seed=1)  # the rival (seed 1 marks its files)
        return real_build(out_dir, arch, seed=seed)

    monkeypatch.setattr(tiny, "build_tiny_model", build_while_a_rival_finishes)
    assert tiny.ensure_tiny_model(target, "llava") == target
    rival_weights = (target / "model.safetensors").read_bytes()
    monkeypatch.undo()
    fresh = tmp_path / "seed1"
    tiny.build_tiny_model(fresh, "llava", seed=1)
    assert rival_weights == (fresh / "model.safetensors").read_bytes()
    assert sorted(p.name for p in target.parent.iterdir()) == ["tiny"]  # no staging dirs left
    assert tiny.ensure_tiny_model(target, "llava") == target  # present: nothing rebuilt


def test_every_family_is_offered(capsys: pytest.CaptureFixture[str]) -> None:
    for arch in tiny.TINY_ARCHS:
        assert parse("make-tiny-model", "out", "--arch", arch).arch == arch
    with pytest.raises(SystemExit):
        parse("make-tiny-model", "out", "--arch", "nonesuch")
    assert "qwen2_5_vl" in capsys.readouterr().err  # the choices are listed


def test_a_family_without_torchvision_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_torchvision(*args: object, **kwargs: object) -> None:
        raise ImportError("\nQwen3VLVideoProcessor requires the Torchvision library. Install it.")

    monkeypatch.setattr(tiny, "ensure_tiny_model", no_torchvision)
    args = parse("make-tiny-model", str(tmp_path / "q"), "--arch", "qwen3_vl")
    assert args.func(args) == 1
    err = capsys.readouterr().err
    assert "qwen3_vl needs torchvision" in err and "requires the Torchvision library" in err
    assert "Install it" not in err  # the first sentence only
