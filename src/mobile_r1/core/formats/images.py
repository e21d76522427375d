"""Screenshots that arrive inside a data file (TFRecord, parquet): kept as bytes until something writes or decodes them.

AndroidControl stores PNG bytes, its parquet mirror base64 PNG, AITW raw `uint8` pixels (H x W x C). A loader puts an
`EncodedImage` in `Observation.screenshot`; the native store (`save_episodes`) and the exporters call `.save(path)`,
which writes the PNG (raw pixels are encoded as PNG here, with zlib, because `core` has no imaging library);
`image_size` reads a PNG's size from its header. Anything that needs pixels (`PIL.Image.open(io.BytesIO(img.png()))`)
decodes `png()` itself.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

from mobile_r1.core.errors import DataError

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> PNG colour type (grey, grey+alpha, RGB, RGBA)


def png_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG's IHDR chunk; None when `data` is not a PNG."""
    if len(data) < 24 or not data.startswith(PNG_SIGNATURE) or data[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


def _chunk(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF)


def encode_png(pixels: bytes, width: int, height: int, channels: int) -> bytes:
    """A PNG of raw 8-bit pixels, rows top to bottom (no filtering: simple, exact, a little larger)."""
    if channels not in _COLOR_TYPES:
        raise DataError(f"cannot write a PNG of {channels} channels (1, 2, 3 or 4)")
    stride = width * channels
    if width <= 0 or height <= 0 or len(pixels) != stride * height:
        raise DataError(f"raw image of {len(pixels)} bytes does not hold {width}x{height}x{channels} pixels")
    rows = b"".join(b"\x00" + pixels[y * stride : (y + 1) * stride] for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, _COLOR_TYPES[channels], 0, 0, 0)
    return PNG_SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(rows, 6)) + _chunk(b"IEND", b"")


@dataclass(frozen=True, slots=True)
class EncodedImage:
    """A screenshot held as bytes: `kind` "png" (encoded file bytes) or "raw" (8-bit pixels, `width` x `height` x `channels`)."""

    data: bytes
    kind: str = "png"
    width: int = 0
    height: int = 0
    channels: int = 3

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the image."""
        if self.kind == "png":
            found = png_size(self.data)
            if found is not None:
                return found
        return (self.width, self.height)

    def png(self) -> bytes:
        """The image as PNG file bytes."""
        if self.kind == "raw":
            return encode_png(self.data, self.width, self.height, self.channels)
        return self.data

    def save(self, path: str | Path, format: str | None = None) -> None:
        """Write the image as a PNG file (the native store and the exporters call this)."""
        Path(path).write_bytes(self.png())
