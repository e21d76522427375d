"""App labels -> Android packages: what `open WeChat` launches on a device.

A label is resolved against the packages installed on the device (`pm list packages`), in this order: a package
name given as it is; the device's own launcher labels where it can report them (the simulated device does, through
`simctl apps`); the built-in map of common apps below (the Chinese apps InquireBench uses among them: WeChat, QQ,
Taobao, Alipay, Meituan, Douyin, Xiaohongshu, JD, Pinduoduo, ...); and last a package whose name contains the label
as one of its parts (`Chrome` -> `com.android.chrome`). Labels match without case, spaces or punctuation.
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping

# label or alias (normalized by `normalize`) -> candidate packages, the most common first
_BUILTIN: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("wechat", "weixin", "微信"), ("com.tencent.mm",)),
    (("qq", "腾讯qq"), ("com.tencent.mobileqq",)),
    (("taobao", "淘宝", "手机淘宝"), ("com.taobao.taobao",)),
    (("alipay", "支付宝"), ("com.eg.android.AlipayGphone",)),
    (("meituan", "美团"), ("com.sankuai.meituan",)),
    (("douyin", "抖音"), ("com.ss.android.ugc.aweme",)),
    (("tiktok",), ("com.zhiliaoapp.musically", "com.ss.android.ugc.trill")),
    (("xiaohongshu", "xhs", "rednote", "red note", "小红书"), ("com.xingin.xhs",)),
    (("jd", "jingdong", "京东"), ("com.jingdong.app.mall",)),
    (("pinduoduo", "pdd", "拼多多"), ("com.xunmeng.pinduoduo",)),
    (("weibo", "微博", "新浪微博"), ("com.sina.weibo",)),
    (("bilibili", "哔哩哔哩", "b站"), ("tv.danmaku.bili",)),
    (("eleme", "ele.me", "饿了么"), ("me.ele",)),
    (("ctrip", "携程", "携程旅行"), ("ctrip.android.view",)),
    (("trip", "trip.com"), ("ctrip.english", "ctrip.android.view")),
    (("weipinhui", "vipshop", "唯品会"), ("com.achievo.vipshop",)),
    (("amap", "gaode", "gaode map", "高德地图", "高德"), ("com.autonavi.minimap",)),
    (("baidu map", "百度地图"), ("com.baidu.BaiduMap",)),
    (("baidu", "百度"), ("com.baidu.searchbox",)),
    (("dianping", "大众点评"), ("com.dianping.v1",)),
    (("kuaishou", "快手"), ("com.smile.gifmaker",)),
    (("didi", "滴滴", "滴滴出行"), ("com.sdu.didi.psnger",)),
    (("12306", "铁路12306"), ("com.MobileTicket",)),
    (("zhihu", "知乎"), ("com.zhihu.android",)),
    (("toutiao", "今日头条"), ("com.ss.android.article.news",)),
    (("dingtalk", "钉钉"), ("com.alibaba.android.rimet",)),
    (("feishu", "lark", "飞书"), ("com.ss.android.lark",)),
    (("qq music", "qq音乐"), ("com.tencent.qqmusic",)),
    (("netease cloudmusic", "netease cloud music", "cloudmusic", "网易云音乐"), ("com.netease.cloudmusic",)),
    (("tencent video", "腾讯视频"), ("com.tencent.qqlive",)),
    (("wetv",), ("com.tencent.qqlivei18n",)),
    (("iqiyi", "爱奇艺"), ("com.qiyi.video",)),
    (("youku", "优酷"), ("com.youku.phone",)),
    (("wps", "wps office"), ("cn.wps.moffice_eng", "cn.wps.moffice")),
    (("microsoft word", "word"), ("com.microsoft.office.word",)),
    (("youtube",), ("com.google.android.youtube",)),
    (("google maps", "google map", "maps"), ("com.google.android.apps.maps",)),
    (("amazon shopping", "amazon"), ("com.amazon.mShop.android.shopping",)),
    (("spotify",), ("com.spotify.music",)),
    (("netflix",), ("com.netflix.mediaclient",)),
    (("instagram",), ("com.instagram.android",)),
    (("x", "twitter"), ("com.twitter.android",)),
    (("facebook",), ("com.facebook.katana",)),
    (("whatsapp",), ("com.whatsapp",)),
    (("telegram",), ("org.telegram.messenger",)),
    (("grab",), ("com.grabtaxi.passenger",)),
    (("uber",), ("com.ubercab",)),
    (("gmail",), ("com.google.android.gm",)),
    (("chrome", "google chrome"), ("com.android.chrome",)),
    (("play store", "google play", "应用商店"), ("com.android.vending", "com.huawei.appmarket", "com.xiaomi.market")),
    (("settings", "setting", "设置"), ("com.android.settings",)),
    (("contacts", "联系人", "通讯录"), ("com.android.contacts", "com.google.android.contacts", "com.huawei.contacts")),
    (("phone", "dialer", "电话", "拨号"), ("com.android.dialer", "com.google.android.dialer", "com.android.contacts")),
    (("messages", "sms", "短信", "信息"), ("com.google.android.apps.messaging", "com.android.mms", "com.huawei.message")),
    (("camera", "相机"), ("com.android.camera", "com.android.camera2", "com.huawei.camera", "com.google.android.GoogleCamera")),
    (("gallery", "photos", "相册", "图库"), ("com.android.gallery3d", "com.google.android.apps.photos", "com.huawei.photos",
                                          "com.miui.gallery")),
    (("clock", "时钟", "闹钟"), ("com.android.deskclock", "com.google.android.deskclock", "com.huawei.deskclock")),
    (("calendar", "日历"), ("com.android.calendar", "com.google.android.calendar", "com.huawei.calendar")),
    (("calculator", "计算器"), ("com.android.calculator2", "com.google.android.calculator")),
    (("file manager", "files", "文件管理", "文件"), ("com.google.android.apps.nbu.files", "com.android.documentsui",
                                                  "com.huawei.hidisk", "com.mi.android.globalFileexplorer")),
    (("music player", "music", "音乐"), ("com.huawei.music", "com.android.music", "com.miui.player")),
    (("video player", "videos", "视频"), ("com.huawei.himovie", "com.miui.videoplayer")),
    (("mirror", "镜子"), ("com.huawei.mirror",)),
    (("smart remote control", "smart remote", "智能遥控"), ("com.huawei.android.remotecontroller",)),
    (("game center", "游戏中心"), ("com.huawei.gamebox", "com.xiaomi.gamecenter")),
    (("notes", "备忘录"), ("com.example.android.notepad", "com.miui.notes", "com.google.android.keep")),
)
_VENDOR_PARTS = frozenset({"com", "org", "net", "cn", "tv", "me", "android", "google", "apps", "app", "huawei",
                           "miui", "xiaomi", "samsung", "sec", "tencent", "alibaba", "mobile"})


def normalize(label: str) -> str:
    """Lower case without spaces or punctuation ('Google Maps' and 'google-maps' become 'googlemaps')."""
    return re.sub(r"[^0-9a-z\u0080-\uffff]+", "", label.lower())


BUILTIN_APPS: dict[str, tuple[str, ...]] = {normalize(name): packages for names, packages in _BUILTIN for name in names}
_BUILTIN_LABELS: dict[str, str] = {p: names[0] for names, packages in _BUILTIN for p in packages}


def _parts(package: str) -> list[str]:
    return [normalize(p) for p in package.split(".")]


def resolve_app(label: str, installed: Iterable[str], device_labels: Mapping[str, str] | None = None) -> str | None:
    """The installed package `label` names (see the module docstring), or None."""
    packages = set(installed)
    text = label.strip()
    if text in packages:
        return text
    want = normalize(text)
    if not want:
        return None
    if device_labels:
        found = device_labels.get(want)
        if found is not None and found in packages:
            return found
    for package in BUILTIN_APPS.get(want, ()):
        if package in packages:
            return package
    exact = sorted(p for p in packages if _parts(p)[-1] == want)
    if len(exact) == 1:
        return exact[0]
    partial = sorted(p for p in packages if any(part == want for part in _parts(p) if part not in _VENDOR_PARTS))
    if len(partial) == 1:
        return partial[0]
    return None


def app_label(package: str, labels: Mapping[str, str] | None = None) -> str:
    """A readable label for a package: the device's own (`labels`: package -> label), the built-in map's, or the
    package's last part."""
    if labels and package in labels:
        return labels[package]
    name = _BUILTIN_LABELS.get(package)
    if name is not None:
        return name.title() if name.isascii() else name
    return package.rsplit(".", 1)[-1]


__all__ = ["resolve_app", "app_label", "normalize", "BUILTIN_APPS"]
