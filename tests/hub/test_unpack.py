"""Archives are unpacked only inside their folder, as local data is read only inside its own."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from vlmscope.hub_data import HubDataError, _unpack


def archive(tmp_path: Path, members: dict[str, bytes], link: str | None = None) -> Path:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as opened:
        for name, data in members.items():
            opened.writestr(name, data)
        if link is not None:
            info = zipfile.ZipInfo(link)
            info.external_attr = 0o120777 << 16  # a symbolic link, as `zip -y` stores one
            opened.writestr(info, "/etc/passwd")
    path = tmp_path / "data.zip"
    path.write_bytes(buffer.getvalue())
    return path


def test_members_land_inside(tmp_path: Path) -> None:
    into = tmp_path / "out"
    into.mkdir()
    _unpack(archive(tmp_path, {"data/a/b.png": b"x", "data/c.mp4": b"y"}), into, "repo", "data.zip")
    assert (into / "data/a/b.png").read_bytes() == b"x" and (
        into / "data/c.mp4"
    ).read_bytes() == b"y"


@pytest.mark.parametrize(
    ("members", "link", "why"),
    [
        ({"../escape.txt": b"x"}, None, "leads out of the folder"),
        ({"/abs/escape.txt": b"x"}, None, "leads out of the folder"),
        ({"data/ok.txt": b"x"}, "data/link", "is a symbolic link"),
    ],
)
def test_members_that_would_leave_are_refused(tmp_path, members, link, why) -> None:
    into = tmp_path / "out"
    into.mkdir()
    with pytest.raises(HubDataError, match=f"dataset x: data.zip: member .* {why}"):
        _unpack(archive(tmp_path, members, link), into, "dataset x: data.zip", "data.zip")
    assert not (tmp_path / "escape.txt").exists()


def test_a_file_that_is_not_a_zip_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "data.zip"
    bad.write_bytes(b"PK not really")
    with pytest.raises(HubDataError, match="dataset x: data.zip is not a readable zip archive"):
        _unpack(bad, tmp_path, "dataset x: data.zip", "data.zip")
