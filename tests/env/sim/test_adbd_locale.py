"""A Chinese simulated phone over adb (`mobile-r1 sim adbd --locale zh`): the device says its locale, every app
opens by its own package through adbutils' `monkey -p`, the UI tree carries Chinese labels, and a tap on a launcher
icon found in that tree opens the app, as a client that reads the screen does."""

from __future__ import annotations

from typing import Iterator

import adbutils
import pytest

from mobile_r1.core.formats.uixml import parse_ui_xml
from mobile_r1.env.sim.servers.adbd import SimDevice

from adbd_clients import Connected, adb_connected

pytestmark = pytest.mark.slow  # an adb server and a device per module


@pytest.fixture(scope="module")
def phone() -> Iterator[Connected]:
    yield from adb_connected(SimDevice(seed=1, capture_scale=0.3, locale="zh"))


@pytest.fixture
def au(phone: Connected) -> adbutils.AdbDevice:
    device = adbutils.AdbClient(host="127.0.0.1", port=phone.adb_port).device(phone.serial)
    device.shell("simctl reset 1")
    return device


def test_the_device_says_it_speaks_chinese(au: adbutils.AdbDevice) -> None:
    assert au.shell("getprop persist.sys.locale") == "zh-CN"


def test_every_app_opens_by_its_own_package_on_the_chinese_phone(phone: Connected, au: adbutils.AdbDevice) -> None:
    apps = list(phone.server.device.phone.apps.values())
    assert len(apps) >= 50
    for app in apps:
        au.app_start(app.package)  # monkey -p PKG -c android.intent.category.LAUNCHER 1
        assert au.app_current().package == app.package, app.name
        au.shell("input keyevent HOME")


def test_a_launcher_icon_read_from_the_ui_tree_opens_its_app(phone: Connected, au: adbutils.AdbDevice) -> None:
    au.shell("input keyevent HOME")
    elements = parse_ui_xml(au.shell("uiautomator dump /dev/tty").rsplit("UI hier", 1)[0])
    by_label = {app.label("zh"): app.package for app in phone.server.device.phone.apps.values()}
    icons = [e for e in elements if e.clickable and e.text in by_label and any("\u4e00" <= ch <= "\u9fff" for ch in e.text)]
    assert icons, "the launcher shows Chinese app names"
    icon = icons[0]
    au.click(*icon.center)
    assert au.app_current().package == by_label[icon.text]
    screen = parse_ui_xml(au.shell("uiautomator dump /dev/tty").rsplit("UI hier", 1)[0])
    assert any(any("\u4e00" <= ch <= "\u9fff" for ch in (e.text or e.content_desc or "")) for e in screen)


def test_the_cli_refuses_a_language_the_phone_does_not_speak(capsys: pytest.CaptureFixture[str]) -> None:
    from mobile_r1.cli.main import main

    assert main(["sim", "adbd", "--port", "0", "--locale", "fr"]) == 2
    assert "speaks en or zh" in capsys.readouterr().err
