"""A curated bench written as a vision-arena-bench-v0.1 folder, with how it was made beside it.

    OUT/data/train-00000-of-00001.parquet   the bench: question_id, turns, images, category,
                                            cluster (the upstream columns, plus the cluster id)
    OUT/README.md                           the card: `configs:` and features (so
                                            `load_dataset(OUT)` opens it), the source, its
                                            date range, the counts and every parameter
    OUT/curation/settings.json              every parameter and library version
    OUT/curation/clusters.jsonl             the cluster table (size, share, keywords, examples,
                                            prompts sampled)
    OUT/curation/decisions.jsonl            one line per conversation read: what became of it

`VisionArenaBench(data_dir=OUT)` and the bench track (`data_dir: OUT`) read it unchanged: the
rows are the bench reader's (`category` is empty, so the bench is one board; a row's topic is
its `cluster`). `question_id` is the source conversation's id. Nothing in the folder depends
on the time or the machine it was written on: the same curation writes the same bytes.
The folder is written beside OUT and renamed into place, so a reader never sees half of it.
"""

from __future__ import annotations

import io
import json
import os
import shutil
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
from datasets.info import DatasetInfosDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard, DatasetCardData
from PIL import Image

from vlmscope.datasets.visionarena import BENCH_FEATURES
from vlmscope.tracks.visionarena.bench_candidates import Candidate, date_range
from vlmscope.tracks.visionarena.bench_curation import Curated
from vlmscope.tracks.visionarena.row_files import SPLIT

FEATURES = datasets.Features({**BENCH_FEATURES, "cluster": datasets.Value("int64")})
SHARD = f"data/{SPLIT}-00000-of-00001.parquet"


def bench_records(prompts: Sequence[Candidate], clusters: Sequence[int]) -> list[dict[str, Any]]:
    """The bench rows, in the upstream layout (one user turn, images as {bytes, path})."""
    return [
        {
            "question_id": p.conversation_id,
            "turns": [[{"role": "user", "content": p.question}]],
            "images": [
                {"bytes": data, "path": f"{p.conversation_id}-{k}.{_extension(data)}"}
                for k, data in enumerate(p.images)
            ],
            "category": "",
            "cluster": int(c),
        }
        for p, c in zip(prompts, clusters, strict=True)
    ]


def _extension(data: bytes) -> str:
    with Image.open(io.BytesIO(data)) as image:
        return (image.format or "png").lower().replace("jpeg", "jpg")


def write_bench(out: str | Path, curated: Curated, *, source: str, overwrite: bool = False) -> Path:
    """Write the curated bench to `out` (see the module doc); refuses a non-empty `out`
    unless `overwrite`."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())) and not overwrite:
        raise FileExistsError(f"{out} exists and is not empty (--overwrite replaces it)")
    staging = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        _write_into(staging, curated, source)
        if out.exists():
            shutil.rmtree(out) if out.is_dir() else out.unlink()
        staging.rename(out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out


def _write_into(folder: Path, curated: Curated, source: str) -> None:
    labels = [int(curated.clustering.labels[k]) for k in curated.sampled]
    records = bench_records(curated.bench, labels)
    schema = FEATURES.arrow_schema
    (folder / "data").mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(records, schema=schema), folder / SHARD)
    curation = folder / "curation"
    curation.mkdir()
    facts = card_facts(curated, source)
    _json_file(curation / "settings.json", {**facts, **curated.settings})
    _json_lines(curation / "clusters.jsonl", [row.to_json() for row in curated.table])
    _json_lines(
        curation / "decisions.jsonl",
        [
            {
                "conversation_id": d.screened.conversation_id,
                "decision": d.decision,
                "duplicate_of": d.duplicate_of,
                "cluster": d.cluster,
                "sampled": d.sampled,
                "language": d.screened.language,
                "language_detected": d.screened.language_detected,
                "num_turns": d.screened.num_turns,
                "tstamp": d.screened.tstamp,
            }
            for d in curated.decisions
        ],
    )
    _card(folder, curated, facts)


def card_facts(curated: Curated, source: str) -> dict[str, Any]:
    """Source, date ranges (UTC) and counts: what the card states above the parameters."""
    return {
        "source": source,
        "source_dates": _dates(date_range([d.screened.tstamp for d in curated.decisions])),
        "bench_dates": _dates(date_range([p.tstamp for p in curated.bench])),
        "conversations_read": len(curated.decisions),
        "prompts_clustered": len(curated.prompts),
        "clusters": sum(row.cluster >= 0 for row in curated.table),
        "bench_prompts": len(curated.sampled),
        "decisions": curated.counts(),
    }


def _dates(span: tuple[float, float] | None) -> dict[str, str] | None:
    if span is None:
        return None
    first, last = (datetime.fromtimestamp(t, tz=timezone.utc).isoformat() for t in span)
    return {"from": first, "to": last}


def _card(folder: Path, curated: Curated, facts: dict[str, Any]) -> None:
    card_data = DatasetCardData()
    MetadataConfigs(
        {"default": {"data_files": [{"split": SPLIT, "path": f"data/{SPLIT}-*.parquet"}]}}
    ).to_dataset_card_data(card_data)
    DatasetInfosDict(
        {"default": datasets.DatasetInfo(features=FEATURES, config_name="default")}
    ).to_dataset_card_data(card_data)
    dates = facts["source_dates"]
    span = f"{dates['from']} to {dates['to']}" if dates else "unknown (no timestamps)"
    top = [row for row in curated.table if row.cluster >= 0][:20]
    lines = [
        "# VisionArena-Bench curated from chat logs",
        "",
        f"{facts['bench_prompts']} prompts drawn uniformly across {facts['clusters']} topic "
        f"clusters of {facts['prompts_clustered']} prompts, from {facts['conversations_read']} "
        f"conversations of **{facts['source']}** dated {span} (UTC). Curated as the "
        "VisionArena paper (Sec. 6) curated VisionArena-Bench: single-turn, filtered by "
        "language, duplicates dropped, CLIP image and text embeddings averaged, UMAP, HDBSCAN, "
        "uniform sampling across clusters.",
        *_skipped(curated),
        "",
        "Rows: `question_id` (the source conversation), `turns`, `images`, `category` (empty), "
        "`cluster`. The cluster table is `curation/clusters.jsonl`, every conversation's "
        "decision `curation/decisions.jsonl`, every parameter `curation/settings.json` (also "
        "below).",
        "",
        "| cluster | size | sampled | keywords |",
        "| --- | --- | --- | --- |",
        *(f"| {r.cluster} | {r.size} | {r.sampled} | {', '.join(r.keywords[:6])} |" for r in top),
        "",
        "```json",
        json.dumps({**facts, **curated.settings}, indent=2, sort_keys=True, ensure_ascii=False),
        "```",
        "",
    ]
    DatasetCard(f"---\n{card_data.to_yaml()}\n---\n\n" + "\n".join(lines)).save(
        str(folder / "README.md")
    )


def _skipped(curated: Curated) -> list[str]:
    reason = curated.clustering.settings.get("skipped")
    return ["", f"**Not clustered**: {reason}."] if reason else []


def _json_file(path: Path, value: Any) -> None:
    text = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)
    path.write_text(text + "\n", encoding="utf-8")


def _json_lines(path: Path, values: Sequence[Any]) -> None:
    lines = [json.dumps(v, sort_keys=True, ensure_ascii=False) + "\n" for v in values]
    path.write_text("".join(lines), encoding="utf-8")
