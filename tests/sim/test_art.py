"""The screens' pictures and icons (`sim/ui/art.py`): drawn from what an item is, so items differ and the same item
looks the same everywhere; the status bar shows drawn indicators; app icons carry their app's mark; and the element
tree, what text agents and uiautomator read, keeps its nodes and labels."""

from __future__ import annotations

from PIL import Image, ImageChops, ImageStat

from mobile_r1.sim.system import Phone
from mobile_r1.sim.ui import art


def _differ(a: Image.Image, b: Image.Image) -> float:
    """Mean absolute difference of two images per channel (0: identical)."""
    return sum(ImageStat.Stat(ImageChops.difference(a.convert("RGB"), b.convert("RGB"))).mean) / 3


def test_a_picture_is_drawn_from_what_it_shows_the_same_each_time() -> None:
    colour = (200, 120, 90)
    first = art.picture("Nova Bluetooth Headphones", colour, "product", 120, 120)
    again = art.picture("Nova Bluetooth Headphones", colour, "product", 120, 120)
    assert first.size == (120, 120) and _differ(first, again) == 0
    for other in ("Luma Running Shoes", "Acme Coffee Mug", "蓝牙耳机 2025新款"):
        assert _differ(first, art.picture(other, colour, "product", 120, 120)) > 5, other
    stat = ImageStat.Stat(first.convert("L"))
    assert stat.stddev[0] > 10  # a drawing, not a flat tile


def test_kinds_read_from_the_words_in_both_languages() -> None:
    assert art.subject("Acme Running Shoes")[0] == art.subject("运动鞋 经典款")[0] is not None
    assert art.subject("Sunset at the beach")[1] is not None  # a scene
    photo = art.picture("Sunset at the beach", (90, 140, 200), "photo", 160, 120)
    avatar = art.picture("Grace Li", (90, 140, 200), "avatar", 120, 120)
    assert _differ(photo.resize((120, 120)), avatar) > 5


def test_the_status_bar_draws_icons_but_keeps_its_labels() -> None:
    phone = Phone(apps=["notes"], seed=0, randomize=False)
    labels = [(e.text, e.content_desc) for e in phone.elements() if e.resource_id.endswith("status_bar")
              or e.text in ("WiFi", "87%")]
    assert ("WiFi", "Wifi signal full") in labels and ("87%", "Battery 87 percent") in labels
    shot = phone.screenshot(1.0)
    battery = next(e for e in phone.elements() if e.text == "87%")
    x1, y1, x2, y2 = battery.bounds
    region = shot.crop((x1, y1, x2, y2)).convert("L")
    assert ImageStat.Stat(region).stddev[0] > 20  # something is drawn where the battery is


def test_app_icons_carry_their_apps_marks_and_differ() -> None:
    phone = Phone(seed=0, randomize=False)  # every app registered: the launcher's tiles
    marks = {key: art.mark_for(app.icon or app.name, tuple(int(app.color[i:i + 2], 16) for i in (1, 3, 5)))
             for key, app in phone.apps.items()}
    assert marks["wechat"] is not None and marks["taobao"] is not None
    wechat, taobao = art.app_icon(marks["wechat"], 96), art.app_icon(marks["taobao"], 96)  # type: ignore[arg-type]
    assert wechat.size == taobao.size == (96, 96) and _differ(wechat, taobao) > 10


def test_a_screen_of_pictures_keeps_its_image_nodes_and_labels_and_draws_the_same_each_time() -> None:
    """Pictures change pixels only: the tree keeps its image nodes and the status bar's labels, and the same phone
    draws the same pixels."""
    phone = Phone(apps=["taobao"], seed=0, randomize=False, locale="zh")
    phone.goto("taobao", "home")
    xml = phone.xml()
    assert xml.count('class="android.widget.ImageView"') >= 4
    assert 'text="WiFi"' in xml and 'text="87%"' in xml
    again = Phone(apps=["taobao"], seed=0, randomize=False, locale="zh")
    again.goto("taobao", "home")
    assert again.xml() == xml and _differ(again.screenshot(0.3), phone.screenshot(0.3)) == 0
