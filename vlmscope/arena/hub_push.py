"""Pushing the votes to a Hub dataset repo in batches, without ever pushing one twice.

Votes go up in full batches of `push_every`, each a parquet shard named by the range of vote
sequence numbers it holds (`data/train-<first>-<last>.parquet`, the Battle dataset's columns,
images embedded). A batch is marked pushed only after its upload returned; an upload that
failed, or succeeded just before a crash, is repeated with the same name and the same rows,
so the Hub copy never holds a vote twice. A partial batch waits until it is full.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from vlmscope.arena.export import battle_table, write_table
from vlmscope.arena.vote_store import VoteStore

Upload = Callable[[Path, str], None]
"""upload(local_file, path_in_repo)."""


def hub_upload(repo_id: str) -> Upload:
    """An `Upload` into the dataset repo `repo_id` (token from the environment, as the Hub
    client reads it)."""
    from huggingface_hub import HfApi

    api = HfApi()

    def upload(local: Path, path_in_repo: str) -> None:
        api.upload_file(
            path_or_fileobj=str(local),
            path_in_repo=path_in_repo,
            repo_id=repo_id,
            repo_type="dataset",
            commit_message=f"arena votes {path_in_repo}",
        )

    return upload


def push_full_batches(store: VoteStore, batch: int, upload: Upload) -> list[str]:
    """Upload every full batch of unpushed votes; the shard names pushed, in order."""
    pushed: list[str] = []
    while True:
        votes = store.unpushed(batch)
        if len(votes) < batch:
            return pushed
        name = f"data/train-{votes[0].seq:09d}-{votes[-1].seq:09d}.parquet"
        with tempfile.TemporaryDirectory() as work:
            local = Path(work) / "shard.parquet"
            write_table(battle_table(store, votes), local)
            upload(local, name)
        store.mark_pushed(v.seq for v in votes)
        pushed.append(name)
