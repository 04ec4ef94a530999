"""MEGA-Bench metrics whose official versions call outside services, reduced to their offline parts.

- `nli_entailment`: QUIRK, the official test is inverted (`isinstance(target, str)` returns 0), so it
  is 0 for every string target; a non-string target would need the DeBERTa-MNLI model, which is not
  bundled: that raises and the field scores 0 with the error recorded.
- `geo_proximity_location_dict`: malformed locations score 0 without the network, as officially; a
  well-formed one needs Nominatim geocoding, which is not available offline (raises, scored 0).
- `ascii_art_gpt4o_judge`: a non-string or empty prediction scores 0 without a judge call; otherwise
  the verdict comes from a judge reply (`ascii_art_verdict`), supplied by the caller.
- `unsupported`: -1 (the field is then ignored by the aggregation).
"""

from __future__ import annotations

from typing import Any

LOCATION_KEYS = ("country", "province_or_state", "municipality")


class OfflineUnavailable(RuntimeError):
    """The official metric would call a model or web service here."""


def nli_entailment(response: Any, target: Any) -> int:
    if not isinstance(response, str) or isinstance(target, str):
        return 0
    raise OfflineUnavailable("nli_entailment needs the microsoft/deberta-large-mnli model")


def _location_is_complete(location: Any) -> bool:
    if not isinstance(location, dict) or set(location) != set(LOCATION_KEYS):
        return False
    return all(location[key] != "" for key in LOCATION_KEYS)


def geo_proximity_location_dict(response: Any, target: Any) -> float:
    if not _location_is_complete(response):
        return 0
    raise OfflineUnavailable("geo_proximity_location_dict needs Nominatim geocoding")


def ascii_art_needs_judge(response: Any, target: Any) -> bool:
    """Whether the official metric would call the judge for this pair."""
    return isinstance(response, str) and isinstance(target, str) and bool(response)


def ascii_art_verdict(judge_reply: str) -> int:
    """1 iff the judge's reply contains "yes" (case-insensitive), as officially."""
    return 1 if "yes" in judge_reply.lower() else 0


def ascii_art_gpt4o_judge(response: Any, target: Any) -> int:
    if not ascii_art_needs_judge(response, target):
        return 0
    raise OfflineUnavailable("ascii_art_gpt4o_judge needs a judge reply")


def unsupported(response: Any, target: Any) -> int:
    return -1
