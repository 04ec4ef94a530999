"""Benchmark data from the Hugging Face Hub: pinned, verified, unpacked once, fingerprinted.

A dataset repo is read at a revision; a branch or tag is resolved to its commit, which is what a
result records. Files come through `huggingface_hub.snapshot_download` (its cache, its offline
mode, its resumable downloads, nothing fetched twice). Before anything reads them, each file is
checked against the Hub's own listing of that commit (size, and the git blob id: of the file,
or of the LFS pointer that holds its sha256), so a truncated or corrupted file in the cache is named, never read;
a file already checked is not hashed again unless its size or time stamp changed.

Readers get one plain folder per (repo, commit), under `$HF_HOME/vlmscope/data/`: the downloaded
files hard-linked (copied where links cannot be made) and the archives a layout names (MEGA-Bench's
`data.zip`) unpacked beside them, every member kept inside the folder (no absolute path, no
`..`, no link). It is built under a temporary name and renamed into place, so a killed build
leaves nothing half made and two processes building at once agree.

The fingerprint of the files read (their paths, sizes and Hub hashes) is what a result's summary
records beside the repo and the commit.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import uuid
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from tqdm.auto import tqdm

from vlmscope.atomic_files import write_text_atomic

_CHUNK = 1 << 20
LFS_POINTER = "version https://git-lfs.github.com/spec/v1\n"
REPO_TYPE = "dataset"


class HubDataError(OSError):
    """Hub data that cannot be used: the repo or revision does not exist, the files are not
    cached and cannot be downloaded, or a cached file is not what the Hub lists. The message
    names the repo, the revision or the file, and what to do."""


@dataclass(frozen=True)
class HubFile:
    """One file and its content hash: `git-blob:` as the Hub lists it at a commit (the git
    blob id of the file, or of its LFS pointer, which holds the content's sha256), or
    `sha256:` of a local file."""

    path: str
    size: int
    digest: str


@dataclass(frozen=True)
class DataOrigin:
    """Where a run's data came from, as its summary records it."""

    repo: str | None
    revision: str | None
    commit: str | None
    fingerprint: str
    files: int
    folder: Path

    def to_json(self) -> dict[str, Any]:
        return {
            "repo": self.repo,
            "revision": self.revision,
            "commit": self.commit,
            "fingerprint": self.fingerprint,
            "files": self.files,
        }


def fetch_dataset(
    repo: str,
    revision: str,
    *,
    patterns: Sequence[str] | None = None,
    unpack: Sequence[str] = (),
) -> DataOrigin:
    """The dataset repo `repo` at `revision`, downloaded (or found in the cache), checked,
    and laid out as one folder with `unpack`'s archives unpacked (see the module docstring)."""
    snapshot = _download(repo, revision, patterns)
    commit = snapshot.name
    files = _listing(repo, commit, patterns)
    for item in tqdm(files, desc=f"checking {repo}", unit="file", disable=len(files) < 20):
        _verify(snapshot / item.path, item, repo)
    folder = _prepared(repo, commit, snapshot, files, unpack)
    return DataOrigin(
        repo=repo,
        revision=revision,
        commit=commit,
        fingerprint=fingerprint(files),
        files=len(files),
        folder=folder,
    )


def local_origin(folder: Path) -> DataOrigin:
    """A local data folder's record: every file's path, size and sha256 in the fingerprint."""
    root = folder.resolve()
    paths = sorted(p for p in root.rglob("*") if p.is_file())
    files = [
        HubFile(p.relative_to(root).as_posix(), p.stat().st_size, "sha256:" + _sha256(p))
        for p in tqdm(
            paths, desc=f"fingerprinting {root.name}", unit="file", disable=len(paths) < 200
        )
    ]
    return DataOrigin(None, None, None, fingerprint(files), len(files), root)


def fingerprint(files: Sequence[HubFile]) -> str:
    """sha256 over each file's path, size and content hash, in path order."""
    text = "\n".join(f"{f.path}\t{f.size}\t{f.digest}" for f in sorted(files, key=lambda f: f.path))
    return hashlib.sha256(text.encode()).hexdigest()


def data_root() -> Path:
    """Where prepared folders and check records live: `$HF_HOME/vlmscope`."""
    from huggingface_hub import constants

    return Path(constants.HF_HOME) / "vlmscope"


def _download(repo: str, revision: str, patterns: Sequence[str] | None) -> Path:
    from huggingface_hub import constants, snapshot_download
    from huggingface_hub.errors import (
        IncompleteSnapshotError,
        LocalEntryNotFoundError,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    fix = (
        f"download it where the Hub can be reached (`hf download {repo} --repo-type dataset "
        f"--revision {revision}`, with the same HF_HOME) and run this again, or read a local "
        "copy of its files instead (a run config's `data_dir:`, a dataset command's `--data-dir`)"
    )
    try:
        folder = snapshot_download(
            repo,
            repo_type=REPO_TYPE,
            revision=revision,
            allow_patterns=list(patterns or []) or None,
        )
    except RevisionNotFoundError:
        raise HubDataError(
            f"dataset {repo}: revision {revision!r} does not exist (give a branch, a tag or a "
            "commit of the repo)"
        ) from None
    except RepositoryNotFoundError:
        raise HubDataError(
            f"dataset {repo} not found on {constants.ENDPOINT} (a typo, or a private or gated "
            "repo: log in with `hf auth login`)"
        ) from None
    except (LocalEntryNotFoundError, IncompleteSnapshotError) as err:
        offline = " (offline mode: HF_HUB_OFFLINE is set)" if constants.HF_HUB_OFFLINE else ""
        raise HubDataError(
            f"dataset {repo} at revision {revision!r} is not (completely) in the Hub cache "
            f"{constants.HF_HUB_CACHE} and the Hub cannot be reached{offline}: {fix}"
        ) from err
    except OSError as err:  # a download cut short or damaged on the way (the client checks sizes)
        raise HubDataError(
            f"dataset {repo} at revision {revision!r}: a download failed ({err}); run again to "
            "download it afresh"
        ) from err
    return Path(folder)


def _listing(repo: str, commit: str, patterns: Sequence[str] | None) -> list[HubFile]:
    """The commit's files as the Hub listed them (cached by `snapshot_download`), filtered."""
    from huggingface_hub import get_cached_repo_tree
    from huggingface_hub.utils import filter_repo_objects

    tree = {f.path: f for f in get_cached_repo_tree(repo, repo_type=REPO_TYPE, revision=commit)}
    wanted = filter_repo_objects(items=list(tree), allow_patterns=list(patterns or []) or None)
    return [
        HubFile(path, tree[path].size, "git-blob:" + tree[path].blob_id) for path in sorted(wanted)
    ]


def _verify(local: Path, item: HubFile, repo: str) -> None:
    """Size, then content hash unless this very file (inode, size, time stamp) passed before."""
    where = f"dataset {repo}: file {item.path} in the Hub cache ({local.resolve()})"
    remedy = "delete it and run again to download it afresh"
    try:
        info = local.stat()
    except OSError as err:
        raise HubDataError(f"{where} cannot be read ({err.strerror}): {remedy}") from None
    if info.st_size != item.size:
        raise HubDataError(
            f"{where} is {info.st_size} bytes where the Hub lists {item.size} (truncated or "
            f"corrupted): {remedy}"
        )
    record = data_root() / "checked" / item.digest.replace(":", "-")
    stamp = f"{info.st_ino} {info.st_size} {info.st_mtime_ns}"
    if record.is_file() and record.read_text(encoding="utf-8") == stamp:
        return
    expected = item.digest.removeprefix("git-blob:")
    if expected not in _git_blob_ids(local, info.st_size):
        raise HubDataError(
            f"{where} does not match the Hub's git blob id {expected} (corrupted): {remedy}"
        )
    record.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(record, stamp)


def _prepared(
    repo: str, commit: str, snapshot: Path, files: Sequence[HubFile], unpack: Sequence[str]
) -> Path:
    final = data_root() / "data" / repo.replace("/", "--") / commit
    if final.is_dir():
        return final
    building = final.with_name(f".{commit}.{uuid.uuid4().hex[:8]}.partial")
    building.mkdir(parents=True)
    try:
        for item in files:
            source = (snapshot / item.path).resolve()
            if item.path in unpack:
                _unpack(source, building, f"dataset {repo}: {item.path}", item.path)
            else:
                _link_or_copy(source, building / item.path)
        try:
            building.rename(final)
        except OSError:
            if not final.is_dir():  # another process finished first: its folder is the same
                raise
    finally:
        if building.exists():
            shutil.rmtree(building)
    return final


def _unpack(archive: Path, into: Path, where: str, name: str) -> None:
    """Every member of `archive` under `into`, refusing one that would land anywhere else."""
    try:
        with zipfile.ZipFile(archive) as opened:
            members = opened.infolist()
            for member in tqdm(members, desc=f"unpacking {name}", unit="file"):
                member_path = PurePosixPath(member.filename.replace("\\", "/"))
                mode = member.external_attr >> 16
                parts = member_path.parts
                if member_path.is_absolute() or ".." in parts or ":" in member.filename:
                    raise HubDataError(
                        f"{where}: member {member.filename!r} leads out of the folder"
                    )
                if stat.S_ISLNK(mode):
                    raise HubDataError(f"{where}: member {member.filename!r} is a symbolic link")
                target = into.joinpath(*parts)
                if member.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                with opened.open(member) as source, target.open("wb") as sink:
                    shutil.copyfileobj(source, sink, _CHUNK)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError) as err:
        raise HubDataError(f"{where} is not a readable zip archive ({err})") from err


def _link_or_copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _git_blob_ids(path: Path, size: int) -> tuple[str, str]:
    """The git blob id the file has if git stores it, and the one of its LFS pointer if LFS
    stores it: the Hub lists one of the two, so both are checked in one read."""
    blob = hashlib.sha1(f"blob {size}\0".encode(), usedforsecurity=False)
    content = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            blob.update(chunk)
            content.update(chunk)
    pointer = f"{LFS_POINTER}oid sha256:{content.hexdigest()}\nsize {size}\n".encode()
    lfs = hashlib.sha1(b"blob %d\0" % len(pointer) + pointer, usedforsecurity=False)
    return blob.hexdigest(), lfs.hexdigest()


def describe(origin: DataOrigin) -> str:
    """One line for logs and the Space: `repo@commit` or the local folder, with the fingerprint."""
    where = f"{origin.repo}@{(origin.commit or '')[:12]}" if origin.repo else str(origin.folder)
    return f"{where} (fingerprint {origin.fingerprint[:12]}, {origin.files} files)"
