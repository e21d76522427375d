"""The phone's languages: `en` (the source text) and `zh`, each string a screen shows looked up in a locale table.

Screens are written in English. A `Catalog` maps an English string to its text in one locale: the system's table
(launcher, dialogs, permission prompts, keyboard, the words every app uses) under the app's own table (`App.strings`).
While the phone builds a screen it makes the app's catalog current (`using`), and every widget translates the text,
label, hint and content description it is given (`tr`); handlers translate their toasts and dialogs through the
`Ctx`. In English nothing is looked up, so an English phone draws exactly what it always drew.

A string with values in it is a template: `tr("{n} sold", n=1234)`; its table entry keeps the placeholders
(`"{n} sold": "已售 {n}"`). Money is written by `money` in the app's currency (`USD` as `$12.50`, `CNY` as
`¥66.66`), the same in both languages.
"""

from __future__ import annotations

import contextlib
from contextvars import ContextVar
from typing import Iterator, Mapping

from mobile_r1.core.errors import ConfigError

LOCALES: tuple[str, ...] = ("en", "zh")
CURRENCIES: dict[str, str] = {"USD": "$", "CNY": "¥"}


class Catalog:
    """The strings of one locale for one app (its table over the system's); English strings are the keys."""

    __slots__ = ("locale", "table")

    def __init__(self, locale: str, table: Mapping[str, str]) -> None:
        self.locale = locale
        self.table = dict(table)

    def get(self, text: str) -> str:
        """`text` in this locale, or `text` itself where the table has no entry (names, user data)."""
        return self.table.get(text, text)

    def format(self, template: str, **values: object) -> str:
        return self.get(template).format(**values) if values else self.get(template)


_CURRENT: ContextVar[Catalog | None] = ContextVar("catalog", default=None)


def check_locale(locale: str) -> str:
    if locale not in LOCALES:
        raise ConfigError(f"unknown locale {locale!r}; the phone speaks {', '.join(LOCALES)}")
    return locale


@contextlib.contextmanager
def using(catalog: Catalog | None) -> Iterator[None]:
    """Build widgets with `catalog` current (None: English, nothing translated)."""
    token = _CURRENT.set(catalog)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def tr(text: str, **values: object) -> str:
    """`text` in the current catalog's locale, with `values` filled into its placeholders."""
    catalog = _CURRENT.get()
    if catalog is None:
        return text.format(**values) if values else text
    return catalog.format(text, **values)


def current_locale() -> str:
    catalog = _CURRENT.get()
    return "en" if catalog is None else catalog.locale


def money(value: float, currency: str = "USD") -> str:
    """'$12.50' or '¥66.66' (thousands separated), whatever the language."""
    return f"{CURRENCIES.get(currency, currency + ' ')}{value:,.2f}"


# The system's own table: what the launcher, the status and navigation bars, the keyboard, dialogs and permission
# prompts show, and the words most apps share (so that an app's table holds only its own).
SYSTEM_ZH: dict[str, str] = {
    # launcher, recents, navigation, status bar
    "No apps here": "这里没有应用", "Recent apps": "最近任务", "No recent items": "没有最近任务",
    "Clear all": "全部清除", "Remove {app}": "移除{app}", "Page {n}": "第 {n} 页", "Back": "返回", "Home": "主屏幕",
    "Overview": "概览", "Navigate up": "向上导航", "Bluetooth on": "蓝牙已开启", "Wifi signal full": "WLAN 信号满格",
    "No wifi": "无 WLAN", "Battery 87 percent": "电量 87%", "Day {day} \u00b7 Sunny 22\u00b0": "第{day}天 \u00b7 晴 22\u00b0",
    "Loading...": "加载中...", "Unknown screen '{screen}'": "未知页面“{screen}”",
    # keyboard
    "Delete": "删除", "Space": "空格", "space": "空格", "Enter": "换行",
    # dialogs, permissions, ads
    "OK": "确定", "Cancel": "取消", "Yes": "是", "No": "否", "Close": "关闭", "Allow": "允许", "Don't allow": "不允许",
    "Allow {app} to access {permission}?": "允许“{app}”访问{permission}？", "{permission} permission denied": "{permission}权限被拒绝",
    "camera": "相机", "location": "位置信息", "microphone": "麦克风", "contacts": "通讯录", "storage": "存储",
    "notifications": "通知", "photos": "照片", "Ad": "广告", "Close ad": "关闭广告", "Advertisement": "广告",
    "Special offer": "特别优惠", "View offer": "查看优惠", "View": "查看", "50% off everything today!": "今日全场五折！",
    "You won a free coupon!": "恭喜获得一张免费优惠券！", "Upgrade to Premium now": "立即升级会员",
    "Flash sale ends in 10 minutes": "限时秒杀 10 分钟后结束", "Claim your welcome gift": "领取新人礼包", "SALE": "特惠",
    # the login wall every app has
    "Log in to {app}": "登录{app}", "Welcome to {app}": "欢迎使用{app}", "Log in to continue": "登录后继续",
    "Phone number or email": "手机号或邮箱", "Password": "密码", "Log in": "登录",
    "Enter your account and password": "请输入账号和密码",
    # words many apps share
    "Search": "搜索", "Settings": "设置", "Share": "分享", "Send": "发送", "Save": "保存", "Edit": "编辑",
    "Done": "完成", "Confirm": "确认", "Next": "下一步", "More": "更多", "Me": "我", "Profile": "个人资料",
    "Messages": "消息", "Contacts": "联系人", "Favorites": "收藏", "Like": "点赞", "Liked": "已点赞",
    "Comment": "评论", "Follow": "关注", "Following": "已关注", "Pay": "支付", "Pay now": "立即支付",
    "Payment password": "支付密码", "Wrong payment password": "支付密码错误", "Amount": "金额", "Note": "备注",
    "Title": "标题", "Search results": "搜索结果", "No results": "无结果", "Add": "添加", "Remove": "移除",
    "Open": "打开", "Play": "播放", "Pause": "暂停", "Subscribe": "订阅", "Name": "姓名", "Phone": "电话",
    "Call": "呼叫", "Today": "今天", "Yesterday": "昨天", "Sort": "排序", "Filter": "筛选", "Price": "价格",
    "Sales": "销量", "Default": "综合", "Rating": "评分", "Details": "详情", "Cart": "购物车", "Orders": "订单",
    "Add to cart": "加入购物车", "Added to cart": "已加入购物车", "Buy now": "立即购买", "Checkout": "结算",
    "Place order": "提交订单", "Added to favorites": "已收藏", "Removed from favorites": "已取消收藏",
    "Image": "图片", "image": "图片", "Photo": "照片", "Video": "视频", "Camera": "相机", "Gallery": "相册",
    "Storage": "存储", "Uninstall": "卸载", "Account": "账号", "Log out": "退出登录", "Logged in": "已登录",
}

_TABLES: dict[str, dict[str, str]] = {"en": {}, "zh": SYSTEM_ZH}


def system_catalog(locale: str) -> Catalog | None:
    """The system's catalog (None for English, which needs none)."""
    check_locale(locale)
    return None if locale == "en" else _system_catalogs.setdefault(locale, Catalog(locale, _TABLES[locale]))


_system_catalogs: dict[str, Catalog] = {}


def app_catalog(locale: str, key: str, own: Mapping[str, Mapping[str, str]]) -> Catalog | None:
    """App `key`'s catalog: its own table (`own[locale]`, from its class and archetype) over the system's."""
    check_locale(locale)
    if locale == "en":
        return None
    cached = _app_catalogs.get((locale, key))
    if cached is None:
        cached = Catalog(locale, {**_TABLES[locale], **own.get(locale, {})})
        _app_catalogs[(locale, key)] = cached
    return cached


_app_catalogs: dict[tuple[str, str], Catalog] = {}

__all__ = ["LOCALES", "Catalog", "using", "tr", "money", "current_locale", "check_locale", "system_catalog",
           "app_catalog", "SYSTEM_ZH"]
