"""`vlmscope arena export|push`: the live arena's votes as a VisionArena-Battle folder, or pushed
to the Hub repo its config names, in full batches. The Space's Arena tab records the votes
(`leaderboard_space/README.md`); these commands only read its store."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from vlmscope.cli.failure import fail

DESCRIPTION = """\
The live arena's votes (the Space's Arena tab, enabled by VLMSCOPE_ARENA_CONFIG):

  export  write the votes as a VisionArena-Battle folder (JSON lines and an image folder, or the
          Hub parquet layout); `vlmscope visionarena leaderboard OUT` rates it. With
          --dataset chat: the conversations as a VisionArena-Chat folder (each vote two rows,
          one per side), which `vlmscope visionarena build-bench OUT` curates into a bench
  push    upload the full batches of votes not yet on the config's store.hub_repo, each once
"""


def add_subparser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "arena",
        help="the live arena's votes: export them, push them to the Hub",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="arena_command", required=True, metavar="COMMAND")
    export = commands.add_parser(
        "export",
        help="write the votes as a Battle folder",
        description="Write every vote of the arena's store as a VisionArena-Battle folder: "
        "battles.jsonl and an image folder, or the Hub parquet layout with the images inside. "
        "`vlmscope visionarena leaderboard OUT_DIR` rates it.",
    )
    export.add_argument("config", type=Path, metavar="CONFIG", help="the arena's YAML config")
    export.add_argument("out", type=Path, metavar="OUT_DIR", help="folder to write")
    export.add_argument(
        "--format",
        choices=("jsonl", "parquet"),
        default="jsonl",
        help="battles.jsonl + images/ (default), or the Hub parquet layout with images inside",
    )
    export.add_argument(
        "--dataset",
        choices=("battle", "chat"),
        default="battle",
        help="the votes as VisionArena-Battle rows (default), or the conversations as "
        "VisionArena-Chat rows, one per side",
    )
    export.set_defaults(func=handle_arena)
    push = commands.add_parser(
        "push",
        help="push full batches of votes to the Hub repo",
        description="Upload the full batches of votes (store.push_every each) not yet on the "
        "config's store.hub_repo, each batch once; a partial batch waits for more votes.",
    )
    push.add_argument("config", type=Path, metavar="CONFIG", help="the arena's YAML config")
    push.set_defaults(func=handle_arena)


def handle_arena(args: argparse.Namespace) -> int:
    from vlmscope.arena.chat_export import export_chat_jsonl, export_chat_parquet
    from vlmscope.arena.config import load_arena_config
    from vlmscope.arena.export import export_jsonl, export_parquet
    from vlmscope.arena.hub_push import hub_upload, push_full_batches
    from vlmscope.arena.vote_store import VoteStore
    from vlmscope.config import ConfigError

    command = f"vlmscope arena {args.arena_command}"
    try:
        config = load_arena_config(args.config)
    except (ConfigError, OSError) as error:
        return fail(command, error)
    if args.arena_command == "push" and config.store.hub_repo is None:
        return fail(command, ValueError(f"{args.config}: store.hub_repo: the config names none"))
    if not Path(config.store.path).exists():  # opening it would make an empty store here
        return fail(
            command,
            FileNotFoundError(
                f"{args.config}: store.path: no vote store at {config.store.path} (no vote cast "
                f"yet): vote in the Arena tab first (vlmscope space --arena {args.config})"
            ),
        )
    store = VoteStore(config.store.path)
    try:
        if args.arena_command == "export":
            writer = export_jsonl if args.format == "jsonl" else export_parquet
            if args.dataset == "chat":
                writer = export_chat_jsonl if args.format == "jsonl" else export_chat_parquet
            votes = f"{store.vote_count()} votes"
            what = f"the conversations of {votes}" if args.dataset == "chat" else votes
            print(f"wrote {what} to {writer(store, args.out)}")
            return 0
        assert config.store.hub_repo is not None
        pushed = push_full_batches(
            store, config.store.push_every, hub_upload(config.store.hub_repo)
        )
        print(f"pushed {len(pushed)} batch(es) to {config.store.hub_repo}")
        return 0
    finally:
        store.close()
