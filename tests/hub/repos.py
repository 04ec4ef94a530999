"""The shipped samples as Hub dataset repos in their upstream layouts, for `tests/hub_server.py`."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from tests.hub_server import HubRepo
from vlmscope.tracks.shipped_samples import sample_dir


def folder_files(root: Path, skip: tuple[str, ...] = ()) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.relative_to(root).as_posix().startswith(skip)
    }


def zipped(root: Path, under: str) -> bytes:
    """`root/under` as a zip whose members start with `under/` (MEGA-Bench's `data.zip`)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted((root / under).rglob("*")):
            if path.is_file():
                info = zipfile.ZipInfo(path.relative_to(root).as_posix(), (2020, 1, 1, 0, 0, 0))
                archive.writestr(info, path.read_bytes())
    return buffer.getvalue()


def megabench_repo(repo_id: str = "TIGER-Lab/MEGA-Bench") -> HubRepo:
    """Config folders of parquet, the task metadata, and the media as `data.zip`."""
    root = sample_dir("megabench")
    files = folder_files(root, skip=("data/",))
    files["data.zip"] = zipped(root, "data")
    repo = HubRepo(repo_id)
    repo.add_commit(files)
    return repo


def sample_repo(track: str, repo_id: str, under: str = "") -> HubRepo:
    repo = HubRepo(repo_id)
    repo.add_commit(folder_files(sample_dir(track) / under if under else sample_dir(track)))
    return repo
