"""A MEGA-Bench query image as the builder stores it: the builder accepts what a run accepts.

A run decodes an image file through `vlmscope.tracks.megabench.media.decoded_image`, reading a
truncated file as far as it goes, as the official evaluator does (Pillow's truncated-file
setting), so the builder decodes each query image through that same function rather than a
check of its own: a folder that runs also builds, and a file no decode reads (not an image,
empty, cut inside its header) stops the build naming the row and the file, as it stops a run.

A whole file is stored as its own bytes. A truncated one is logged as a warning naming it, and
stored as the pixels decoded from it, losslessly (PNG, or TIFF for a mode PNG cannot hold):
its own bytes would not open in `datasets` (which decodes without the truncated setting), and
the decoded pixels are what a run sends on. It keeps its upstream name, from which the official
encoder takes the format it sends.
"""

from __future__ import annotations

import io
import logging
from pathlib import Path
from typing import Any

from PIL import Image

from vlmscope.tracks.megabench.media import decoded_image
from vlmscope.tracks.megabench.rows import RowError

log = logging.getLogger(__name__)

TRUNCATED = "truncated: read as far as it goes, as the official evaluator does"


def query_image(path: Path, rel: str, where: str) -> dict[str, Any]:
    """The `datasets.Image` value of the query image `rel` (at `path`) of the row `where`."""
    shown = f"{where}, file {rel}"
    try:
        with decoded_image(str(path)) as (image, truncated):
            if not truncated:
                return {"bytes": path.read_bytes(), "path": rel}
            log.warning("%s: %s", shown, TRUNCATED)
            return {"bytes": _lossless(image), "path": rel}
    except Exception as err:  # whatever stops the run's decode stops the build, named
        raise RowError(f"{shown}: field 'query_media' does not decode as an image: {err}") from err


def _lossless(image: Image.Image) -> bytes:
    """The decoded pixels as PNG, with the file's profile and EXIF; TIFF for a mode PNG does
    not hold (a CMYK JPEG)."""
    exif = image.info.get("exif", b"")
    buffer = io.BytesIO()
    try:
        image.save(buffer, format="PNG", exif=exif)
    except OSError:
        buffer = io.BytesIO()
        image.save(buffer, format="TIFF", exif=exif)
    return buffer.getvalue()
