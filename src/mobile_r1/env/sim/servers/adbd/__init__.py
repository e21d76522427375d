"""The simulated phone served over the adb device protocol on TCP (`mobile-r1 sim adbd`): the real `adb` can
`adb connect` to it, and any adb-based tool can drive it. `SimDevice` is the phone and its shell (with the `simctl`
side channel that sets up and judges simulator episodes); `AdbdServer` is its adbd."""

from mobile_r1.env.sim.servers.adbd.device import ADBKEYBOARD_IME, SIMCTL_VERSION, SimDevice
from mobile_r1.env.sim.servers.adbd.server import AdbdServer

__all__ = ["AdbdServer", "SimDevice", "SIMCTL_VERSION", "ADBKEYBOARD_IME"]
