"""Fixtures for server tests: a tiny-lm server shared by a module, and PNG files that declare huge sizes."""

from __future__ import annotations

import base64
import struct
import zlib
from typing import Callable, Iterator

import pytest

from mobile_r1.models import Policy
from mobile_r1.serve import HFEngine, LoopbackServer, ServerSettings


def blank_png(width: int, height: int) -> bytes:
    """A valid 1-bit black PNG of `width` x `height`, written row by row: 20000x20000 compresses to about 48 KB."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    row = b"\0" * (1 + (width + 7) // 8)
    deflate = zlib.compressobj(9)
    parts = [deflate.compress(row * min(1000, height - start)) for start in range(0, height, 1000)]
    parts.append(deflate.flush())
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", b"".join(parts)) + chunk(b"IEND", b"")


def data_url(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


@pytest.fixture
def png_url() -> Callable[[int, int], str]:
    """`png_url(width, height)`: the data URL of a blank PNG declaring that size (cheap to make whatever the size)."""
    return lambda width, height: data_url(blank_png(width, height))


def lively_tiny_lm() -> Policy:
    """tiny-lm with its matrices redrawn at std 0.125: its greedy answers differ from prompt to prompt (the preset's
    0.02 makes every greedy answer a run of newlines, which would let tests of batching or stop strings pass vacuously)."""
    import torch

    from mobile_r1.models import load_policy

    policy = load_policy("tiny-lm")
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for weight in policy.model.parameters():
            if weight.dim() >= 2:
                weight.normal_(0, 0.125, generator=generator)
    return policy


@pytest.fixture
def lively() -> Callable[[], Policy]:
    """`lively()`: a fresh `lively_tiny_lm()`."""
    return lively_tiny_lm


@pytest.fixture(scope="module")
def tiny_server() -> Iterator[LoopbackServer]:
    """`lively_tiny_lm()` behind the HTTP server as model "tiny", batching within 20 ms, adapter updates on."""
    backend = HFEngine(lively_tiny_lm(), batch_window=0.02, max_batch=16)
    with LoopbackServer(backend, model_name="tiny", settings=ServerSettings(lora_updates=True)) as server:
        yield server
