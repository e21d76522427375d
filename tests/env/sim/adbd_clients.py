"""Helpers of the adbd client tests: the simulated phone's adbd in this process, and a private Debian adb server
`adb connect`ed to it (its port in ANDROID_ADB_SERVER_PORT, for adbutils, pure-python-adb and the adb binary)."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import Iterator

import pytest

from mobile_r1.env.sim.servers.adbd import AdbdServer, SimDevice
from mobile_r1.serve.server import free_port

ADB = shutil.which("adb")


@dataclass
class Connected:
    server: AdbdServer
    adb_port: int

    @property
    def serial(self) -> str:
        return self.server.serial

    def adb(self, *args: str, stdin: bytes | None = None, timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
        """The Debian adb binary against this device."""
        assert ADB is not None
        return subprocess.run([ADB, "-P", str(self.adb_port), "-s", self.serial, *args], input=stdin,
                              capture_output=True, timeout=timeout)


def adb_connected(device: SimDevice) -> Iterator[Connected]:
    """A generator for a fixture: `device` served in this process, `adb connect`ed to a private adb server."""
    if ADB is None:
        pytest.skip("the adb binary is not installed (`make adb` installs Debian's package)")
    port = free_port()
    old = os.environ.get("ANDROID_ADB_SERVER_PORT")
    os.environ["ANDROID_ADB_SERVER_PORT"] = str(port)
    subprocess.run([ADB, "-P", str(port), "start-server"], check=True, capture_output=True, timeout=60)
    server = AdbdServer(device).start()
    try:
        subprocess.run([ADB, "-P", str(port), "connect", server.serial], check=True, capture_output=True, timeout=30)
        subprocess.run([ADB, "-P", str(port), "-s", server.serial, "wait-for-device"], check=True,
                       capture_output=True, timeout=30)
        yield Connected(server, port)
    finally:
        subprocess.run([ADB, "-P", str(port), "kill-server"], capture_output=True, timeout=60)
        server.stop()
        if old is None:
            os.environ.pop("ANDROID_ADB_SERVER_PORT", None)
        else:
            os.environ["ANDROID_ADB_SERVER_PORT"] = old
