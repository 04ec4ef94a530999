"""Media paths named by dataset rows, kept inside the data folder.

Rows name their media (MEGA-Bench's image lists and frame folders, SimpleVQA's image files) by
paths relative to the folder the data came in. Nothing is opened until `inside_data_dir` has
resolved the path, symlinks followed, and found it inside that folder: an absolute path, a `..`
that climbs out, or a link inside the folder that points elsewhere rejects the row, naming it and
the field. A data folder that is itself a link is fine (its target is the folder).
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath, PureWindowsPath


def inside_data_dir(
    data_dir: str | Path,
    relative: str,
    *,
    row: str,
    field: str,
    error: type[Exception] = ValueError,
) -> Path:
    """`data_dir / relative`, resolved, or `error` naming `row` (e.g. "task 'x', row 7") and
    `field` when `relative` is empty or absolute or resolves to the folder itself or outside it."""
    if not relative.strip():
        raise error(f"{row}: field {field!r} names an empty media path")
    if PurePosixPath(relative).is_absolute() or PureWindowsPath(relative).is_absolute():
        raise error(f"{row}: field {field!r} names an absolute path {relative!r}")
    root = Path(data_dir).resolve()
    try:
        resolved = (root / relative).resolve()
    except (OSError, RuntimeError) as err:  # a symlink loop
        raise error(f"{row}: field {field!r}: {relative!r} cannot be resolved ({err})") from err
    if root not in resolved.parents:
        raise error(
            f"{row}: field {field!r} names {relative!r}, which resolves to {resolved}, "
            f"outside the data folder {root}"
        )
    return resolved
