"""A result folder is replaced whole or not at all (item 4 of "No result is ever overwritten or
silently changed"): a reader finds the old complete export or the new one, and a full disk
leaves the old folder as it was, with no temporary folder behind."""

import errno
import os

import datasets
import pytest

from vlmscope import hub_export
from vlmscope.hub_export import export_folder, load_folder


def table(tag: str, n: int) -> datasets.Dataset:
    return datasets.Dataset.from_list([{"id": i, "tag": tag} for i in range(n)])


def export(folder, tag: str, n: int = 5, **configs: datasets.Dataset):
    return export_folder(
        folder,
        {"details": table(tag, n), **configs},
        title=f"export {tag}",
        default="details",
        shard_rows=2,
    )


def tags(folder, config: str = "details") -> list[str]:
    return load_folder(folder, config)["tag"]


def test_a_rewrite_replaces_the_configs_and_keeps_the_rest(tmp_path):
    folder = tmp_path / "results" / "model" / "track"
    export(folder, "old", n=5, summary=table("old summary", 1))
    (folder / "official").mkdir()
    (folder / "official" / "task_results.json").write_text("[]")  # a track's own files

    assert export(folder, "new", n=3) == folder
    assert tags(folder) == ["new"] * 3
    shards = sorted(p.name for p in (folder / "details").iterdir())
    assert shards == [f"test-0000{i}-of-00002.parquet" for i in range(2)]  # old 3 shards gone
    assert tags(folder, "summary") == ["old summary"]  # not rewritten, so carried over
    assert (folder / "official" / "task_results.json").read_text() == "[]"
    assert "export new" in (folder / "README.md").read_text()
    assert os.listdir(folder.parent) == ["track"]  # no temporary or old folder left


def fail_after_first_shard(monkeypatch, folder, seen: list[list[str]]) -> None:
    """Every parquet write after the first hits a full disk; each write also checks what a
    reader of the folder sees at that moment."""
    write = hub_export.pq.write_table
    calls = []

    def write_table(table, path, *args, **kwargs):
        seen.append(tags(folder))
        calls.append(path)
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return write(table, path, *args, **kwargs)

    monkeypatch.setattr(hub_export.pq, "write_table", write_table)


def test_a_full_disk_leaves_the_old_folder_whole_and_no_temporary_folder(tmp_path, monkeypatch):
    folder = tmp_path / "track"
    export(folder, "old", n=5)
    before = {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    seen: list[list[str]] = []
    fail_after_first_shard(monkeypatch, folder, seen)

    with pytest.raises(OSError) as caught:
        export(folder, "new", n=5)
    assert caught.value.errno == errno.ENOSPC
    assert str(folder) in str(caught.value) and "unchanged" in str(caught.value)
    assert seen == [["old"] * 5] * 2  # while writing, a reader saw the old export
    monkeypatch.undo()
    assert tags(folder) == ["old"] * 5
    after = {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert after == before
    assert os.listdir(tmp_path) == ["track"]


def test_a_full_disk_on_a_first_export_leaves_nothing(tmp_path, monkeypatch):
    folder = tmp_path / "track"
    monkeypatch.setattr(hub_export.pq, "write_table", _no_space)
    with pytest.raises(OSError, match="could not write the dataset folder .*track"):
        export(folder, "new")
    assert os.listdir(tmp_path) == []


def _no_space(table, path, *args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device", str(path))


def test_a_file_in_the_way_is_an_error_not_replaced(tmp_path):
    folder = tmp_path / "track"
    folder.write_text("someone's notes")
    with pytest.raises(FileExistsError, match="is a file, not a dataset folder"):
        export(folder, "new")
    assert folder.read_text() == "someone's notes"


def dead_pid() -> int:
    """The id of a process that has exited (and been reaped)."""
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_killed_exports_leftovers_are_tidied_by_the_next_export(tmp_path):
    folder = tmp_path / "results" / "model" / "track"
    export(folder, "old", n=2)
    pid = dead_pid()
    half = folder.with_name(f".track.tmp-{pid}")
    (half / "details").mkdir(parents=True)
    (half / "details" / "test-00000-of-00001.parquet").write_bytes(b"half a shard")
    stale_old = folder.with_name(f".track.old-{dead_pid()}")  # a second killed export
    stale_old.mkdir()
    live = folder.with_name(f".track.tmp-{os.getpid()}x")  # not an export's name: left alone
    live.mkdir()
    export(folder, "new", n=1)
    assert tags(folder) == ["new"]
    assert sorted(os.listdir(folder.parent)) == sorted(["track", live.name])


def test_an_export_killed_between_its_renames_gets_its_folder_back(tmp_path):
    folder = tmp_path / "results" / "model" / "track"
    export(folder, "old", n=2, summary=table("old summary", 1))
    aside = folder.with_name(f".track.old-{dead_pid()}")
    folder.rename(aside)  # what `_swap_in` leaves when killed after its first rename
    export(folder, "new", n=1)
    assert tags(folder) == ["new"]
    assert tags(folder, "summary") == ["old summary"]  # carried over from the folder put back
    assert os.listdir(folder.parent) == ["track"]


def test_a_live_exports_staging_folder_is_left_alone(tmp_path):
    folder = tmp_path / "results" / "model" / "track"
    export(folder, "old", n=2)
    other = folder.with_name(f".track.tmp-{os.getppid()}")  # a running process: our parent
    other.mkdir()
    export(folder, "new", n=1)
    assert other.is_dir()
