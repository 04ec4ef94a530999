"""An `Arena` from its config: the store opened, each contestant's client built, the hook
loaded; and, when the config names a Hub repo, the batch push after each vote."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from vlmscope.arena.config import ArenaConfig
from vlmscope.arena.contestants import build_contestant, warm_up
from vlmscope.arena.hub_push import hub_upload, push_full_batches
from vlmscope.arena.moderation import load_hook
from vlmscope.arena.service import Arena
from vlmscope.arena.vote_store import VoteStore

log = logging.getLogger(__name__)


def build_arena(config: ArenaConfig) -> Arena:
    store = VoteStore(config.store.path)
    contestants = {m.name: build_contestant(m, config.sampling) for m in config.contestants}  # type: ignore[arg-type]
    warm_up(contestants)  # before the first battle is offered, one model at a time
    return Arena(
        config,
        store,
        contestants,
        moderation=load_hook(config.moderation),
        secret=store.secret(),
    )


def hub_pusher(arena: Arena) -> Callable[[], None] | None:
    """A call that pushes full batches in the background (one push at a time), or None when
    the config names no Hub repo. A failed push is logged and retried after the next vote."""
    repo = arena.config.store.hub_repo
    if repo is None:
        return None
    upload = hub_upload(repo)
    busy = threading.Lock()

    def push() -> None:
        if not busy.acquire(blocking=False):
            return

        def run() -> None:
            try:
                push_full_batches(arena.store, arena.config.store.push_every, upload)
            except Exception:
                log.exception("pushing votes to %s failed; retried after the next vote", repo)
            finally:
                busy.release()

        threading.Thread(target=run, daemon=True).start()

    return push
