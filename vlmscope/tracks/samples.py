"""Where the shipped sample of a track lives: `dataset_scripts/samples/<track>` in the repo."""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def sample_dir(track: str) -> Path:
    folder = REPO_ROOT / "dataset_scripts" / "samples" / track
    if not folder.is_dir():
        raise FileNotFoundError(
            f"no shipped sample for {track!r} at {folder}; set `data_dir` in the track config "
            "to the upstream files you downloaded"
        )
    return folder
