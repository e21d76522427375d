"""Pieces of the adb backend that need no device: app labels, task files, the text `input text` gets, the
simulated user's messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mobile_r1.core.errors import ConfigError, DataError
from mobile_r1.env import EpisodeRef
from mobile_r1.env.adb.apps import app_label, resolve_app
from mobile_r1.env.adb.device import adbkeyboard_broadcast, is_network_serial, quote_text
from mobile_r1.env.adb.tasks import load_task_file
from mobile_r1.env.adb.users import OpenAIUser
from mobile_r1.env.sim.servers.adbd import SimDevice
from mobile_r1.env.sim.servers.adbd.shell import tokenize
from mobile_r1.serve import LoopbackServer, ScriptedModel

INSTALLED = {"com.tencent.mm", "com.eg.android.AlipayGphone", "com.android.chrome", "com.sim.wallet",
             "com.google.android.apps.maps", "com.android.settings", "com.ss.android.ugc.aweme"}


@pytest.mark.parametrize("label, package", [
    ("WeChat", "com.tencent.mm"), ("微信", "com.tencent.mm"), ("weixin", "com.tencent.mm"), ("支付宝", "com.eg.android.AlipayGphone"),
    ("Douyin", "com.ss.android.ugc.aweme"), ("抖音", "com.ss.android.ugc.aweme"), ("Google Maps", "com.google.android.apps.maps"),
    ("Chrome", "com.android.chrome"), ("wallet", "com.sim.wallet"), ("com.android.settings", "com.android.settings"),
    ("Taobao", None), ("android", None),
])
def test_app_labels_resolve_to_installed_packages(label: str, package: str | None) -> None:
    assert resolve_app(label, INSTALLED) == package


def test_the_devices_own_labels_come_first() -> None:
    assert resolve_app("Bank", INSTALLED, {"bank": "com.sim.wallet"}) == "com.sim.wallet"
    assert app_label("com.tencent.mm") == "Wechat" and app_label("com.sim.wallet", {"com.sim.wallet": "Wallet"}) == "Wallet"
    assert app_label("org.example.thing") == "thing"


def test_input_text_arguments_survive_the_devices_shell() -> None:
    device = SimDevice(seed=1)
    for text in ("it's 50% done", 'say "hi" & go; now $HOME', "a\\b"):
        words = [t.text for t in tokenize("input text " + quote_text(text))]
        assert words[:2] == ["input", "text"] and words[2].replace("%s", " ") == text
    assert b"ADB_INPUT_B64" in device.run_line(adbkeyboard_broadcast("你好"))
    assert is_network_serial("192.168.1.7:5555") and is_network_serial("127.0.0.1:40001")
    assert not is_network_serial("emulator-5554") and not is_network_serial("R58M123ABC")


def test_inquirebench_task_files_load_as_they_are(shared_dir: Path) -> None:
    refs = load_task_file(shared_dir / "data" / "inquirebench" / "tasks_en.jsonl")
    assert len(refs) == 95 and refs[0].id == "tasks_en-000" and refs[0].backend == "adb"
    first = json.loads((shared_dir / "data" / "inquirebench" / "tasks_en.jsonl").read_text().splitlines()[0])
    assert refs[0].instruction == first["instruction"] and list(refs[0].apps) == first["apps"]
    assert refs[0].meta["intension"] == first["intension"] and refs[0].meta["need_login"] == first["need_login"]
    assert refs[0].category == first["category"] and refs[0].language == "en"
    assert EpisodeRef.from_dict(json.loads(json.dumps(refs[0].to_dict()))) == refs[0]


def test_our_own_task_files(tmp_path: Path) -> None:
    txt = tmp_path / "mine.txt"
    txt.write_text("# comment\nTurn on Wi-Fi\n\n打开微信\n")
    refs = load_task_file(txt)
    assert [(r.id, r.instruction, r.language) for r in refs] == [("mine-000", "Turn on Wi-Fi", "en"),
                                                                ("mine-001", "打开微信", "zh")]
    jsonl = tmp_path / "more.jsonl"
    jsonl.write_text(json.dumps({"id": "pay", "instruction": "Pay the bill", "apps": "Wallet", "max_steps": 9,
                                 "intension": "Pay the March bill", "needs_inquiry": True}) + "\n")
    (ref,) = load_task_file(jsonl)
    assert (ref.id, ref.apps, ref.max_steps, ref.needs_inquiry, ref.meta["intension"]) == (
        "pay", ("Wallet",), 9, True, "Pay the March bill")
    yaml_file = tmp_path / "t.yaml"
    yaml_file.write_text("tasks:\n  - instruction: Open the calendar\n")
    assert load_task_file(yaml_file)[0].instruction == "Open the calendar"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"instruction": "x", "colour": "red"}\n')
    with pytest.raises(DataError, match="unknown field 'colour'"):
        load_task_file(bad)
    bad.write_text('{"apps": []}\n')
    with pytest.raises(DataError, match="needs an 'instruction'"):
        load_task_file(bad)
    with pytest.raises(ConfigError, match="no task file"):
        load_task_file(tmp_path / "missing.jsonl")


def test_the_simulated_user_is_told_the_intent_in_the_tasks_language() -> None:
    backend = ScriptedModel(["Yes, Ann Lee."])
    episode = EpisodeRef("e", "给安发消息", "e", "adb", language="zh", meta={"intension": "给安·李发“你好”"})
    with LoopbackServer(backend, model_name="user") as server:
        user = OpenAIUser("user", base_url=server.base_url)
        assert user.answer("哪个安？", episode) == "Yes, Ann Lee."
    system, question = backend.requests[0][0]
    assert "给安·李发“你好”" in system.text and "给安发消息" in system.text and "主人" in system.text
    assert question.text == "哪个安？"
    with pytest.raises(ConfigError, match="needs a model"):
        OpenAIUser("")
