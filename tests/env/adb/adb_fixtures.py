"""Helpers of the real-device tests: the real `adb` binary, and the simulated phone served by `mobile-r1 sim adbd --port 0`
in a subprocess (its first line names the port)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass


ADB = shutil.which("adb")


@dataclass
class SimulatedDevice:
    serial: str
    port: int
    process: subprocess.Popen[str]

    def simctl(self, *args: str) -> str:
        """A side-channel command through the adb server (as the backend sends them)."""
        from mobile_r1.env.adb import Device

        return Device(self.serial).simctl(*args)


def start_adbd(*options: str) -> SimulatedDevice:
    """`mobile-r1 sim adbd --port 0 OPTIONS` in a subprocess; its first line names the port."""
    process = subprocess.Popen([sys.executable, "-m", "mobile_r1.cli.main", "sim", "adbd", "--port", "0",
                                "--capture-scale", "0.5", *options],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    if not line.startswith("adbd listening on "):
        process.kill()
        raise AssertionError(f"mobile-r1 sim adbd did not start: {line!r}")
    address = line.rsplit(" ", 1)[1]
    return SimulatedDevice(address, int(address.rsplit(":", 1)[1]), process)


def stop_adbd(device: SimulatedDevice) -> None:
    device.process.terminate()
    try:
        device.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        device.process.kill()
