"""Publish a results folder to a Hub dataset repo, exactly as it is on disk."""

from __future__ import annotations

from pathlib import Path


def push_to_hub(folder: str | Path, repo_id: str, *, private: bool = False) -> None:
    from huggingface_hub import HfApi

    api = HfApi()
    api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    api.upload_folder(
        repo_id=repo_id,
        repo_type="dataset",
        folder_path=str(folder),
        # the cache, the run's own report, and any half-swapped folder of an interrupted write
        ignore_patterns=[
            "cache.sqlite*",
            "run_report.json",
            ".vlmscope.lock",
            "**/.*.tmp-*/**",
            "**/.*.old-*/**",
            "**/.*.partial-*",
        ],
        commit_message="vlmscope results",
    )
