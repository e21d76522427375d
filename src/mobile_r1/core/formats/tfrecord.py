"""TFRecord files of `tf.train.Example` records, read without TensorFlow (the `tfrecord` package, extra `data`).

The record framing (length, masked CRC-32C, payload, masked CRC-32C) is read by `tfrecord.reader.tfrecord_iterator`
and each payload parsed as a `tensorflow.Example` protobuf (`tfrecord.example_pb2`, the same schema as TensorFlow's
`example.proto`). GZIP files (AndroidControl, AITW) are recognised by their magic bytes, whatever their name.

    for place, example in read_examples(path):
        goal = text_feature(example, "goal", place)
"""

from __future__ import annotations

import gzip
import struct
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mobile_r1.core.errors import DataError

GZIP_MAGIC = b"\x1f\x8b"
MAX_RECORD_BYTES = 1 << 30  # a record longer than this (1 GiB) is a damaged length, not data
TFRECORD_HINT = "reading TFRecord files needs the `tfrecord` package: pip install 'mobile-r1[data]' (or pip install tfrecord)"


def _modules() -> tuple[Any, Any]:
    """(tfrecord.reader, tfrecord.example_pb2), imported without the package's optional PyTorch dataset."""
    blocked = "tfrecord" not in sys.modules and "tfrecord.torch" not in sys.modules
    if blocked:  # the package imports its torch Dataset when torch is installed; reading needs none of it
        sys.modules["tfrecord.torch"] = None  # type: ignore[assignment]
    try:
        from tfrecord import example_pb2, reader
    except ImportError:
        raise DataError(TFRECORD_HINT) from None
    finally:
        if blocked and sys.modules.get("tfrecord.torch", 0) is None:
            del sys.modules["tfrecord.torch"]
    return reader, example_pb2


def is_gzip(path: Path) -> bool:
    with open(path, "rb") as stream:
        return stream.read(2) == GZIP_MAGIC


def looks_like_tfrecord(path: Path) -> bool:
    """Whether a file is a (possibly GZIP) TFRecord file: its first record's framing reads back."""
    try:
        opener = gzip.open if is_gzip(path) else open
        with opener(path, "rb") as stream:  # type: ignore[operator]
            head = stream.read(12)
    except (OSError, EOFError):
        return False
    if len(head) < 12:
        return False
    (length,) = struct.unpack("<Q", head[:8])
    return 0 < length < (1 << 40)


def read_examples(path: str | Path) -> Iterator[tuple[str, Any]]:
    """Yield ("<file>: record N", tf.train.Example) for every record of a TFRecord file (GZIP or not)."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path}: no such file; give the path of a TFRecord file")
    reader, example_pb2 = _modules()
    from google.protobuf.message import DecodeError

    check_framing(path)
    compression = "gzip" if is_gzip(path) else None
    index = 0
    try:
        for raw in reader.tfrecord_iterator(str(path), compression_type=compression):
            example = example_pb2.Example()
            try:
                example.ParseFromString(bytes(raw))
            except DecodeError as exc:
                raise DataError(f"{path}: record {index}: not a tf.train.Example ({exc})") from None
            yield f"{path}: record {index}", example
            index += 1
    except (RuntimeError, OSError, EOFError, OverflowError, ValueError, zlib.error) as exc:
        raise DataError(f"{path}: record {index}: the file is truncated, damaged or not a TFRecord file ({exc})") from None


def check_framing(path: Path) -> int:
    """Walk the record lengths of a (GZIP) TFRecord file before a reader trusts them: a damaged length would make it
    allocate that many bytes. Returns the number of records; a length past the end of the data, or absurd, is a
    DataError naming the record."""
    opener = gzip.open if is_gzip(path) else open
    index = 0
    try:
        with opener(path, "rb") as stream:  # type: ignore[operator]
            while True:
                head = stream.read(12)
                if not head:
                    return index
                if len(head) < 12:
                    raise DataError(f"{path}: record {index}: the file ends inside a record's header")
                (length,) = struct.unpack("<Q", head[:8])
                if length > MAX_RECORD_BYTES:
                    raise DataError(f"{path}: record {index}: a length of {length} bytes: the file is damaged")
                body = stream.read(length + 4)
                if len(body) < length + 4:
                    raise DataError(f"{path}: record {index}: the file ends inside the record ({len(body)} of "
                                    f"{length + 4} bytes)")
                index += 1
    except (OSError, EOFError, zlib.error) as exc:
        raise DataError(f"{path}: record {index}: the file is damaged or not a TFRecord file ({exc})") from None


def _feature(example: Any, key: str, place: str, kind: str, required: bool) -> list[Any] | None:
    features = example.features.feature
    if key not in features:
        if required:
            raise DataError(f"{place}: field '{key}': missing")
        return None
    feature = features[key]
    present = feature.WhichOneof("kind")
    if present is None:
        return []
    if present != kind:
        raise DataError(f"{place}: field '{key}': expected {kind}, found {present}")
    return list(getattr(feature, kind).value)


def bytes_feature(example: Any, key: str, place: str, required: bool = True) -> list[bytes] | None:
    return _feature(example, key, place, "bytes_list", required)


def int_feature(example: Any, key: str, place: str, required: bool = True) -> list[int] | None:
    return _feature(example, key, place, "int64_list", required)


def float_feature(example: Any, key: str, place: str, required: bool = True) -> list[float] | None:
    return _feature(example, key, place, "float_list", required)


def text_feature(example: Any, key: str, place: str, required: bool = True, default: str = "") -> str:
    """A one-value bytes feature decoded as UTF-8 text."""
    values = bytes_feature(example, key, place, required)
    if not values:
        return default
    try:
        return values[0].decode("utf-8")
    except UnicodeDecodeError:
        raise DataError(f"{place}: field '{key}': not UTF-8 text") from None


def one_int(example: Any, key: str, place: str, required: bool = True, default: int = 0) -> int:
    values = int_feature(example, key, place, required)
    if not values:
        if required:
            raise DataError(f"{place}: field '{key}': empty")
        return default
    return int(values[0])


def feature_keys(example: Any) -> set[str]:
    return set(example.features.feature.keys())
