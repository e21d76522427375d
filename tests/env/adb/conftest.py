"""Fixtures of the real-device tests: a private adb server (the real `adb` binary, on a port of its own, killed at
the end) and the simulated phone served by `mobile-r1 sim adbd --port 0` in a subprocess, one per test module."""

from __future__ import annotations

import os
import subprocess
from typing import Iterator

import pytest

from mobile_r1.serve.server import free_port

from adb_fixtures import ADB, SimulatedDevice, start_adbd, stop_adbd


@pytest.fixture(scope="module")
def adb_server() -> Iterator[int]:
    """A private adb server; ANDROID_ADB_SERVER_PORT points at it (for adbutils and for subprocesses)."""
    if ADB is None:
        pytest.skip("the adb binary is not installed (`make adb` installs Debian's package)")
    port = free_port()
    old = os.environ.get("ANDROID_ADB_SERVER_PORT")
    os.environ["ANDROID_ADB_SERVER_PORT"] = str(port)
    subprocess.run([ADB, "-P", str(port), "start-server"], check=True, capture_output=True, timeout=60)
    try:
        yield port
    finally:
        subprocess.run([ADB, "-P", str(port), "kill-server"], capture_output=True, timeout=60)
        if old is None:
            os.environ.pop("ANDROID_ADB_SERVER_PORT", None)
        else:
            os.environ["ANDROID_ADB_SERVER_PORT"] = old


@pytest.fixture(scope="module")
def sim_device(adb_server: int) -> Iterator[SimulatedDevice]:
    """The simulated phone, `adb connect`ed to the private server."""
    device = start_adbd()
    try:
        subprocess.run([ADB, "-P", str(adb_server), "connect", device.serial], check=True, capture_output=True, timeout=30)
        yield device
    finally:
        stop_adbd(device)
