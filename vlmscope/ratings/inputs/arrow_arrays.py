"""pyarrow arrays to numpy and back without pyarrow's pandas checks.

`Array.to_numpy()`, `pa.array(...)` and comparisons with a Python scalar make pyarrow import
pandas (0.5-1 s) to see whether the values are pandas objects, although none are here. The
columnar battle reader (`battle_columns`, `battle_stream`) converts only null-free primitive
columns, so it reads their data buffers directly: the same values, and a command that rates a
file of battles never loads pandas.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def numbers(array: Any) -> np.ndarray:
    """A null-free integer or floating-point array as float64 (`to_numpy().astype(float)`)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    return _primitive(pc.cast(array, pa.float64()), np.float64).copy()


def integers(array: Any) -> np.ndarray:
    """A null-free integer array (e.g. dictionary indices) as a numpy array of its own type."""
    import pyarrow as pa

    kind = "i" if pa.types.is_signed_integer(array.type) else "u"
    return _primitive(array, np.dtype(f"{kind}{array.type.bit_width // 8}"))


def bools(array: Any) -> np.ndarray:
    """A null-free boolean array (bit-packed in arrow) as numpy booleans."""
    if array.null_count:
        raise ValueError("bools: the array has nulls")
    bits = np.frombuffer(array.buffers()[1], dtype=np.uint8)
    unpacked = np.unpackbits(bits, bitorder="little")
    return unpacked[array.offset : array.offset + len(array)].astype(bool)


def index_array(indices: np.ndarray) -> Any:
    """Row positions as an arrow int64 array, for `take` (`pa.array(indices)`)."""
    import pyarrow as pa

    positions = np.ascontiguousarray(indices, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(positions), [None, pa.py_buffer(positions)])


def _primitive(array: Any, dtype: Any) -> np.ndarray:
    if array.null_count:
        raise ValueError("the array has nulls")
    values = np.frombuffer(array.buffers()[1], dtype=dtype)
    return values[array.offset : array.offset + len(array)]
