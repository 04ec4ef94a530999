"""Model output and names from result data are shown as text, never as markup.

Responses, references and judge replies go into text components (`gr.Textbox`), which set a
field's value rather than parse HTML, after `as_text` makes control characters visible. Plotly
reads a small HTML subset in labels (`<b>`, `<a href>`, `<br>`), so names that reach a chart go
through `plain_label`, which escapes them: Plotly turns the entities back into literal characters
in SVG text nodes. Data quoted in a Markdown note goes through `markdown_literal`.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def as_text(value: Any) -> str:
    """Any value as display text: strings as they are, other values as indented JSON; C0 control
    characters (other than tab and newlines) shown as their Unicode control pictures."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
    return _CONTROL.sub(lambda m: _picture(m.group()), text)


def plain_label(value: Any) -> str:
    """A chart label that Plotly shows literally (no tags, no links)."""
    return html.escape(str(value), quote=False)


def _picture(char: str) -> str:
    code = ord(char)
    return "\u2421" if code == 0x7F else chr(0x2400 + code)


_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|~])")


def markdown_literal(value: Any) -> str:
    """Text from the data (a file name, a model name) for a `gr.Markdown` note: HTML escaped and
    Markdown punctuation backslashed, so it shows as the characters it is."""
    return _MARKDOWN.sub(r"\\\1", html.escape(str(value), quote=False))
