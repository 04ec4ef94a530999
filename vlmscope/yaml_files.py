"""Reading a YAML config file the one way: named when it does not read, no key given twice.

PyYAML keeps the last of two equal keys in a mapping and drops the first without a word, so a
config that sets `limit:` twice runs with whichever came last. Every config reader (run
configs, the arena's, a classifier's judge) reads through `load_yaml`, which refuses a
repeated key naming it and both lines, and names the file when it is not UTF-8, not YAML, a
folder or absent (`vlmscope.data_files`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from vlmscope.data_files import read_text


class _RepeatedKey(yaml.YAMLError):
    """A mapping that gives one key twice."""


class _UniqueKeyLoader(yaml.SafeLoader):
    """`yaml.SafeLoader` that refuses a mapping holding one key twice."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        first: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":  # `<<: *anchor` is not a key
                continue
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                earlier = first.get(key)
            except TypeError:  # an unhashable key: `SafeLoader` reports it below
                continue
            first[key] = line
            if earlier is not None:
                raise _RepeatedKey(
                    f"key {key!r} is given twice (lines {earlier} and {line}); "
                    "the first value would be dropped"
                )
        return super().construct_mapping(node, deep=deep)


def load_yaml(path: str | Path, error: type[Exception] = ValueError) -> Any:
    """The document of a YAML file; `error` naming the file (and the line) when it cannot be
    read, is not YAML, or gives a key twice in one mapping."""
    text = read_text(path, error)
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as err:
        raise error(f"{path}: {_one_line(err)}") from None


def _one_line(err: yaml.YAMLError) -> str:
    """PyYAML's problem and its line, on one line."""
    if isinstance(err, yaml.MarkedYAMLError) and err.problem_mark is not None:
        mark = err.problem_mark
        what = " ".join(filter(None, (err.context, err.problem)))
        return f"line {mark.line + 1}, column {mark.column + 1}: not YAML ({what})"
    return " ".join(part.strip() for part in str(err).splitlines() if part.strip())
