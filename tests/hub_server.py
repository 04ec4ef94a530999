"""A Hub-shaped dataset server on 127.0.0.1, for testing Hub downloads without the internet.

It answers only what `huggingface_hub`'s `snapshot_download`/`hf_hub_download` ask for a dataset
repo: the repo info at a revision (`/api/datasets/<repo>/revision/<rev>`, which resolves a branch
to its commit), the recursive file listing (`/api/datasets/<repo>/tree/<commit>`, with each
file's git blob id and, for LFS files, sha256 and size), and the files themselves
(`HEAD`/`GET /datasets/<repo>/resolve/<rev>/<path>`, with `ETag`, `X-Repo-Commit` and, for LFS
files, `X-Linked-Etag`/`X-Linked-Size`). Errors carry the Hub's `X-Error-Code` header, which is
how the client tells an unknown revision from an unknown repo. Every request is counted, so a
test can tell that a run made none. `serve_bytes` lets a test make the server send other bytes
than it lists (a corrupted or truncated download).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

LFS_FROM = 1024
"""Files of this size and over are listed as LFS files (sha256), smaller ones as git blobs."""


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def listed_oid(data: bytes) -> str:
    """The git blob id the Hub lists: the file's own, or its LFS pointer's for LFS files."""
    if len(data) < LFS_FROM:
        return git_blob_id(data)
    pointer = (
        "version https://git-lfs.github.com/spec/v1\n"
        f"oid sha256:{hashlib.sha256(data).hexdigest()}\nsize {len(data)}\n"
    )
    return git_blob_id(pointer.encode())


@dataclass
class HubRepo:
    """One dataset repo: commits (sha -> {path: bytes}) and branches (name -> sha)."""

    repo_id: str
    commits: dict[str, dict[str, bytes]] = field(default_factory=dict)
    branches: dict[str, str] = field(default_factory=dict)
    serve_bytes: dict[str, bytes] = field(default_factory=dict)
    """path -> bytes sent instead of the listed content."""

    def add_commit(self, files: Mapping[str, bytes], branch: str = "main") -> str:
        listing = json.dumps({p: git_blob_id(d) for p, d in sorted(files.items())})
        sha = hashlib.sha1(listing.encode(), usedforsecurity=False).hexdigest()
        self.commits[sha] = dict(files)
        self.branches[branch] = sha
        return sha

    def resolve(self, revision: str) -> str | None:
        return self.branches.get(revision) or (revision if revision in self.commits else None)


class HubServer:
    def __init__(self, repos: list[HubRepo]) -> None:
        self.repos = {r.repo_id: r for r in repos}
        self.requests: list[str] = []
        handler = type("Handler", (_Handler,), {"hub": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> HubServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


class _Handler(BaseHTTPRequestHandler):
    hub: HubServer

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base's name
        return

    def do_HEAD(self) -> None:  # noqa: N802 - http.server's naming
        self._answer(body=False)

    def do_GET(self) -> None:  # noqa: N802
        self._answer(body=True)

    def _answer(self, *, body: bool) -> None:
        path = unquote(urlsplit(self.path).path)
        self.hub.requests.append(f"{self.command} {path}")
        parts = path.strip("/").split("/")
        if parts[:2] == ["api", "datasets"] and len(parts) >= 6:
            repo_id, kind, revision = "/".join(parts[2:4]), parts[4], parts[5]
            self._api(repo_id, kind, revision)
        elif parts[:1] == ["datasets"] and len(parts) >= 6 and parts[3] == "resolve":
            self._file(f"{parts[1]}/{parts[2]}", parts[4], "/".join(parts[5:]), body=body)
        else:
            self._error(404, "RepoNotFound")

    def _repo_commit(self, repo_id: str, revision: str) -> tuple[HubRepo, str] | None:
        repo = self.hub.repos.get(repo_id)
        if repo is None:
            self._error(404, "RepoNotFound")
            return None
        sha = repo.resolve(revision)
        if sha is None:
            self._error(404, "RevisionNotFound")
            return None
        return repo, sha

    def _api(self, repo_id: str, kind: str, revision: str) -> None:
        found = self._repo_commit(repo_id, revision)
        if found is None:
            return
        repo, sha = found
        files = repo.commits[sha]
        if kind == "revision":
            document: object = {
                "id": repo_id,
                "sha": sha,
                "private": False,
                "siblings": [{"rfilename": p} for p in sorted(files)],
            }
        elif kind == "tree":
            document = _tree(files)
        else:
            self._error(404, "EntryNotFound")
            return
        data = json.dumps(document).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _file(self, repo_id: str, revision: str, path: str, *, body: bool) -> None:
        found = self._repo_commit(repo_id, revision)
        if found is None:
            return
        repo, sha = found
        if path not in repo.commits[sha]:
            self._error(404, "EntryNotFound")
            return
        data = repo.commits[sha][path]
        sent = repo.serve_bytes.get(path, data)
        self.send_response(200)
        self.send_header("X-Repo-Commit", sha)
        if len(data) >= LFS_FROM:
            digest = hashlib.sha256(data).hexdigest()
            self.send_header("ETag", f'"{listed_oid(data)}"')
            self.send_header("X-Linked-Etag", f'"{digest}"')
            self.send_header("X-Linked-Size", str(len(data)))
        else:
            self.send_header("ETag", f'"{git_blob_id(data)}"')
        self.send_header("Content-Length", str(len(sent)))
        self.end_headers()
        if body:
            self.wfile.write(sent)

    def _error(self, status: int, code: str) -> None:
        self.send_response(status)
        self.send_header("X-Error-Code", code)
        self.send_header("Content-Length", "0")
        self.end_headers()


def _tree(files: Mapping[str, bytes]) -> list[dict[str, object]]:
    folders = sorted(
        {"/".join(p.split("/")[:i]) for p in files for i in range(1, p.count("/") + 1)}
    )
    entries: list[dict[str, object]] = [
        {"type": "directory", "oid": git_blob_id(f.encode()), "size": 0, "path": f} for f in folders
    ]
    for path, data in sorted(files.items()):
        entry: dict[str, object] = {
            "type": "file",
            "oid": listed_oid(data),
            "size": len(data),
            "path": path,
        }
        if len(data) >= LFS_FROM:
            entry["lfs"] = {
                "oid": hashlib.sha256(data).hexdigest(),
                "size": len(data),
                "pointerSize": 134,
            }
        entries.append(entry)
    return entries
