"""What a track needs from the system beyond Python packages, checked before a run starts.

A missing system dependency does not crash a metric: it makes it score 0 (or err) on every query
that needs it, hours into a run. So each track lists what it needs (`Track.dependencies`), the
runner checks the list before any model is loaded and stops with the install command, and a
run told to go on anyway (`allow_missing_dependencies: true`, `--allow-missing-dependencies`)
states in every summary what was missing and which scores it affects.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from vlmscope.input_errors import InputError


@dataclass(frozen=True)
class Dependency:
    name: str
    missing: str | None
    """None when present; else what was looked for and not found."""
    install: str
    """The command (or setting) that provides it."""
    affects: str
    """Which scores are wrong without it."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class MissingDependency(RuntimeError, InputError):
    """A track's system dependency is missing and the run was not told to go on without it."""


def missing_message(track: str, missing: list[Dependency]) -> str:
    lines = [f"track {track!r} needs what this machine lacks:"]
    for dep in missing:
        lines.append(f"  - {dep.name}: {dep.missing}; without it {dep.affects}")
        lines.append(f"    fix: {dep.install}")
    lines.append(
        "  (to run anyway, with those scores wrong and the summary saying so: "
        "--allow-missing-dependencies or `allow_missing_dependencies: true`)"
    )
    return "\n".join(lines)
