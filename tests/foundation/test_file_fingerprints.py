"""A folder's file listing, as the builders' cache fingerprint and the compare view's refit key
read it: pinned on a small folder, so the one listing both use keeps each caller's output (a
changed fingerprint would make every prepared build stale; a changed key every kept refit)."""

from __future__ import annotations

import os
from pathlib import Path

from vlmscope.datasets.data_fingerprint import files_fingerprint
from vlmscope.leaderboard.compare.board_fits import file_identity

# (relative path, content, modification time in ns): a folder whose walk order (a directory's
# files before its subfolders) differs from the order of sorted paths
FILES = [
    ("b.txt", b"bb", 1_700_000_000_000_000_001),
    ("z.txt", b"z", 1_700_000_000_000_000_002),
    (".hidden", b"", 1_700_000_000_000_000_003),
    ("a/x.bin", b"\x00\x01\x02", 1_700_000_000_000_000_004),
    ("c/d/y", b"yyyy", 1_700_000_000_000_000_005),
    ("c/e", b"e", 1_700_000_000_000_000_006),
]


def _folder(root: Path) -> Path:
    for relative, content, mtime in FILES:
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        os.utime(path, ns=(mtime, mtime))
    return root


def test_the_fingerprint_of_a_folder_is_pinned(tmp_path: Path) -> None:
    assert files_fingerprint(_folder(tmp_path)) == "da4375bb3ce5ff97"


def test_the_file_identity_of_a_folder_is_pinned(tmp_path: Path) -> None:
    assert file_identity(_folder(tmp_path)) == (
        (".hidden", 0, 1_700_000_000_000_000_003),
        ("a/x.bin", 3, 1_700_000_000_000_000_004),
        ("b.txt", 2, 1_700_000_000_000_000_001),
        ("c/d/y", 4, 1_700_000_000_000_000_005),
        ("c/e", 1, 1_700_000_000_000_000_006),
        ("z.txt", 1, 1_700_000_000_000_000_002),
    )


def test_the_listing_reads_regular_files_and_links_to_them_only(tmp_path: Path) -> None:
    """A link to a file reads as its target; a link to nothing (the fingerprint used to stop
    on it, unnamed) and a link to a folder (which may lead back into the folder) are left out."""
    from vlmscope.file_states import folder_files

    root = _folder(tmp_path / "root")
    (root / "to_b").symlink_to(root / "b.txt")
    (root / "to_nothing").symlink_to(root / "gone")
    (root / "to_c").symlink_to(root / "c", target_is_directory=True)
    (root / "c" / "loop").symlink_to(root, target_is_directory=True)
    listed = folder_files(root)
    assert [p for p, _, _ in listed] == [
        ".hidden",
        "b.txt",
        "to_b",
        "z.txt",
        "a/x.bin",
        "c/e",
        "c/d/y",
    ]
    assert listed[2][1] == 2  # the target's size
    assert [p for p, _, _ in file_identity(root)] == [
        ".hidden",
        "a/x.bin",
        "b.txt",
        "c/d/y",
        "c/e",
        "to_b",
        "z.txt",
    ]
