"""The phone in Chinese: system UI and app names in the locale, CJK text drawn with a real font (no boxes), Chinese
typed through the same action a device gets, and an English phone exactly as before."""

from __future__ import annotations

import pytest
from PIL import ImageChops

from mobile_r1.core import Action
from mobile_r1.core.errors import ConfigError
from mobile_r1.env.sim import SimEnv
from mobile_r1.sim.locale import money, tr, using, Catalog
from mobile_r1.sim.ui.render import Canvas, cjk_font_path, missing_glyphs, text_width, wrap

needs_cjk_font = pytest.mark.skipif(cjk_font_path() is None, reason="no CJK font (make fonts installs Debian's)")


def _labels(env: SimEnv) -> list[str]:
    return [e.label for e in env.phone.elements() if e.label]


def test_catalog_lookup_templates_and_money() -> None:
    zh = Catalog("zh", {"{n} sold": "已售 {n}", "Send": "发送"})
    assert tr("Send") == "Send" and tr("{n} sold", n=3) == "3 sold"  # no catalog: English
    with using(zh):
        assert tr("Send") == "发送" and tr("{n} sold", n=3) == "已售 3" and tr("Acme Mug") == "Acme Mug"
    assert money(66.66, "CNY") == "¥66.66" and money(1234.5) == "$1,234.50"


def test_unknown_locale_is_refused() -> None:
    with pytest.raises(ConfigError, match="unknown locale 'fr'"):
        SimEnv(locale="fr")


@needs_cjk_font
def test_system_ui_speaks_chinese_and_draws_no_boxes() -> None:
    env = SimEnv(apps=["Settings", "Notes"], seed=3, locale="zh", randomize=False)
    obs = env.reset()
    labels = _labels(env)
    assert "设置" in labels  # the app's launcher label
    assert any(label.startswith("第1天") for label in labels)  # the date line under the clock
    assert "第1天" in (obs.xml or "")  # the uiautomator dump carries the Chinese text
    for label in labels:
        assert missing_glyphs(label) == [], label
    # the Back button's content description, from the system table
    assert any(e.content_desc == "返回" for e in env.phone.elements())


@needs_cjk_font
def test_cjk_glyphs_are_not_the_missing_glyph_box_and_mixed_lines_keep_latin_in_its_font() -> None:
    text = "微信支付 转账 iPhone 16 ¥66.66 “你好”"
    assert missing_glyphs(text) == []
    assert missing_glyphs("\ue000") == ["\ue000"]  # a private-use character really is reported
    canvas = Canvas(1080, 200, 1.0, (255, 255, 255))
    canvas.text(10, 10, text, 48, (0, 0, 0))
    inked = ImageChops.invert(canvas.image.convert("L")).getbbox()
    assert inked is not None and inked[2] > 10 + 0.9 * text_width(text, 48)  # drawn across its measured width


def test_chinese_text_wraps_between_characters_and_english_wrapping_is_unchanged() -> None:
    lines = wrap("我今天起床突然嗓子好疼，鼻子也不通气。" * 3, 48, 500)
    assert len(lines) > 1 and all(text_width(line, 48) <= 500 for line in lines)
    assert "".join(lines) == "我今天起床突然嗓子好疼，鼻子也不通气。" * 3
    english = wrap("Buy the Acme Coffee Mug in Shop today", 48, 300)
    assert " ".join(english) == "Buy the Acme Coffee Mug in Shop today"  # English still breaks between words only
    assert all(text_width(a + " " + b.split(" ")[0], 48) > 300 for a, b in zip(english, english[1:]))


def test_typing_chinese_reaches_the_field_and_open_finds_an_app_by_its_chinese_name() -> None:
    env = SimEnv(apps=["Notes"], seed=1, locale="zh", randomize=False, render=False)
    env.reset(app="Notes")
    new = next(e for e in env.phone.elements() if e.resource_id and e.resource_id.endswith("new_note"))
    env.step(Action.click(*new.center))
    field = next(e for e in env.phone.elements() if e.editable)
    env.step(Action.click(*field.center))
    env.step(Action.type_text("买牛奶"))
    assert "买牛奶" in [e.text for e in env.phone.elements()]
    env.step(Action.system_button("Home"))
    assert env.phone.open("设置") is not None  # not installed here: an error, in words
    env2 = SimEnv(apps=["Settings"], seed=1, locale="zh", render=False)
    env2.reset()
    assert env2.phone.open("设置") is None and env2.phone.foreground == "settings"


def test_an_english_phone_draws_exactly_what_it_drew_before_locales() -> None:
    a = SimEnv(apps=["Shop", "Settings"], seed=5, scale=0.3)
    b = SimEnv(apps=["Shop", "Settings"], seed=5, scale=0.3, locale="en")
    oa, ob = a.reset(app="Shop"), b.reset(app="Shop")
    assert oa.xml == ob.xml and oa.screenshot.tobytes() == ob.screenshot.tobytes()
    zh = SimEnv(apps=["Shop", "Settings"], seed=5, scale=0.3, locale="zh").reset(app="Shop")
    assert zh.xml != oa.xml  # the same phone in Chinese differs in its words
