"""`uiautomator dump` XML -> UIElements: every simulated screen parses back into the elements the simulator reports,
and broken dumps say what is wrong."""

from __future__ import annotations

import pytest

from mobile_r1.core.errors import DataError
from mobile_r1.core.formats.uixml import parse_ui_tree, parse_ui_xml
from mobile_r1.sim.apps import load_all
from mobile_r1.sim.tools import render_screen

ANDROID_DUMP = """<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">
<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.tencent.mm" content-desc=""
 checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false"
 long-clickable="false" password="false" selected="false" bounds="[0,0][1080,2400]">
<node index="0" text="搜索" resource-id="com.tencent.mm:id/search" class="android.widget.AutoCompleteTextView"
 package="com.tencent.mm" content-desc="" checkable="false" checked="false" clickable="true" enabled="true"
 focusable="true" focused="true" scrollable="false" long-clickable="true" password="false" selected="false"
 bounds="[24,120][1056,220]" />
<node index="1" text="" resource-id="" class="android.widget.ImageButton" package="com.tencent.mm"
 content-desc="发送" checkable="false" checked="false" clickable="true" enabled="false" focusable="true" focused="false"
 scrollable="false" long-clickable="false" password="false" selected="false" bounds="[900,2200][1060,2380]" />
</node></hierarchy>
UI hierchary dumped to: /sdcard/window_dump.xml"""


def test_every_simulated_screen_parses_back_into_its_elements() -> None:
    screens = 0
    for name, cls in load_all().items():
        for screen in list(cls().screens())[:4]:
            try:
                phone = render_screen(name, screen, 0, True)
            except Exception:  # a screen that needs parameters to open
                continue
            assert [e.to_dict() for e in parse_ui_xml(phone.xml())] == [e.to_dict() for e in phone.elements()]
            screens += 1
    assert screens > 20


def test_an_android_dump_with_trailing_output() -> None:
    tree = parse_ui_tree(ANDROID_DUMP)
    frame, search, send = tree.elements
    assert tree.packages == ["com.tencent.mm"] * 3
    assert (search.parent, send.parent, frame.parent) == (0, 0, None)
    assert search.editable and search.focused and search.long_clickable and search.label == "搜索"
    assert not send.editable and not send.enabled and send.label == "发送" and send.bounds == (900, 2200, 1060, 2380)


@pytest.mark.parametrize("text, problem", [
    ("", "empty"),
    ("ERROR: null root node returned by UiTestAutomationBridge.", "not uiautomator XML"),
    (ANDROID_DUMP[:400], "truncated"),
    ("<?xml version='1.0'?><window></window>", "not <hierarchy>"),
    ('<hierarchy><node class="x" bounds="[0,0]"/></hierarchy>', "no bounds"),
])
def test_broken_dumps_say_what_is_wrong(text: str, problem: str) -> None:
    with pytest.raises(DataError, match=problem):
        parse_ui_xml(text)
