"""Write N FastChat-shaped clean battles as JSON lines, streamed (no list of N records).

Models, outcomes and style counts come from ``vlmscope.ratings.synthetic_battles`` (seeded);
each line has the fields of a FastChat / VisionArena clean-battle record (``question_id``,
``model_a``, ``model_b``, ``winner``, ``judge``, ``turn``, ``anony``, ``language``, ``tstamp``,
``is_preset``, ``category_tag``, ``dedup_tag``, ``conv_metadata`` with the header / list / bold
counts as FastChat's sub-count objects). About 10 % of battles are not anonymous and
timestamps are slightly out of order, so the board's selection (tstamp sort, anonymous only)
has work to do. 3,000,000 lines are about 3 GB: write them outside the repository.

    python benchmarks/make_battles.py 3000000 /tmp/battles_3m.jsonl [--seed 2024] [--bad 0]
    python benchmarks/make_battles.py 3000000 /tmp/battles_3m.parquet   # the same, as Parquet
    python benchmarks/make_battles.py 30000 /tmp/battles_30k.json       # a JSON array (FastChat's)
    python benchmarks/make_battles.py 3000000 /tmp/arena_3m.jsonl --models 60 --arena-tags

``--models 60 --arena-tags`` is the shape of the real arena data: 60 models (uneven popularity,
so fewer identical rows merge than among 20) and every category flag of the VisionArena
leaderboard (seven, plus the refusal flag).

``--bad K`` corrupts K evenly spread rows (a bad winner, a null model, a string count, a
non-JSON line, a self battle, ...) for testing the readers' row checks.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vlmscope.ratings.inputs.filters import VISION_CATEGORIES  # noqa: E402
from vlmscope.ratings.inputs.synthetic import synthetic_battles  # noqa: E402

_CHUNK = 200_000
_TEMPLATE = (
    '{"question_id":"%016x","model_a":"%s","model_b":"%s","winner":"%s",'
    '"judge":"arena_user_%05d","turn":%d,"anony":%s,"language":"%s","tstamp":%.3f,'
    '"is_preset":%s,"category_tag":{%s},'
    '"dedup_tag":{"high_freq":false,"sampled":true},'
    '"conv_metadata":{"sum_user_tokens":%d,"sum_assistant_a_tokens":%d,'
    '"sum_assistant_b_tokens":%d,"context_a_tokens":%d,"context_b_tokens":%d,"turns":%d,'
    '"header_count_a":{"h1":%d,"h2":%d,"h3":%d,"h4":0,"h5":0,"h6":0},'
    '"list_count_a":{"ordered":%d,"unordered":%d},"bold_count_a":{"**":%d,"__":%d},'
    '"header_count_b":{"h1":%d,"h2":%d,"h3":%d,"h4":0,"h5":0,"h6":0},'
    '"list_count_b":{"ordered":%d,"unordered":%d},"bold_count_b":{"**":%d,"__":%d}}}'
)
_WINNERS = {1.0: "model_a", 0.0: "model_b", 0.5: "tie"}
_FEW_TAGS = (("captioning_v0.1", "captioning"), ("ocr_v0.1", "ocr"), ("diagram_v0.1", "diagram"))
_ARENA_TAGS = (*VISION_CATEGORIES.values(), ("refusal_v0.1", "refusal"))
"""The arena shape: every VisionArena category flag (seven) and the refusal flag."""


def _category_tag(tags: tuple[tuple[str, str], ...], flags: np.ndarray) -> str:
    return ",".join(
        f'"{tag}":{{"{flag}":{"true" if value else "false"}}}'
        for (tag, flag), value in zip(tags, flags, strict=True)
    )


_BAD = (
    ('"winner":"model_a"', '"winner":"model_c"'),
    ('"model_a":"', '"model_a":null,"x":"'),
    ('"bold_count_a":{"**":', '"bold_count_a":{"**":"many","x":'),
    ('"tstamp":', '"tstamp":NaN,"y":'),
    ('"anony"', '"anony'),
)


def battle_lines(
    n: int, seed: int = 2024, bad: int = 0, *, models: int = 20, arena_tags: bool = False
) -> Iterator[str]:
    """The lines (without newline), generated a chunk at a time, among ``models`` models.

    ``arena_tags``: every category flag of the arena (`_ARENA_TAGS`, each drawn at 20 % from a
    stream of its own) instead of three; the other fields are drawn as without it."""
    rng = np.random.default_rng(seed + 1)
    tag_rng = np.random.default_rng(seed + 2)
    bad_rows = set(np.linspace(0, n - 1, bad, dtype=np.int64).tolist()) if bad else set()
    for lo in range(0, n, _CHUNK):
        size = min(_CHUNK, n - lo)
        b = synthetic_battles(size, n_models=models, seed=seed + lo)
        assert b.style_a is not None and b.style_b is not None
        sa, sb = b.style_a.astype(np.int64), b.style_b.astype(np.int64)
        ties = rng.random(size) < 0.3
        outcome = np.where(ties & (b.outcome == 0.5), 0.25, b.outcome)  # some "tie (bothbad)"
        tstamp = 1.7e9 + (lo + np.arange(size)) * 0.5 + rng.normal(0, 2.0, size)
        anony = rng.random(size) > 0.1
        judge = rng.integers(0, 50_000, size)
        turn = rng.integers(1, 4, size)
        flags = rng.random((size, 5)) < 0.2
        user = rng.integers(1, 200, size)
        if arena_tags:
            tags = [_category_tag(_ARENA_TAGS, row) for row in tag_rng.random((size, 8)) < 0.2]
        else:
            few = np.column_stack([flags[:, 3:5], np.zeros(size, dtype=bool)])  # diagram: never
            tags = [_category_tag(_FEW_TAGS, row) for row in few]
        for i in range(size):
            a, s = sa[i], sb[i]
            ha, hb, la, lb, ba, bb = (
                int(a[1]),
                int(s[1]),
                int(a[2]),
                int(s[2]),
                int(a[3]),
                int(s[3]),
            )
            line = _TEMPLATE % (
                lo + i,
                b.models[b.model_a[i]],
                b.models[b.model_b[i]],
                "tie (bothbad)" if outcome[i] == 0.25 else _WINNERS[outcome[i]],
                judge[i],
                turn[i],
                "true" if anony[i] else "false",
                "English" if flags[i, 0] or flags[i, 1] else "Chinese",
                tstamp[i],
                "true" if flags[i, 2] else "false",
                tags[i],
                user[i],
                a[0],
                s[0],
                a[0] + user[i],
                s[0] + user[i],
                turn[i],
                ha // 3,
                ha // 3,
                ha - 2 * (ha // 3),
                la // 2,
                la - la // 2,
                ba - ba // 4,
                ba // 4,
                hb // 3,
                hb // 3,
                hb - 2 * (hb // 3),
                lb // 2,
                lb - lb // 2,
                bb - bb // 4,
                bb // 4,
            )
            if lo + i in bad_rows:
                if (lo + i) % 7 == 6:
                    line = line.replace(
                        f'"model_b":"{b.models[b.model_b[i]]}"',
                        f'"model_b":"{b.models[b.model_a[i]]}"',
                    )
                else:
                    old, new = _BAD[(lo + i) % len(_BAD)]
                    line = line.replace(old, new, 1)
            yield line


def write_battles(
    path: str | Path,
    n: int,
    seed: int = 2024,
    bad: int = 0,
    *,
    models: int = 20,
    arena_tags: bool = False,
) -> None:
    """JSON lines; Parquet when ``path`` ends in ``.parquet`` (the same records, nested fields
    as structs, written a chunk at a time); one JSON array when it ends in ``.json`` (FastChat's
    clean-battle file, which its ``elo_analysis.py`` reads with ``pandas.read_json``)."""
    lines = battle_lines(n, seed, bad, models=models, arena_tags=arena_tags)
    suffix = Path(path).suffix
    if suffix == ".parquet":
        if bad:
            raise ValueError("--bad: only for JSON lines (a corrupted line is not a record)")
        _write_parquet(Path(path), lines)
        return
    separator = ",\n" if suffix == ".json" else "\n"
    with open(path, "w", encoding="utf-8") as out:
        out.write("[\n" if suffix == ".json" else "")
        block: list[str] = []
        first = True
        for line in lines:
            block.append(line)
            if len(block) >= 10_000:
                out.write(("" if first else separator) + separator.join(block))
                block.clear()
                first = False
        if block:
            out.write(("" if first else separator) + separator.join(block))
        out.write("\n]\n" if suffix == ".json" else "\n")


def _write_parquet(path: Path, lines: Iterator[str]) -> None:
    import pyarrow as pa
    import pyarrow.json as pj
    import pyarrow.parquet as pq

    writer = None
    try:
        block: list[str] = []
        while True:
            block = [line for _, line in zip(range(_CHUNK), lines, strict=False)]
            if not block:
                break
            data = ("\n".join(block) + "\n").encode("utf-8")
            table = pj.read_json(pa.BufferReader(data))
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema)
            writer.write_table(table.cast(writer.schema))
    finally:
        if writer is not None:
            writer.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int)
    parser.add_argument("path", type=Path)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--bad", type=int, default=0)
    parser.add_argument("--models", type=int, default=20, help="how many models (default 20)")
    parser.add_argument(
        "--arena-tags",
        action="store_true",
        help="every VisionArena category flag (seven) and the refusal flag, as the arena's data",
    )
    from help_defaults import show_defaults  # beside this script

    args = show_defaults(parser).parse_args()
    write_battles(
        args.path, args.n, args.seed, args.bad, models=args.models, arena_tags=args.arena_tags
    )


if __name__ == "__main__":
    main()
