"""The adb transport's messages, device side: a 24-byte header of six little-endian uint32 and a payload.

Written from AOSP's `packages/modules/adb/protocol.txt` (the device side is what we need, and no pure-Python
library provides it: the clients talk to an adb server or to a device, never as one):

    command      A_CNXN, A_OPEN, A_OKAY, A_WRTE, A_CLSE (A_AUTH, A_STLS are never sent by this device)
    arg0, arg1   the command's arguments (CNXN: version, max payload; streams: local id, remote id)
    data_length  payload bytes
    data_check   the sum of the payload's bytes (checked only under protocol versions older than 0x01000001)
    magic        command ^ 0xffffffff
"""

from __future__ import annotations

import socket
import struct
from dataclasses import dataclass

A_CNXN, A_AUTH, A_OPEN, A_OKAY, A_CLSE, A_WRTE, A_STLS, A_SYNC = (
    0x4E584E43, 0x48545541, 0x4E45504F, 0x59414B4F, 0x45534C43, 0x45545257, 0x534C5453, 0x434E5953)
NAMES = {A_CNXN: "CNXN", A_AUTH: "AUTH", A_OPEN: "OPEN", A_OKAY: "OKAY", A_CLSE: "CLSE", A_WRTE: "WRTE",
         A_STLS: "STLS", A_SYNC: "SYNC"}
VERSION_MIN = 0x01000000
VERSION_SKIP_CHECKSUM = 0x01000001
MAX_PAYLOAD = 1024 * 1024
HEADER = struct.Struct("<6I")


class WireError(Exception):
    """The peer sent something that is not an adb message (the connection must be closed)."""


@dataclass(frozen=True, slots=True)
class Message:
    command: int
    arg0: int
    arg1: int
    data: bytes = b""

    @property
    def name(self) -> str:
        return NAMES.get(self.command, f"0x{self.command:08x}")

    def pack(self) -> bytes:
        return HEADER.pack(self.command, self.arg0 & 0xFFFFFFFF, self.arg1 & 0xFFFFFFFF, len(self.data),
                           checksum(self.data), self.command ^ 0xFFFFFFFF) + self.data


def checksum(data: bytes) -> int:
    return sum(data) & 0xFFFFFFFF


def _read_exact(sock: socket.socket, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = sock.recv(n - got)
        if not chunk:
            raise ConnectionError("the peer closed the connection")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def read_message(sock: socket.socket, max_payload: int = MAX_PAYLOAD, verify: bool = True) -> Message:
    """One message from `sock`; raises ConnectionError at end of stream and WireError on a bad header."""
    command, arg0, arg1, length, check, magic = HEADER.unpack(_read_exact(sock, HEADER.size))
    if magic != command ^ 0xFFFFFFFF:
        raise WireError(f"bad magic 0x{magic:08x} for command 0x{command:08x}")
    if command not in NAMES:
        raise WireError(f"unknown command 0x{command:08x}")
    if length > max_payload:
        raise WireError(f"a {length}-byte payload exceeds the {max_payload}-byte maximum")
    data = _read_exact(sock, length) if length else b""
    if verify and check != checksum(data):
        raise WireError(f"{NAMES[command]}: payload checksum mismatch")
    return Message(command, arg0, arg1, data)


__all__ = ["Message", "read_message", "checksum", "WireError", "A_CNXN", "A_AUTH", "A_OPEN", "A_OKAY", "A_CLSE",
           "A_WRTE", "A_STLS", "MAX_PAYLOAD", "VERSION_MIN", "VERSION_SKIP_CHECKSUM"]
