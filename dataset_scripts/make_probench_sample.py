"""Write the shipped ProBench sample: 12 rows in the Hub's `data/train-*.parquet` layout.

The images are drawn here (a dashboard, a chart, a receipt, a maze, ...) so every question is
answerable and nothing is copied from the real benchmark. The rows cover what the track's code
paths need:
- singleround (5): five task fields and five image categories (the official names), EASY and
  HARD on each challenge axis;
- multi-round (4): 2, 3, 4 and 7 human turns (rounds 2, 3, 4 and 6+), `challenge` null;
- multi-linguistic (3): `pt`, `fr` and `ja` (the official filter's `other`), asked and answered
  in that language, `challenge` labels empty;
- reference answers of very different lengths and markdown (headers, ordered and unordered
  lists, bold, code, plain text), so the style features that style control z-scores vary;
- PNG and JPEG images of different sizes, one wider than 1024 px (1400x600), so the judge-side
  resize runs; `<|img|>` opens each first human turn, as upstream.

Deterministic: the same Pillow and pyarrow versions write the same bytes.
Usage: python -m dataset_scripts.make_probench_sample [OUT_DIR]
"""

from __future__ import annotations

import io
import sys
import uuid
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image, ImageDraw, ImageFont

from dataset_scripts.probench_sample_text import ANSWERS, QUESTIONS
from vlmscope.datasets.probench import FEATURES
from vlmscope.tracks.probench.rows import CHALLENGE_AXES

OUT_DIR = Path(__file__).resolve().parents[1] / "vlmscope" / "samples" / "probench"  # package data
FILE_NAME = "data/train-00000-of-00001.parquet"
FONT = ImageFont.load_default_imagefont()  # bitmap font: identical pixels everywhere
Colour = tuple[int, int, int]
Draw = ImageDraw.ImageDraw


def canvas(width: int, height: int, colour: Colour = (255, 255, 255)) -> tuple[Image.Image, Draw]:
    image = Image.new("RGB", (width, height), colour)
    return image, ImageDraw.Draw(image)


def text(draw: Draw, xy: tuple[int, int], words: str, fill: Colour = (0, 0, 0)) -> None:
    draw.text(xy, words, font=FONT, fill=fill)


def dashboard() -> Image.Image:
    """A sales dashboard: title bar, sidebar menu, region dropdown, quarterly bars (x4: 1400x600)."""
    image, draw = canvas(350, 150, (245, 245, 245))
    draw.rectangle((0, 0, 349, 15), fill=(40, 70, 140))
    text(draw, (4, 2), "Sales dashboard", (255, 255, 255))
    draw.rectangle((0, 16, 70, 149), fill=(225, 230, 240))
    draw.rectangle((2, 21, 68, 33), fill=(190, 205, 235))
    for k, item in enumerate(("Overview", "Regions", "Reports")):
        text(draw, (6, 22 + 14 * k), item)
    draw.rectangle((80, 21, 180, 35), fill=(255, 255, 255), outline=(120, 120, 120))
    text(draw, (84, 23), "Region: North  v")
    draw.line((95, 132, 340, 132), fill=(0, 0, 0))
    draw.line((95, 45, 95, 132), fill=(0, 0, 0))
    for k, value in enumerate((40, 65, 55, 80)):
        x = 115 + 55 * k
        draw.rectangle((x, 132 - value, x + 30, 131), fill=(70, 130, 180))
        text(draw, (x + 9, 120 - value), str(value))
        text(draw, (x + 9, 136), f"Q{k + 1}")
    return image.resize((1400, 600), Image.Resampling.NEAREST)


def line_points() -> Image.Image:
    """Four labelled points on y = 2x + 1 with axes and a grid (x4: 640x480)."""
    image, draw = canvas(160, 120)
    ox, oy, sx, sy = 24, 104, 25, 8
    for y in range(0, 11, 2):
        draw.line((ox, oy - sy * y, 150, oy - sy * y), fill=(225, 225, 225))
        text(draw, (ox - 14, oy - sy * y - 5), str(y))
    for x in range(0, 6):
        text(draw, (ox + sx * x - 2, oy + 3), str(x))
    draw.line((ox, oy, 150, oy), fill=(0, 0, 0))
    draw.line((ox, 12, ox, oy), fill=(0, 0, 0))
    for x in range(1, 5):
        px, py = ox + sx * x, oy - sy * (2 * x + 1)
        draw.ellipse((px - 2, py - 2, px + 2, py + 2), fill=(200, 30, 30))
        text(draw, (px + 3, py - 12), f"({x},{2 * x + 1})", (200, 30, 30))
    return _scaled(image, 4)


def house() -> Image.Image:
    """A "photograph": a house with two windows, the sun upper left, a tree on the right."""
    image, draw = canvas(120, 90, (135, 200, 250))
    draw.rectangle((0, 60, 119, 89), fill=(90, 170, 80))
    draw.ellipse((8, 6, 24, 22), fill=(250, 210, 40))
    draw.rectangle((45, 35, 85, 70), fill=(200, 120, 80))
    draw.polygon([(40, 35), (90, 35), (65, 18)], fill=(150, 40, 40))
    draw.rectangle((60, 52, 70, 70), fill=(90, 50, 30))
    for x in (49, 73):
        draw.rectangle((x, 42, x + 8, 50), fill=(60, 110, 200))
    draw.rectangle((100, 45, 104, 70), fill=(110, 70, 40))
    draw.ellipse((92, 26, 112, 50), fill=(40, 120, 50))
    return _scaled(image, 4)


def receipt() -> Image.Image:
    """A café receipt whose subtotal, tax and total are consistent (x2: 240x360)."""
    lines = ("CAFE LUMEN", "12 Rue Vert", "-" * 18, "2x Espresso   5.00", "1x Croissant  3.20",
             "1x Orange jc  4.50", "-" * 18, "Subtotal     12.70", "Tax 8%        1.02",
             "TOTAL        13.72", "Thank you!")  # fmt: skip
    image, draw = canvas(120, 180, (252, 250, 240))
    for k, line in enumerate(lines):
        text(draw, (6, 8 + 15 * k), line)
    return _scaled(image, 2)


def artwork() -> Image.Image:
    """Abstract art: amber and yellow rings on midnight blue, two magenta and one teal triangle."""
    image, draw = canvas(100, 100, (20, 30, 80))
    for radius, colour in ((30, (240, 150, 40)), (22, (250, 210, 60)), (14, (240, 150, 40))):
        draw.ellipse((50 - radius, 50 - radius, 50 + radius, 50 + radius), fill=colour)
    draw.polygon([(5, 95), (25, 60), (40, 95)], fill=(200, 40, 160))
    draw.polygon([(60, 95), (78, 62), (95, 95)], fill=(200, 40, 160))
    draw.polygon([(70, 5), (95, 5), (82, 30)], fill=(30, 170, 160))
    return _scaled(image, 4)


def flowchart() -> Image.Image:
    """Start -> read sensor -> T > 30? -> fan on / fan off -> end (x3: 600x390)."""
    image, draw = canvas(200, 130)
    black = (0, 0, 0)
    boxes = {"Start": (70, 4, 130, 20), "Read sensor": (62, 30, 138, 46),
             "Fan on": (10, 86, 70, 102), "Fan off": (130, 86, 190, 102), "End": (70, 112, 130, 127)}  # fmt: skip
    for label, box in boxes.items():
        shape = draw.ellipse if label in ("Start", "End") else draw.rectangle
        shape(box, outline=black, fill=(235, 240, 250))
        width = FONT.getbbox(label)[2]
        text(draw, ((box[0] + box[2] - width) // 2, box[1] + 3), label)
    draw.polygon([(100, 52), (135, 66), (100, 80), (65, 66)], outline=black, fill=(250, 240, 220))
    text(draw, (79, 61), "T > 30?")
    for line in ((100, 20, 100, 30), (100, 46, 100, 52), (65, 66, 40, 66), (40, 66, 40, 86),
                 (135, 66, 160, 66), (160, 66, 160, 86), (40, 102, 40, 119), (40, 119, 70, 119),
                 (160, 102, 160, 119), (160, 119, 130, 119)):  # fmt: skip
        draw.line(line, fill=black)
    text(draw, (44, 56), "yes")
    text(draw, (140, 56), "no")
    return _scaled(image, 3)


def aerial() -> Image.Image:
    """Fields, a river from top left to a bend at bottom right, a town on the north bank."""
    image, draw = canvas(128, 128, (110, 160, 80))
    fields = [(0, 0, 40, 30, (150, 190, 90)), (60, 0, 128, 25, (200, 190, 100)),
              (0, 70, 50, 128, (200, 190, 100)), (70, 90, 128, 128, (130, 180, 90)),
              (45, 40, 90, 70, (170, 200, 110))]  # fmt: skip
    for *box, colour in fields:
        draw.rectangle(tuple(box), fill=colour)
    river = [(0, 20), (30, 35), (60, 55), (90, 70), (110, 90), (100, 112), (80, 118), (70, 128)]
    draw.line(river, fill=(50, 100, 200), width=6)
    for x, y in ((38, 20), (46, 24), (42, 14), (52, 30), (34, 8)):
        draw.rectangle((x, y, x + 5, y + 5), fill=(190, 50, 40))
    draw.line((64, 0, 64, 50), fill=(140, 140, 140), width=3)
    draw.line((0, 60, 80, 105), fill=(140, 140, 140), width=3)
    return _scaled(image, 4)


def rainfall() -> Image.Image:
    """Monthly rainfall January to June, falling from 80 mm to 20 mm (x4: 700x420)."""
    image, draw = canvas(175, 105)
    text(draw, (40, 2), "Rainfall (mm)")
    draw.line((10, 92, 170, 92), fill=(0, 0, 0))
    months = ("Jan", "Feb", "Mar", "Apr", "May", "Jun")
    for k, (month, value) in enumerate(zip(months, (80, 65, 50, 40, 30, 20), strict=True)):
        x = 16 + 26 * k
        draw.rectangle((x, 92 - int(value * 0.8), x + 18, 91), fill=(60, 120, 200))
        text(draw, (x + 2, 80 - int(value * 0.8)), str(value))
        text(draw, (x, 94), month)
    return _scaled(image, 4)


def maze() -> Image.Image:
    """A 4 x 4 maze, S top left, G bottom right; walls: column 1|2 in rows 0-2, row 2/3 in
    columns 2-3, so the shortest path runs along the bottom row (x4: 320x320)."""
    image, draw = canvas(80, 80)
    cell, left = 18, 4
    black = (0, 0, 0)
    for k in range(1, 4):  # the cells, faintly
        at = left + k * cell
        draw.line((at, left, at, left + 4 * cell), fill=(215, 215, 215))
        draw.line((left, at, left + 4 * cell, at), fill=(215, 215, 215))
    draw.rectangle((left, left, left + 4 * cell, left + 4 * cell), outline=black, width=2)
    for r in range(3):  # vertical wall between columns 1 and 2
        x = left + 2 * cell
        draw.line((x, left + r * cell, x, left + (r + 1) * cell), fill=black, width=2)
    for c in (2, 3):  # horizontal wall between rows 2 and 3
        y = left + 3 * cell
        draw.line((left + c * cell, y, left + (c + 1) * cell, y), fill=black, width=2)
    text(draw, (left + 6, left + 4), "S", (30, 140, 30))
    text(draw, (left + 3 * cell + 6, left + 3 * cell + 4), "G", (200, 30, 30))
    return _scaled(image, 4)


def fruit() -> Image.Image:
    """A bowl with three red apples and two bananas on a wooden table."""
    image, draw = canvas(100, 75, (235, 225, 210))
    draw.rectangle((0, 50, 99, 74), fill=(150, 100, 60))
    draw.ellipse((15, 35, 85, 65), fill=(180, 180, 190))
    for x in (25, 42, 59):
        draw.ellipse((x, 26, x + 16, 42), fill=(200, 30, 40))
    draw.chord((20, 20, 60, 44), 200, 340, fill=(240, 210, 50))
    draw.chord((40, 16, 80, 40), 200, 340, fill=(240, 210, 50))
    return _scaled(image, 4)


def floor_plan() -> Image.Image:
    """Four rooms: Cuisine, Salon, Chambre, SdB (x4: 500x352)."""
    image, draw = canvas(125, 88)
    rooms = {"Cuisine": (4, 4, 54, 44), "Salon": (54, 4, 121, 44), "Chambre": (4, 44, 74, 84),
             "SdB": (74, 44, 121, 84)}  # fmt: skip
    for label, box in rooms.items():
        draw.rectangle(box, outline=(0, 0, 0), width=2, fill=(245, 240, 225))
        text(draw, (box[0] + 5, box[1] + 5), label)
    return _scaled(image, 4)


def clock() -> Image.Image:
    """An analogue clock at 10:10 (x4: 300x300)."""
    image, draw = canvas(75, 75)
    draw.ellipse((3, 3, 72, 72), outline=(0, 0, 0), width=2)
    for label, (x, y) in {"12": (32, 6), "3": (63, 32), "6": (35, 60), "9": (7, 32)}.items():
        text(draw, (x, y), label)
    draw.line((37, 37, 22, 28), fill=(0, 0, 0), width=3)  # hour hand, between 10 and 11
    draw.line((37, 37, 60, 24), fill=(0, 0, 0), width=2)  # minute hand, at 2
    return _scaled(image, 4)


def _scaled(image: Image.Image, factor: int) -> Image.Image:
    """Nearest-neighbour upscaling keeps the drawn edges and bitmap letters crisp."""
    size = (image.width * factor, image.height * factor)
    return image.resize(size, Image.Resampling.NEAREST)


def encoded(image: Image.Image, image_format: str, name: str) -> dict[str, Any]:
    """The `Image` feature's struct: encoded bytes and a file name."""
    buffer = io.BytesIO()
    image.save(buffer, format=image_format, **({"quality": 85} if image_format == "JPEG" else {}))
    return {"bytes": buffer.getvalue(), "path": f"{name}.{image_format.lower()}"}


#: name -> (chat type, drawing, format, question category, image category, challenge, language)
ROWS: dict[str, tuple[Any, ...]] = {
    "sr-dashboard": ("singleround", dashboard, "PNG", "Coding", "Screenshots and UI Elements", "HEE", "en"),
    "sr-line": ("singleround", line_points, "JPEG", "Mathematics", "Scientific and Analytical Images", "EHE", "en"),
    "sr-house": ("singleround", house, "JPEG", "Perception", "Photographs", "EEE", "en"),
    "sr-receipt": ("singleround", receipt, "PNG", "Information Extraction", "Document and Text-based Images", "HHH", "en"),
    "sr-artwork": ("singleround", artwork, "PNG", "Creative Writing", "Graphics and Artistic Images", "EEH", "en"),
    "mr-flowchart": ("multi-round", flowchart, "PNG", "Coding", "Engineering and Technical Drawings", None, "en"),
    "mr-aerial": ("multi-round", aerial, "JPEG", "Planning", "Remote Sensing and Satellite Images", None, "en"),
    "mr-rainfall": ("multi-round", rainfall, "PNG", "Science", "Scientific and Analytical Images", None, "en"),
    "mr-maze": ("multi-round", maze, "PNG", "Planning", "Specialized Formats", None, "en"),
    "ml-fruit": ("multi-linguistic", fruit, "JPEG", "Knowledge", "Photographs", "", "pt"),
    "ml-plan": ("multi-linguistic", floor_plan, "PNG", "Planning", "Engineering and Technical Drawings", "", "fr"),
    "ml-clock": ("multi-linguistic", clock, "PNG", "Perception", "Graphics and Artistic Images", "", "ja"),
}  # fmt: skip


def challenge(code: str | None) -> dict[str, str] | None:
    """The `challenge` struct from a code: "HEE" is image HARD, reasoning EASY, textual EASY;
    "" gives empty labels, None a null struct."""
    if code is None:
        return None
    labels = [{"E": "EASY", "H": "HARD"}[c] for c in code] or ["", "", ""]
    return dict(zip(CHALLENGE_AXES, labels, strict=True))


def sample_rows() -> list[dict[str, Any]]:
    rows = []
    for name, (chat_type, drawing, image_format, task, field, code, language) in ROWS.items():
        questions, answers = QUESTIONS[name], ANSWERS[name]
        turns = [
            {"from": who, "value": value}
            for question, answer in zip(questions, answers, strict=True)
            for who, value in (("human", question), ("gpt", answer))
        ]
        rows.append(
            {
                "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"vlmscope/probench-sample/{name}")),
                "chat_type": chat_type,
                "conversations": turns,
                "image": encoded(drawing(), image_format, name),
                "challenge": challenge(code),
                "category": {"image_category": field, "question_category": task},
                "language": language,
            }
        )
    return rows


def write_sample(out_dir: Path = OUT_DIR) -> Path:
    path = out_dir / FILE_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(sample_rows(), schema=FEATURES.arrow_schema), path)
    return path


if __name__ == "__main__":
    print(write_sample(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT_DIR))
