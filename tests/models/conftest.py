"""Tiny random-weight models, built once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

from vlmscope.models.tiny import build_tiny_model


@pytest.fixture(scope="session", autouse=True)
def _one_thread() -> None:
    import torch

    torch.set_num_threads(1)  # steady timings; OpenMP threads contend on small CI machines


@pytest.fixture(scope="session")
def tiny_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tiny")
    dirs = {}
    for arch in ("llava", "idefics3"):
        build_tiny_model(root / arch, arch)
        dirs[arch] = root / arch
    # 128 positions: a handful of 16-token llava images overflows it
    build_tiny_model(root / "short", "llava", text={"max_position_embeddings": 128})
    dirs["short"] = root / "short"
    return dirs
