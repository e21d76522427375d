"""`AdbdServer`: the simulated phone's adb daemon on TCP, as an emulator's adbd is (no AUTH, no TLS).

    server = AdbdServer(SimDevice(), port=0).start()     # then: adb connect 127.0.0.1:<server.port>
    ...
    server.stop()

One listener thread accepts connections; each connection is a transport with a reader thread. The transport
answers the host's CNXN with the device's banner (`device::ro.product.name=...;ro.product.model=...;
ro.product.device=...;features=`; no features, so hosts use the classic `shell:` service), then serves streams:
OPEN(local, 0, "service") is answered with OKAY (or CLSE when the service is unknown) and the service runs in a
thread of its own; every WRTE it sends waits for the host's OKAY (the protocol's flow control), payloads are cut
to the negotiated maximum, and CLSE ends the stream. Services:

    shell:COMMAND, exec:COMMAND   run a command line; its output is written raw (binary-safe: `screencap -p`)
    shell:                        an interactive shell (line by line)
    sync:                         STAT, LIST, RECV, SEND and QUIT (`adb pull` / `adb push`, adbutils' sync)
"""

from __future__ import annotations

import logging
import queue
import socket
import struct
import threading
import time
from typing import Callable

from mobile_r1.env.sim.servers.adbd.device import SimDevice
from mobile_r1.env.sim.servers.adbd.wire import (A_CLSE, A_CNXN, A_OKAY, A_OPEN, A_WRTE, MAX_PAYLOAD, VERSION_MIN,
                                         VERSION_SKIP_CHECKSUM, Message, WireError, read_message)

log = logging.getLogger(__name__)
WRITE_TIMEOUT = 60.0  # seconds a stream waits for the host's OKAY before giving up
SYNC_CHUNK = 64 * 1024


class StreamClosed(Exception):
    """The stream (or its transport) closed while a service was writing to it."""


class Stream:
    """One OPENed stream: what the service writes goes out as flow-controlled WRTEs."""

    def __init__(self, transport: Transport, local_id: int, remote_id: int) -> None:
        self.transport = transport
        self.local_id, self.remote_id = local_id, remote_id
        self.ready = threading.Event()
        self.ready.set()  # "an OPEN message also implies a READY message"
        self.inbox: queue.Queue[bytes | None] = queue.Queue()
        self.closed = False
        self._buffer = bytearray()

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        limit = self.transport.max_payload
        for start in range(0, len(view), limit):
            deadline = time.monotonic() + WRITE_TIMEOUT
            while not self.ready.wait(0.2):
                if self.closed or self.transport.closed or time.monotonic() > deadline:
                    raise StreamClosed()
            if self.closed or self.transport.closed:
                raise StreamClosed()
            self.ready.clear()
            self.transport.send(Message(A_WRTE, self.local_id, self.remote_id, bytes(view[start:start + limit])))

    def read(self, timeout: float | None = None) -> bytes | None:
        """The next bytes the host wrote (None once the stream is closed)."""
        if self.closed and self.inbox.empty():
            return None
        try:
            return self.inbox.get(timeout=timeout)
        except queue.Empty:
            return b""

    def read_exact(self, n: int) -> bytes:
        while len(self._buffer) < n:
            chunk = self.read(timeout=WRITE_TIMEOUT)
            if chunk is None:
                raise StreamClosed()
            if not chunk and self.closed:
                raise StreamClosed()
            self._buffer += chunk
        out = bytes(self._buffer[:n])
        del self._buffer[:n]
        return out

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.inbox.put(None)
            self.transport.send(Message(A_CLSE, self.local_id, self.remote_id))
            self.transport.forget(self)

    def remote_closed(self) -> None:
        self.closed = True
        self.ready.set()
        self.inbox.put(None)


class Transport:
    """One connection from an adb host (an adb server, or a client such as adb-shell)."""

    def __init__(self, server: AdbdServer, sock: socket.socket) -> None:
        self.server = server
        self.device = server.device
        self.sock = sock
        self.version = VERSION_MIN
        self.max_payload = 4096
        self.connected = False
        self.closed = False
        self.streams: dict[int, Stream] = {}
        self.next_id = 1
        self.send_lock = threading.Lock()
        self.lock = threading.Lock()

    def send(self, message: Message) -> None:
        data = message.pack()
        with self.send_lock:
            if self.closed:
                raise StreamClosed()
            try:
                self.sock.sendall(data)
            except OSError:
                self.shutdown()
                raise StreamClosed() from None

    def forget(self, stream: Stream) -> None:
        with self.lock:
            self.streams.pop(stream.local_id, None)

    def shutdown(self) -> None:
        if self.closed:
            return
        self.closed = True
        for stream in list(self.streams.values()):
            stream.remote_closed()
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        self.server.forget(self)

    def banner(self) -> bytes:
        p = self.device.props
        return (f"device::ro.product.name={p['ro.product.name']};ro.product.model={p['ro.product.model']};"
                f"ro.product.device={p['ro.product.device']};features=").encode()

    def serve(self) -> None:
        try:
            while not self.closed:
                verify = self.connected and self.version < VERSION_SKIP_CHECKSUM
                message = read_message(self.sock, MAX_PAYLOAD, verify=verify)
                self.handle(message)
        except (ConnectionError, OSError, StreamClosed):
            pass
        except WireError as exc:
            log.warning("closing an adb connection: %s", exc)
        finally:
            self.shutdown()

    def handle(self, message: Message) -> None:
        if message.command == A_CNXN:
            self.version = max(VERSION_MIN, min(message.arg0, VERSION_SKIP_CHECKSUM))
            self.max_payload = max(4096, min(message.arg1, MAX_PAYLOAD))
            self.connected = True
            self.send(Message(A_CNXN, self.version, MAX_PAYLOAD, self.banner()))
            return
        if not self.connected:
            return  # "any messages received before a CONNECT message MUST be ignored"
        if message.command == A_OPEN:
            self.open(message.arg0, message.data.rstrip(b"\x00").decode("utf-8", errors="replace"))
        elif message.command == A_OKAY:
            stream = self.streams.get(message.arg1)
            if stream is not None:
                if stream.remote_id == 0:
                    stream.remote_id = message.arg0
                stream.ready.set()
        elif message.command == A_WRTE:
            stream = self.streams.get(message.arg1)
            if stream is not None:
                stream.inbox.put(message.data)
                self.send(Message(A_OKAY, stream.local_id, stream.remote_id))
        elif message.command == A_CLSE:
            with self.lock:
                stream = self.streams.pop(message.arg1, None)
            if stream is not None:  # the stream ends on this side too, and says so (as adbd does)
                stream.remote_closed()
                self.send(Message(A_CLSE, stream.local_id, stream.remote_id))
        # AUTH, STLS and the obsolete SYNC are not part of this device's conversation: ignored.

    def open(self, remote_id: int, destination: str) -> None:
        service = self.server.service(destination)
        if service is None or remote_id == 0:
            self.send(Message(A_CLSE, 0, remote_id))
            return
        with self.lock:
            local_id = self.next_id
            self.next_id += 1
            stream = Stream(self, local_id, remote_id)
            self.streams[local_id] = stream
        self.send(Message(A_OKAY, local_id, remote_id))
        threading.Thread(target=self._run, args=(service, stream), name=f"adbd-{destination[:24]}", daemon=True).start()

    def _run(self, service: Callable[[Stream], None], stream: Stream) -> None:
        try:
            service(stream)
        except StreamClosed:
            pass
        except Exception:  # a bug in a service must not take the device down
            log.exception("adbd service failed")
        finally:
            try:
                stream.close()
            except StreamClosed:
                pass


class AdbdServer:
    """The simulated device's adbd on `host:port` (port 0: a free one, readable as `.port` after `start`)."""

    def __init__(self, device: SimDevice | None = None, host: str = "127.0.0.1", port: int = 0) -> None:
        self.device = device or SimDevice()
        self.device.on_gone = self.drop_all
        self.host = host
        self._listener = socket.create_server((host, port), reuse_port=False)
        self.port = self._listener.getsockname()[1]
        self.transports: set[Transport] = set()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stopped = threading.Event()

    @property
    def serial(self) -> str:
        return f"{self.host}:{self.port}"

    def start(self) -> AdbdServer:
        self._thread = threading.Thread(target=self.serve_forever, name=f"adbd-{self.port}", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self._listener.settimeout(0.2)
        while not self._stopped.is_set():
            try:
                sock, _ = self._listener.accept()
            except socket.timeout:
                continue
            except OSError:
                break
            if self.device.is_gone():
                sock.close()
                continue
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            transport = Transport(self, sock)
            with self._lock:
                self.transports.add(transport)
            threading.Thread(target=transport.serve, name="adbd-transport", daemon=True).start()

    def forget(self, transport: Transport) -> None:
        with self._lock:
            self.transports.discard(transport)

    def drop_all(self) -> None:
        """Close every connection (the device went away)."""
        with self._lock:
            transports = list(self.transports)
        for transport in transports:
            transport.shutdown()

    def stop(self) -> None:
        self._stopped.set()
        try:
            self._listener.close()
        except OSError:
            pass
        self.drop_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)

    def __enter__(self) -> AdbdServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ----- services --------------------------------------------------------------------------------------------
    def service(self, destination: str) -> Callable[[Stream], None] | None:
        if destination.startswith(("shell:", "exec:")):
            command = destination.split(":", 1)[1]
            if not command.strip():
                return self._interactive if destination.startswith("shell:") else None
            return lambda stream: self._command(stream, command)
        if destination.startswith("sync:"):
            return self._sync
        return None

    def _command(self, stream: Stream, command: str) -> None:
        output = self.device.run_line(command)
        if self.device.is_gone():
            raise StreamClosed()
        if output:
            stream.write(output)

    def _interactive(self, stream: Stream) -> None:
        shell = self.device.shell()
        prompt = f"{self.device.props['ro.product.device']}:/ $ ".encode()
        stream.write(prompt)
        pending = bytearray()
        while True:
            chunk = stream.read(timeout=1.0)
            if chunk is None:
                return
            pending += chunk
            while b"\n" in pending or b"\r" in pending:
                cut = min(i for i in (pending.find(b"\n"), pending.find(b"\r")) if i >= 0)
                line = pending[:cut].decode("utf-8", errors="replace").strip()
                del pending[:cut + 1]
                if line in ("exit", "logout"):
                    return
                if line:
                    self.device.before_command()
                    with self.device.lock:
                        output, _ = shell.run_line(line)
                    stream.write(output)
                stream.write(prompt)

    def _sync(self, stream: Stream) -> None:
        device = self.device
        while True:
            head = stream.read_exact(8)
            request, length = head[:4], struct.unpack("<I", head[4:])[0]
            if request == b"QUIT":
                return
            if length > 4096:
                stream.write(_sync_fail("path too long"))
                return
            path = stream.read_exact(length).decode("utf-8", errors="replace")
            if request in (b"STAT", b"STA2", b"LST2"):
                data = device.read_file(path)
                if request == b"STAT":
                    mode, size = ((0o100644, len(data)) if data is not None else
                                  (0o040771, 0) if _is_dir(device, path) else (0, 0))
                    stream.write(b"STAT" + struct.pack("<III", mode, size, int(time.time()) if mode else 0))
                else:  # the v2 stat: error, dev, ino, mode, nlink, uid, gid, size, atime, mtime, ctime
                    found = data is not None or _is_dir(device, path)
                    mode = 0o100644 if data is not None else 0o040771
                    now = int(time.time())
                    stream.write(request + struct.pack("<IQQIIIIQqqq", 0 if found else 2, 0, 0, mode if found else 0,
                                                       1, 2000, 2000, len(data or b""), now, now, now))
            elif request == b"LIST":
                prefix = path.rstrip("/") + "/"
                for name, data in sorted(device.files.items()):
                    if name.startswith(prefix) and "/" not in name[len(prefix):]:
                        entry = name[len(prefix):].encode()
                        stream.write(b"DENT" + struct.pack("<IIII", 0o100644, len(data), int(time.time()), len(entry)) + entry)
                stream.write(b"DONE" + bytes(16))
            elif request == b"RECV":
                data = device.read_file(path)
                if data is None:
                    stream.write(_sync_fail(f"remote object '{path}' does not exist"))
                    continue
                for start in range(0, len(data), SYNC_CHUNK):
                    chunk = data[start:start + SYNC_CHUNK]
                    stream.write(b"DATA" + struct.pack("<I", len(chunk)) + chunk)
                stream.write(b"DONE" + bytes(4))
            elif request == b"SEND":
                target = path.rsplit(",", 1)[0]
                received = bytearray()
                while True:
                    part = stream.read_exact(8)
                    kind, size = part[:4], struct.unpack("<I", part[4:])[0]
                    if kind == b"DATA":
                        received += stream.read_exact(size)
                    elif kind == b"DONE":
                        break
                    else:
                        stream.write(_sync_fail(f"unexpected {kind!r} while receiving a file"))
                        return
                problem = device.write_file(target, bytes(received))
                stream.write(_sync_fail(f"couldn't create file: {problem}") if problem else b"OKAY" + bytes(4))
            else:
                stream.write(_sync_fail(f"unknown sync request {request!r}"))
                return


def _sync_fail(message: str) -> bytes:
    data = message.encode()
    return b"FAIL" + struct.pack("<I", len(data)) + data


def _is_dir(device: SimDevice, path: str) -> bool:
    prefix = path.rstrip("/") + "/"
    return path in ("/", "/sdcard", "/data/local/tmp") or any(name.startswith(prefix) for name in device.files)


__all__ = ["AdbdServer", "Stream", "Transport"]
