"""Real phones: the `adb` backend (`make_backend("adb:SERIAL")`), its device client, app labels, task files and the
users who answer a device's `call_user`. The safety gate (`mobile_r1.env.safety`) is on by default here."""

from __future__ import annotations

from typing import Any

from mobile_r1.env.adb.backend import NAME, AdbBackend, AdbTaskEnv, sim_ref_on_adb
from mobile_r1.env.adb.device import Device, list_devices
from mobile_r1.env.adb.tasks import load_task_file
from mobile_r1.env.person import make_person
from mobile_r1.env.protocol import Backend
from mobile_r1.env.registry import register_backend
from mobile_r1.env.safety import gated


def _factory(argument: str | None, render: bool = True, scale: float = 0.3, xml: bool = False, confirm: str = "risky",
             person: str = "auto", **options: Any) -> Backend:
    """`adb[:SERIAL]`; `confirm` (risky | all | none) sets the safety gate, `person` who is asked (auto | tty | none);
    other options are `AdbBackend`'s."""
    owner = make_person(person)
    backend = AdbBackend(argument or None, render=render, scale=scale, xml=xml, person=owner, **options)
    return gated(backend, confirm, owner)


register_backend(NAME, _factory, replace=True)

__all__ = ["AdbBackend", "AdbTaskEnv", "Device", "list_devices", "load_task_file", "sim_ref_on_adb"]
