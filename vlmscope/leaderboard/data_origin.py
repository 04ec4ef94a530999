"""What data each result stands on, as the Space shows it under each track's page.

A summary's `data` (written by the runner, `vlmscope.runner.run_facts.data_facts`) names the
source: a Hub repo with the commit its revision resolved to, a local folder, or the shipped
sample, with a fingerprint of the files read. Two runs that agree on repo, commit and
fingerprint read the same bytes; a score from the sample is marked as such.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vlmscope.leaderboard.records import SummaryRecord
from vlmscope.leaderboard.safe_html import markdown_literal


def origin_text(data: Any) -> str:
    """`TIGER-Lab/MEGA-Bench@1a2b3c4d5e6f (files 1a2b3c4d)`, `local DIR (files ...)`,
    `sample`; empty for a summary written before data was recorded."""
    if not isinstance(data, Mapping):
        return ""
    source = data.get("source")
    files = str(data.get("fingerprint") or "")[:8]
    stamp = f" (files {files})" if files else ""
    if source == "hub":
        return f"{data.get('repo')}@{str(data.get('commit') or '')[:12]}{stamp}"
    if source == "local":
        folder = str(data.get("data_dir") or "").rstrip("/").rsplit("/", 1)[-1]
        return f"local {folder}{stamp}"
    return "sample" if source == "sample" else ""


def data_note(summaries: Sequence[SummaryRecord], track: str) -> str:
    """The Markdown line under a track's page: `Data: <origin>` when every model's result on
    the track read the same data, else one origin per model; empty when no summary says."""
    by_model = {r.model: origin_text(r.scores.get("data")) for r in summaries if r.track == track}
    shown = {model: text for model, text in sorted(by_model.items()) if text}
    if not shown:
        return ""
    if len(set(shown.values())) == 1:
        return f"Data: {markdown_literal(next(iter(shown.values())))}"
    each = "; ".join(f"{markdown_literal(m)}: {markdown_literal(t)}" for m, t in shown.items())
    return f"Data: {each}"
