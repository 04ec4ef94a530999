"""The stub server and the requests of `api_concurrency.py`: the server runs in a process of its
own, so that its work does not count against the client's CPU."""

from __future__ import annotations

from multiprocessing.connection import Connection
from typing import Any

from tests.servers import OpenAIStub, RateLimited
from vlmscope.messages import Request, user_request


def serve_stub(
    latency_s: float, connection: Connection, limits: dict[str, Any] | None = None
) -> None:
    """In the server process: report the URL, then answer each "stats" with max in flight
    (and, rate-limited, the requests accepted and refused), counting afresh after each."""
    if limits:  # the limiter holds the latency, so that a refusal is answered at once
        server = RateLimited(service_s=latency_s, **limits)
        stub = OpenAIStub(server)
    else:
        server, stub = None, OpenAIStub(latency_s=latency_s)
    with stub:
        connection.send(stub.base_url)
        while connection.recv() == "stats":
            if server is None:
                connection.send(stub.max_in_flight)
            else:
                connection.send((stub.max_in_flight, server.accepted, server.refused))
                server.accepted = server.refused = 0
            stub.max_in_flight = 0


def prompts(
    count: int, label: str, images: tuple[bytes, ...] = (), reuse: int = 1
) -> list[Request]:
    """`count` questions; with images, request i carries copies of them that differ (bytes
    after the JPEG's end, which decoders ignore) from those of any request outside its run of
    `reuse`."""
    return [
        user_request(
            *(image + f"{label}-{i // reuse}".encode() for image in images),
            f"{label} question {i}: what colour is it?",
        )
        for i in range(count)
    ]


def photo_images(count: int, side: int) -> tuple[bytes, ...]:
    """`count` JPEG images of `side` x 3/4 `side` pixels of noise (nothing for a codec to skip)."""
    import io

    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(0)
    out = []
    for _ in range(count):
        pixels = rng.integers(0, 256, (side * 3 // 4, side, 3), dtype=np.uint8)
        buffer = io.BytesIO()
        Image.fromarray(pixels).save(buffer, "JPEG", quality=90)
        out.append(buffer.getvalue())
    return tuple(out)
