"""Nothing outside the output folder is touched: a link planted where vlmscope keeps a file of
its own (the lock, the cache, a file being written, the arena's store and exports) is refused,
never followed, and the file it points at keeps its bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

import run_eval
from vlmscope.arena.vote_store import VoteStore
from vlmscope.atomic_files import write_bytes_atomic
from vlmscope.cache import ResponseCache
from vlmscope.owned_files import NotOwnedFile
from vlmscope.runner.output_lock import LOCK_NAME, output_lock

PRECIOUS = b"someone else's file\n"


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A file outside every output folder, that a link will point at."""
    path = tmp_path / "elsewhere" / "precious.txt"
    path.parent.mkdir()
    path.write_bytes(PRECIOUS)
    return path


def test_a_link_at_the_lock_stops_the_run_and_leaves_its_target(
    tmp_path: Path, victim: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / LOCK_NAME).symlink_to(victim)
    config = tmp_path / "run.yaml"
    config.write_text(
        f"output_dir: {out}\nmodels: [{{backend: oracle}}]\ntracks: [{{name: colours}}]\n"
    )
    assert run_eval.main(["--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"error: {out / LOCK_NAME}: is a symbolic link, not a regular file")
    assert victim.read_bytes() == PRECIOUS
    assert sorted(p.name for p in out.iterdir()) == [LOCK_NAME]  # nothing was run


def test_the_lock_must_be_a_regular_file(tmp_path: Path) -> None:
    (tmp_path / LOCK_NAME).mkdir()
    with (
        pytest.raises(NotOwnedFile, match="is a folder, not a regular file"),
        output_lock(tmp_path),
    ):
        pass


@pytest.mark.parametrize("linked", ["", "-wal", "-shm"])
def test_a_link_at_the_cache_or_its_companions_is_refused(
    tmp_path: Path, victim: Path, linked: str
) -> None:
    cache = tmp_path / "cache.sqlite"
    Path(f"{cache}{linked}").symlink_to(victim)
    with pytest.raises(NotOwnedFile, match=f"{cache}{linked}: is a symbolic link"):
        ResponseCache(cache)
    assert victim.read_bytes() == PRECIOUS


def test_a_cache_path_that_is_a_folder_is_named(tmp_path: Path) -> None:
    with pytest.raises(NotOwnedFile, match=f"{tmp_path}: is a folder, not a regular file"):
        ResponseCache(tmp_path)


def test_a_link_planted_at_the_partial_name_is_replaced_not_written_through(
    tmp_path: Path, victim: Path
) -> None:
    import os

    target = tmp_path / "summary.json"
    (tmp_path / f".{target.name}.partial-{os.getpid()}").symlink_to(victim)
    write_bytes_atomic(target, b"{}")
    assert target.read_bytes() == b"{}" and victim.read_bytes() == PRECIOUS
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", "summary.json"]


def test_a_link_at_the_vote_store_is_refused(tmp_path: Path, victim: Path) -> None:
    store = tmp_path / "votes.sqlite"
    store.symlink_to(victim)
    with pytest.raises(NotOwnedFile, match="votes.sqlite: is a symbolic link"):
        VoteStore(store)
    assert victim.read_bytes() == PRECIOUS


def test_an_export_into_a_linked_images_folder_is_refused(tmp_path: Path) -> None:
    from vlmscope.arena.export import export_jsonl, export_parquet

    store = VoteStore(tmp_path / "votes.sqlite")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "export"
    out.mkdir()
    (out / "images").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(NotOwnedFile, match="images: is a symbolic link, not a folder"):
        export_jsonl(store, out)
    (out / "data").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(NotOwnedFile, match="data: is a symbolic link, not a folder"):
        export_parquet(store, out)
    assert list(elsewhere.iterdir()) == []
    store.close()
