"""Where the shipped sample of a track lives: `vlmscope/samples/<track>`, package data.

The samples ship inside the package (`setup.cfg` `package_data`), so an installed wheel finds
them as a checkout does; `dataset_scripts/make_*_sample.py` write them there.
"""

from __future__ import annotations

from pathlib import Path

SAMPLES_ROOT = Path(__file__).resolve().parents[1] / "samples"


def sample_dir(track: str) -> Path:
    folder = SAMPLES_ROOT / track
    if not folder.is_dir():
        raise FileNotFoundError(
            f"no shipped sample for {track!r} at {folder}; set `data_dir` in the track config "
            "to the upstream files you downloaded"
        )
    return folder
