"""`AdbdServer`: the simulated phone's adb daemon on TCP, as an emulator's adbd is (no AUTH, no TLS).

    server = AdbdServer(SimDevice(), port=0).start()     # then: adb connect 127.0.0.1:<server.port>
    ...
    server.stop()

One listener thread accepts connections; each connection is a transport with a reader thread. The transport
answers the host's CNXN with the device's banner (`device::ro.product.name=...;ro.product.model=...;
ro.product.device=...;features=shell_v2`), then serves streams: OPEN(local, 0, "service") is answered with OKAY
(or CLSE when the service is unknown) and the service runs in a thread of its own; every WRTE it sends waits for
the host's OKAY, and the device answers a host's WRTE with OKAY only once the service has taken it (the protocol's
flow control, both ways), payloads are cut to the negotiated maximum, and CLSE ends the stream. Services:

    shell:COMMAND, exec:COMMAND   run a command line; its output is written raw (binary-safe: `screencap -p`)
    shell,v2,raw:COMMAND          the same in the shell_v2 protocol: stdout and stderr apart, then the exit status
                                  (`adb shell false` exits 1); packets of 1 id byte, 4 length bytes, data
    shell:, shell,v2,pty:         an interactive shell (line by line; with v2, stdin arrives in packets)
    sync:                         STAT, LIST, RECV, SEND and QUIT (`adb pull` / `adb push`, adbutils' sync)

Bounds: a connection that has not said CNXN within `HANDSHAKE_SECONDS` is closed; past `max_connections` (and
whenever the process runs out of file descriptors or threads) the least recently active connection is shed, those
that never said CNXN first, and the server keeps accepting; a transport has at most `MAX_STREAMS` streams; an
interactive line is at most `MAX_LINE` bytes (a longer one is refused, in time linear in its length); `adb push`
streams into the device's file quota and is refused past it.
"""

from __future__ import annotations

import logging
import queue
import re
import resource
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
FEATURES = "shell_v2"
HANDSHAKE_SECONDS = 10.0  # a connection must say CNXN within this
MAX_CONNECTIONS = 256  # at most; fewer when the process may open fewer files (see `connection_cap`)
MAX_STREAMS = 64  # open streams per connection
MAX_LINE = 1024 * 1024  # bytes of one interactive line
# shell_v2 packet ids (AOSP adb's shell_protocol.h)
ID_STDIN, ID_STDOUT, ID_STDERR, ID_EXIT, ID_CLOSE_STDIN, ID_WINDOW_SIZE = 0, 1, 2, 3, 4, 5
V2_CHUNK = 64 * 1024
NEWLINE = re.compile(rb"[\r\n]")


def connection_cap(wanted: int = MAX_CONNECTIONS) -> int:
    """`wanted`, or fewer so that connections leave a margin of the process's file descriptors."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(4, min(wanted, (soft - 64) // 2))


class _Once:
    """Logs a kind of trouble once, then only counts it (a flood must not fill the log)."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.lock = threading.Lock()

    def warn(self, kind: str, message: str, *args: object) -> None:
        with self.lock:
            self.counts[kind] = self.counts.get(kind, 0) + 1
            first = self.counts[kind] == 1
        if first:
            log.warning(message + " (logged once; later ones are only counted)", *args)


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
        self.accepts_input = False  # a service that reads (interactive shell, sync) says so; else input is dropped
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
        """The next bytes the host wrote (None once the stream is closed); taking them lets the host send more."""
        if self.closed and self.inbox.empty():
            return None
        try:
            data = self.inbox.get(timeout=timeout)
        except queue.Empty:
            return b""
        if data is not None and not self.closed:
            try:
                self.transport.send(Message(A_OKAY, self.local_id, self.remote_id))
            except StreamClosed:
                pass
        return data

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
        self.opened = time.monotonic()
        self.last_active = self.opened

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
                f"ro.product.device={p['ro.product.device']};features={FEATURES}").encode()

    def serve(self) -> None:
        try:
            self.sock.settimeout(HANDSHAKE_SECONDS)
            while not self.closed:
                verify = self.connected and self.version < VERSION_SKIP_CHECKSUM
                message = read_message(self.sock, MAX_PAYLOAD, verify=verify)
                self.last_active = time.monotonic()
                if not self.connected and message.command == A_CNXN:
                    self.sock.settimeout(None)
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
                if stream.accepts_input and not stream.closed:
                    stream.inbox.put(message.data)  # OKAYed when the service takes it
                else:
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
        if service is None or remote_id == 0 or len(self.streams) >= MAX_STREAMS:
            if service is not None and remote_id:
                self.server.once.warn("streams", "refusing a stream: a connection has %d open", MAX_STREAMS)
            self.send(Message(A_CLSE, 0, remote_id))
            return
        with self.lock:
            local_id = self.next_id
            self.next_id += 1
            stream = Stream(self, local_id, remote_id)
            self.streams[local_id] = stream
        stream.accepts_input = destination.startswith("sync:") or _is_interactive(destination)
        self.send(Message(A_OKAY, local_id, remote_id))
        try:
            threading.Thread(target=self._run, args=(service, stream), name=f"adbd-{destination[:24]}",
                             daemon=True).start()
        except RuntimeError:  # no thread can be started now: the stream ends, the device goes on
            self.server.once.warn("thread", "cannot start a thread for an adb stream; refusing it")
            stream.close()

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
    """The simulated device's adbd on `host:port` (port 0: a free one, readable as `.port` after `start`).
    `max_connections`: connections kept at once (the least recently active is shed past it)."""

    def __init__(self, device: SimDevice | None = None, host: str = "127.0.0.1", port: int = 0,
                 max_connections: int = MAX_CONNECTIONS) -> None:
        self.device = device or SimDevice()
        self.device.on_gone = self.drop_all
        self.host = host
        self._listener = socket.create_server((host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET,
                                              reuse_port=False, backlog=128)
        self.port = self._listener.getsockname()[1]
        self.max_connections = connection_cap(max_connections)
        self.transports: set[Transport] = set()
        self.once = _Once()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stopped = threading.Event()
        self._accepting = threading.Event()

    @property
    def serial(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    def start(self) -> AdbdServer:
        """Start accepting; returns once the accept loop runs."""
        self._thread = threading.Thread(target=self.serve_forever, name=f"adbd-{self.port}", daemon=True)
        self._thread.start()
        self._accepting.wait(10)
        return self

    def serve_forever(self) -> None:
        self._listener.settimeout(0.2)
        self._accepting.set()
        while not self._stopped.is_set():
            try:
                sock, _ = self._listener.accept()
            except socket.timeout:
                self._shed_stale()
                continue
            except OSError as exc:
                if self._stopped.is_set():
                    break
                # out of file descriptors (EMFILE, ENFILE) or buffers: shed a connection and go on accepting
                self.once.warn("accept", "adbd cannot accept a connection (%s); shedding idle connections", exc)
                if not self._shed(1):
                    time.sleep(0.05)
                continue
            if self.device.is_gone():
                sock.close()
                continue
            with self._lock:
                over = len(self.transports) + 1 - self.max_connections
            if over > 0:
                self.once.warn("cap", "adbd holds %d connections; shedding the least recently active",
                               self.max_connections)
                self._shed(over)
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                sock.close()
                continue
            transport = Transport(self, sock)
            with self._lock:
                self.transports.add(transport)
            try:
                threading.Thread(target=transport.serve, name="adbd-transport", daemon=True).start()
            except RuntimeError:  # no thread can be started now: drop this connection, shed one, go on
                self.once.warn("thread", "adbd cannot start a thread for a connection; shedding idle connections")
                transport.shutdown()
                self._shed(1)

    def _shed(self, n: int) -> int:
        """Close the `n` least recently active connections (those that never said CNXN first); how many."""
        with self._lock:
            victims = sorted(self.transports, key=lambda t: (t.connected, t.last_active))[:n]
        for transport in victims:
            transport.shutdown()
        return len(victims)

    def _shed_stale(self) -> None:
        """Close connections that never said CNXN in time (their reader also times out; this catches the rest)."""
        now = time.monotonic()
        with self._lock:
            stale = [t for t in self.transports if not t.connected and now - t.opened > HANDSHAKE_SECONDS]
        for transport in stale:
            transport.shutdown()

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
        name, options, command = _parse_service(destination)
        if name in ("shell", "exec"):
            v2 = name == "shell" and "v2" in options
            if not command.strip():
                if name == "exec":
                    return None
                pty = "raw" not in options
                return lambda stream: self._interactive(stream, v2, pty)
            if v2:
                return lambda stream: self._command_v2(stream, command)
            return lambda stream: self._command(stream, command)
        if name == "sync":
            return self._sync
        return None

    def _command(self, stream: Stream, command: str) -> None:
        output = self.device.run_line(command)
        if self.device.is_gone():
            raise StreamClosed()
        if output:
            stream.write(output)

    def _command_v2(self, stream: Stream, command: str) -> None:
        chunks, status = self.device.run_chunks(command)
        if self.device.is_gone():
            raise StreamClosed()
        for fd, data in chunks:
            _write_packets(stream, ID_STDOUT if fd == 1 else ID_STDERR, data)
        stream.write(_packet(ID_EXIT, bytes([status & 0xFF])))

    def _interactive(self, stream: Stream, v2: bool = False, pty: bool = True) -> None:
        """Line by line; a line longer than MAX_LINE is refused (each byte is looked at once)."""
        shell = self.device.shell()
        prompt = f"{self.device.props['ro.product.device']}:/ $ ".encode() if pty else b""

        def out(fd: int, data: bytes) -> None:
            if data:
                if v2:
                    _write_packets(stream, ID_STDOUT if fd == 1 or pty else ID_STDERR, data)
                else:
                    stream.write(data)

        out(1, prompt)
        pending = bytearray()
        too_long = False
        packets = _PacketReader() if v2 else None
        while True:
            chunk = stream.read(timeout=1.0)
            if chunk is None:
                break
            data, ended = packets.feed(chunk) if packets is not None else (chunk, False)
            start = 0
            while True:
                match = NEWLINE.search(data, start)
                end = match.start() if match else len(data)
                if not too_long:
                    if len(pending) + end - start > MAX_LINE:
                        too_long = True
                        pending.clear()
                    else:
                        pending += data[start:end]
                if match is None:
                    break
                start = match.end()
                if too_long:
                    out(2, f"/system/bin/sh: line over {MAX_LINE} bytes; not run\n".encode())
                    too_long = False
                    out(1, prompt)
                    continue
                line = pending.decode("utf-8", errors="replace").strip()
                pending.clear()
                if line in ("exit", "logout"):
                    self._exit_v2(stream, shell.status, v2)
                    return
                if line:
                    for fd, text in self.device.run_chunks(line, shell)[0]:
                        out(fd, text)
                out(1, prompt)
            if ended:
                break
        self._exit_v2(stream, shell.status, v2)

    @staticmethod
    def _exit_v2(stream: Stream, status: int, v2: bool) -> None:
        if v2 and not stream.closed:
            stream.write(_packet(ID_EXIT, bytes([status & 0xFF])))

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
                parts: list[bytes] = []
                size = 0
                while True:
                    part = stream.read_exact(8)
                    kind, length = part[:4], struct.unpack("<I", part[4:])[0]
                    if kind == b"DATA":
                        if length > MAX_PAYLOAD:
                            stream.write(_sync_fail(f"a {length}-byte DATA block is too large"))
                            return
                        problem = device.can_store(target, size + length)
                        if problem:  # refused before it is held: the host sees the failure and stops sending
                            stream.write(_sync_fail(f"couldn't create file: {problem}"))
                            return
                        parts.append(stream.read_exact(length))
                        size += length
                    elif kind == b"DONE":
                        break
                    else:
                        stream.write(_sync_fail(f"unexpected {kind!r} while receiving a file"))
                        return
                with device.lock:
                    problem = device.write_file(target, b"".join(parts))
                parts.clear()
                stream.write(_sync_fail(f"couldn't create file: {problem}") if problem else b"OKAY" + bytes(4))
            else:
                stream.write(_sync_fail(f"unknown sync request {request!r}"))
                return


def _parse_service(destination: str) -> tuple[str, list[str], str]:
    """("shell", ["v2", "raw"], "ls") for "shell,v2,raw:ls"."""
    head, _, command = destination.partition(":")
    name, *options = head.split(",")
    return name, options, command


def _is_interactive(destination: str) -> bool:
    name, _, command = _parse_service(destination)
    return name == "shell" and not command.strip()


def _packet(kind: int, data: bytes) -> bytes:
    return struct.pack("<BI", kind, len(data)) + data


def _write_packets(stream: Stream, kind: int, data: bytes) -> None:
    view = memoryview(data)
    for start in range(0, len(view), V2_CHUNK):
        stream.write(_packet(kind, bytes(view[start:start + V2_CHUNK])))


class _PacketReader:
    """The host's shell_v2 packets: the stdin bytes they carry, and whether stdin was closed."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.kind = -1
        self.left = 0  # bytes of the current packet still to come (kind -1: a header is next)

    def feed(self, chunk: bytes) -> tuple[bytes, bool]:
        self.buffer += chunk
        data = bytearray()
        ended = False
        while True:
            if self.kind < 0:
                if len(self.buffer) < 5:
                    break
                self.kind, self.left = struct.unpack("<BI", bytes(self.buffer[:5]))
                del self.buffer[:5]
            take = bytes(self.buffer[:self.left])
            del self.buffer[:len(take)]
            self.left -= len(take)
            if self.kind == ID_STDIN:
                data += take
            if self.left:
                break
            ended = ended or self.kind == ID_CLOSE_STDIN
            self.kind = -1
        return bytes(data), ended


def _sync_fail(message: str) -> bytes:
    data = message.encode()
    return b"FAIL" + struct.pack("<I", len(data)) + data


def _is_dir(device: SimDevice, path: str) -> bool:
    prefix = path.rstrip("/") + "/"
    return path in ("/", "/sdcard", "/data/local/tmp") or any(name.startswith(prefix) for name in device.files)


__all__ = ["AdbdServer", "Stream", "Transport"]
