"""Loaders for the field's datasets, each read from a small file its test writes in the real format.

AndroidControl and AITW are GZIP TFRecord files of tf.train.Example records written with the `tfrecord` package;
AndroidControl's accessibility forests are encoded here by hand from android_env's field numbers (so the loader's
schema is checked against the proto, not against itself); the parquet mirror is written with pyarrow; GUI-Odyssey,
AMEX and the Mobile-R1 release are JSON as their cards describe.
"""

from __future__ import annotations

import base64
import gzip
import io
import json
from pathlib import Path

import pytest
from PIL import Image

from mobile_r1.agents import AgentOutput, register_agent
from mobile_r1.agents.base import Agent
from mobile_r1.cli.main import main
from mobile_r1.core.actions import Action
from mobile_r1.core.dialects import ParseResult
from mobile_r1.core.errors import DataError
from mobile_r1.core.formats import EncodedImage, detect_format, field_matcher, load_any, save_episodes

tfrecord_writer = pytest.importorskip("tfrecord.writer")


# ----- writers of the real formats ----------------------------------------------------------------------------------
def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _int(number: int, value: int) -> bytes:
    return _varint(number << 3) + _varint(value)


def _bytes(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def forest(*windows: list[dict]) -> bytes:
    """An AndroidAccessibilityForest (android_env/proto/a11y) with one window per list of nodes."""
    out = b""
    for layer, nodes in enumerate(windows):
        tree = b""
        for node in nodes:
            left, top, right, bottom = node["bounds"]
            rect = _int(1, left) + _int(2, top) + _int(3, right) + _int(4, bottom)
            body = _int(1, node["id"]) + _bytes(2, rect) + _bytes(3, node.get("class", "android.view.View").encode())
            body += _bytes(7, node.get("text", "").encode()) + _bytes(4, node.get("desc", "").encode())
            body += _int(14, int(node.get("clickable", False))) + _int(23, int(node.get("visible", True)))
            if node.get("children"):
                body += _bytes(25, b"".join(_varint(c) for c in node["children"]))
            tree += _bytes(1, body)
        out += _bytes(1, _int(4, layer) + _bytes(11, tree))
    return out


def png(width: int, height: int, color: tuple[int, int, int]) -> bytes:
    stream = io.BytesIO()
    Image.new("RGB", (width, height), color).save(stream, format="PNG")
    return stream.getvalue()


def write_gzip_tfrecord(path: Path, records: list[dict]) -> Path:
    plain = path.with_suffix(".plain")
    writer = tfrecord_writer.TFRecordWriter(str(plain))
    for record in records:
        writer.write(record)
    writer.close()
    path.write_bytes(gzip.compress(plain.read_bytes()))
    plain.unlink()
    return path


HOME_NODES = [
    {"id": 0, "bounds": (0, 0, 1080, 2400), "children": [1, 2]},
    {"id": 1, "bounds": (100, 600, 300, 800), "text": "Clock", "desc": "Clock", "clickable": True},
    {"id": 2, "bounds": (400, 600, 600, 800), "text": "Hidden", "visible": False},
]
LIST_NODES = [{"id": 0, "bounds": (0, 0, 1080, 2400), "children": [1]},
              {"id": 1, "bounds": (0, 200, 1080, 400), "text": "Alarm 7:00", "clickable": True}]


def android_control_file(tmp_path: Path) -> Path:
    actions = [
        {"action_type": "open_app", "app_name": "Clock"},
        {"action_type": "scroll", "direction": "down"},
        {"action_type": "click", "x": 540, "y": 300},
        {"action_type": "input_text", "text": "wake up"},
        {"action_type": "navigate_back"},
        {"action_type": "wait"},
    ]
    shots = [png(108, 240, (i * 30, 0, 0)) for i in range(len(actions) + 1)]
    record = {
        "episode_id": (17, "int"),
        "goal": (b"Turn off the 7:00 alarm", "byte"),
        "screenshots": (shots, "byte"),
        "accessibility_trees": ([forest(HOME_NODES)] + [forest(LIST_NODES)] * len(actions), "byte"),
        "screenshot_widths": ([1080] * len(shots), "int"),
        "screenshot_heights": ([2400] * len(shots), "int"),
        "actions": ([json.dumps(a).encode() for a in actions], "byte"),
        "step_instructions": ([f"step {i}".encode() for i in range(len(actions))], "byte"),
    }
    return write_gzip_tfrecord(tmp_path / "android_control-00000-of-00020", [record])


def android_control_parquet(tmp_path: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    action = pa.struct([("action_type", pa.string()), ("app_name", pa.string()), ("direction", pa.string()),
                        ("text", pa.string()), ("x", pa.int64()), ("y", pa.int64())])
    none = {"app_name": None, "direction": None, "text": None, "x": None, "y": None}
    rows = [{
        "episode_id": 5, "goal": "Open the settings",
        "screenshots_b64": [base64.b64encode(png(1080, 2400, (0, 0, 0))).decode()] * 3,
        "actions": [{**none, "action_type": "click", "x": 500, "y": 600}, {**none, "action_type": "scroll", "direction": "up"}],
        "step_instructions": ["tap settings", "scroll up"],
    }]
    schema = pa.schema([("episode_id", pa.int64()), ("goal", pa.string()), ("screenshots_b64", pa.list_(pa.string())),
                        ("actions", pa.list_(action)), ("step_instructions", pa.list_(pa.string()))])
    path = tmp_path / "train-00000-of-00001.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    return path


def aitw_file(tmp_path: Path) -> Path:
    width, height = 36, 80
    pixels = bytes([200, 10, 10]) * (width * height)

    def step(step_id: int, action_type: int, touch: tuple[float, float], lift: tuple[float, float], text: str = "") -> dict:
        return {
            "episode_id": (b"ep-9", "byte"), "episode_length": (4, "int"), "step_id": (step_id, "int"),
            "goal_info": (b"search for hotels", "byte"), "current_activity": (b"com.android.chrome/.Main", "byte"),
            "device_type": (b"Pixel 6", "byte"), "android_api_level": (30, "int"),
            "image/height": (height, "int"), "image/width": (width, "int"), "image/channels": (3, "int"),
            "image/encoded": (pixels, "byte"),
            "image/ui_annotations_positions": ([0.1, 0.2, 0.1, 0.5, 0.5, 0.0, 0.2, 1.0], "float"),
            "image/ui_annotations_text": ([b"Search", b""], "byte"),
            "image/ui_annotations_ui_types": ([b"TEXT", b"ICON_LIST"], "byte"),
            "results/action_type": (action_type, "int"), "results/type_action": (text.encode(), "byte"),
            "results/yx_touch": (list(touch), "float"), "results/yx_lift": (list(lift), "float"),
        }

    # written out of order: the loader orders an episode's records by step_id
    records = [step(1, 3, (-1, -1), (-1, -1), "hotels"), step(0, 4, (0.15, 0.4), (0.16, 0.41)),
               step(2, 4, (0.8, 0.5), (0.2, 0.5)), step(3, 10, (-1, -1), (-1, -1))]
    return write_gzip_tfrecord(tmp_path / "general-0000-of-0010", records)


def odyssey_folder(tmp_path: Path) -> Path:
    root = tmp_path / "GUI-Odyssey"
    (root / "annotations").mkdir(parents=True)
    (root / "screenshots").mkdir()
    for name in ("a_0.png", "a_1.png", "a_2.png", "a_3.png", "a_4.png"):
        (root / "screenshots" / name).write_bytes(png(54, 120, (0, 90, 0)))
    steps = [
        {"step": 0, "screenshot": "a_0.png", "action": "CLICK", "info": [[500, 250]], "ps": ""},
        {"step": 1, "screenshot": "a_1.png", "action": "SCROLL", "info": [[500, 800], [500, 200]], "ps": "..."},
        {"step": 2, "screenshot": "a_2.png", "action": "TEXT", "info": "new york fashion week", "ps": ""},
        {"step": 3, "screenshot": "a_3.png", "action": "CLICK", "info": "KEY_HOME", "ps": ""},
        {"step": 4, "screenshot": "a_4.png", "action": "COMPLETE", "info": "", "ps": "done"},
    ]
    record = {"episode_id": "a", "device_info": {"product": "sdk", "release_version": "34", "sdk_version": "x",
                                                 "h": 2400, "w": 1080, "device_name": "Pixel 7 Pro"},
              "task_info": {"category": "Multi_Apps", "app": ["DuckDuckgo", "TickTick"], "meta_task": "Search for {}.",
                            "task": "Search for NYFW.", "instruction": "Use DuckDuckgo to find NYFW dates."},
              "step_length": len(steps), "steps": steps}
    (root / "annotations" / "a.json").write_text(json.dumps(record), encoding="utf-8")
    return root


def amex_folder(tmp_path: Path) -> Path:
    root = tmp_path / "AMEX"
    (root / "instruction_anno").mkdir(parents=True)
    (root / "screenshot").mkdir()
    for i in range(4):
        (root / "screenshot" / f"ep_{i}.png").write_bytes(png(54, 120, (0, 0, 90)))
    dim = [1080, 2400]
    steps = [
        {"step_id": 0, "image_path": "ep_0.png", "action": "TAP", "touch_coord": [540, 1200], "lift_coord": [540, 1200], "device_dim": dim},
        {"step_id": 1, "image_path": "ep_1.png", "action": "SWIPE", "touch_coord": [540, 1800], "lift_coord": [540, 600], "device_dim": dim},
        {"step_id": 2, "image_path": "ep_2.png", "action": "TYPE", "type_text": "coffee", "touch_coord": [-1, -1], "lift_coord": [-1, -1], "device_dim": dim},
        {"step_id": 3, "image_path": "ep_3.png", "action": "TASK_COMPLETE", "touch_coord": [-1, -1], "lift_coord": [-1, -1], "device_dim": dim},
    ]
    record = {"episode_id": "ep", "instruction": "Search coffee on the map", "steps": steps}
    (root / "instruction_anno" / "ep.json").write_text(json.dumps(record), encoding="utf-8")
    return root


def mobile_r1_release(tmp_path: Path) -> Path:
    root = tmp_path / "Mobile-R1"
    (root / "images").mkdir(parents=True)
    for name in ("1_0.png", "1_1.png"):
        (root / "images" / name).write_bytes(png(72, 160, (9, 9, 9)))
    call = lambda args: json.dumps({"name": "mobile_use", "arguments": args}, ensure_ascii=False)  # noqa: E731
    record = {"app_name": "闲鱼", "trajectory_length": 2, "instruction": "打开闲鱼搜索GTX 5090", "system": "你是一个手机助手",
              "image_width": 1080, "image_height": 2400, "trajectory": [
                  {"image": "1_0.png", "thought": "桌面", "subtask": "打开闲鱼", "action": call({"action": "Tap", "coordinate": [546, 1204]}),
                   "response": "<think>桌面</think><action>打开闲鱼</action><tool_call>...</tool_call>"},
                  {"image": "1_1.png", "thought": "完成", "subtask": "结束", "action": call({"action": "Terminate", "status": "success"}),
                   "response": "..."}]}
    (root / "data.jsonl").write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    return root / "data.jsonl"


# ----- the loaders ----------------------------------------------------------------------------------------------------
def test_android_control_tfrecord(tmp_path: Path) -> None:
    path = android_control_file(tmp_path)
    assert detect_format(path) == "android-control" and field_matcher("android-control") == "qwen-ac"
    name, episodes = load_any(path)
    (episode,) = episodes
    assert (episode.id, episode.instruction, episode.screen_size) == ("17", "Turn off the 7:00 alarm", (1080, 2400))
    actions = [s.action for s in episode.steps]
    assert actions[0] == Action.open("Clock")
    # scroll down = the view moves down, the finger up: from the centre to the top edge
    assert actions[1] == Action.swipe(540, 1200, 540, 0)
    assert actions[2] == Action.click(540, 300) and episode.steps[2].bbox == (0, 200, 1080, 400)
    assert actions[3:] == [Action.type_text("wake up"), Action.back(), Action.wait()]
    first = episode.steps[0].observation
    assert [e.text for e in first.elements] == ["", "Clock"]  # invisible nodes are left out
    assert first.elements[1].parent == 0 and first.elements[1].clickable
    assert isinstance(first.screenshot, EncodedImage) and first.screenshot.size == (108, 240)
    assert [s.description for s in episode.steps][:2] == ["step 0", "step 1"]


def test_android_control_parquet_mirror(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    path = android_control_parquet(tmp_path)
    name, (episode,) = load_any(path)
    assert name == "android-control-parquet"
    assert [s.action for s in episode.steps] == [Action.click(500, 600), Action.swipe(540, 1200, 540, 2400)]
    assert episode.steps[0].observation.screen_size == (1080, 2400)  # read from the PNG header


def test_aitw_tfrecord(tmp_path: Path) -> None:
    path = aitw_file(tmp_path)
    assert detect_format(path) == "aitw" and field_matcher("aitw") == "aitw"
    name, (episode,) = load_any(path)
    assert (episode.id, episode.instruction, episode.screen_size) == ("ep-9", "search for hotels", (36, 80))
    actions = [s.action for s in episode.steps]
    # step 0: touch and lift 0.014 apart -> a tap at the touch point (x 0.4 * 36, y 0.15 * 80)
    assert actions[0] == Action.click(14, 12)
    assert episode.steps[0].bbox == (7, 8, 25, 16)  # the annotation box (y .1, x .2, h .1, w .5) holding it
    assert actions[1] == Action.type_text("hotels")
    # the finger goes from y 0.8 up to y 0.2: the swipe is that motion, unchanged
    assert actions[2] == Action.swipe(18, 64, 18, 16)
    assert actions[3] == Action.terminate("success")
    shot = episode.steps[0].observation.screenshot
    assert Image.open(io.BytesIO(shot.png())).getpixel((3, 3)) == (200, 10, 10)
    assert [e.text or e.content_desc for e in episode.steps[0].observation.elements] == ["Search", "ICON_LIST"]


def test_gui_odyssey(tmp_path: Path) -> None:
    root = odyssey_folder(tmp_path)
    assert detect_format(root) == "gui-odyssey" and detect_format(root / "annotations" / "a.json") == "gui-odyssey"
    name, (episode,) = load_any(root)
    actions = [s.action for s in episode.steps]
    assert actions[0] == Action.click(540, 600)  # 0-1000 grid of the 1080 x 2400 screen
    assert actions[1] == Action.swipe(540, 1920, 540, 480)  # the finger's start and end, unchanged
    assert actions[2:] == [Action.type_text("new york fashion week"), Action.home(), Action.terminate("success")]
    assert episode.apps == ["DuckDuckgo", "TickTick"] and episode.category == "Multi_Apps"
    assert episode.steps[1].observation.screenshot_path == str((root / "screenshots" / "a_1.png").resolve())


def test_amex(tmp_path: Path) -> None:
    root = amex_folder(tmp_path)
    assert detect_format(root) == "amex"
    name, (episode,) = load_any(root)
    assert [s.action for s in episode.steps] == [
        Action.click(540, 1200), Action.swipe(540, 1800, 540, 600), Action.type_text("coffee"), Action.terminate("success")]
    assert episode.instruction == "Search coffee on the map" and episode.screen_size == (1080, 2400)


def test_mobile_r1_release(tmp_path: Path) -> None:
    path = mobile_r1_release(tmp_path)
    name, (episode,) = load_any(path)
    assert name == "mobile-r1" and episode.apps == ["闲鱼"] and episode.meta["system"] == "你是一个手机助手"
    # no resized size in the card's record: Tap is in Qwen2.5-VL's default smart_resize frame (1092 x 2408) -> screen
    assert episode.steps[0].action == Action.click(540, 1200)
    assert episode.steps[0].description == "打开闲鱼" and episode.steps[0].thought == "桌面"
    assert episode.steps[1].action == Action.terminate("success")


def test_bad_records_name_the_record_and_field(tmp_path: Path) -> None:
    path = write_gzip_tfrecord(tmp_path / "bad", [{"goal": (b"x", "byte"), "screenshots": ([b"a", b"b"], "byte"),
                                                  "actions": ([b"{not json"], "byte"), "screenshot_widths": ([1], "int"),
                                                  "screenshot_heights": ([1], "int"), "episode_id": (1, "int")}])
    with pytest.raises(DataError, match=r"bad: record 0: field 'actions\[0\]'"):
        load_any(path)
    root = odyssey_folder(tmp_path)
    record = json.loads((root / "annotations" / "a.json").read_text())
    record["steps"][0]["screenshot"] = "../../../../etc/passwd"
    (root / "annotations" / "a.json").write_text(json.dumps(record))
    with pytest.raises(DataError, match=r"a.json: field 'steps\[0\].screenshot': the path"):
        load_any(root)


def test_convert_keeps_embedded_screenshots(tmp_path: Path) -> None:
    for path in (android_control_file(tmp_path), aitw_file(tmp_path)):
        _, episodes = load_any(path)
        store = tmp_path / f"store-{path.name}"
        save_episodes(store, episodes)
        _, again = load_any(store)
        shots = [s.observation.screenshot_path for e in again for s in e.steps]
        assert shots and all(Path(p).is_file() for p in shots)
        assert Image.open(shots[0]).size == episodes[0].steps[0].observation.screenshot.size


# ----- the CLI on each dataset: statistics, and offline evaluation with the field's matcher -----------------------------
BUILDERS = {
    "android-control": android_control_file,
    "android-control-parquet": android_control_parquet,
    "aitw": aitw_file,
    "gui-odyssey": odyssey_folder,
    "amex": amex_folder,
    "mobile-r1": mobile_r1_release,
}


class _Replay(Agent):
    """Answers each labelled step with its label (so the scorer's conventions are checked end to end)."""

    labels: dict[tuple[str, int], Action] = {}

    def act(self, request):  # type: ignore[no-untyped-def]
        action = self.labels[(request.episode_id or "", len(request.history))]
        return AgentOutput(str(action), ParseResult(action, "", "", True, None, str(action)), action)


@pytest.mark.parametrize("fmt", list(BUILDERS))
def test_stats_and_eval_offline_on_each_dataset(fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if fmt == "android-control-parquet":
        pytest.importorskip("pyarrow")
    path = BUILDERS[fmt](tmp_path)
    assert main(["data", "stats", str(path), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    _, episodes = load_any(path)
    assert figures["format"] == fmt and figures["steps"] == sum(len(e.steps) for e in episodes) > 0
    assert sum(figures["action_types"].values()) == figures["steps"]
    assert main(["data", "stats", str(path)]) == 0
    table = capsys.readouterr().out
    assert f"({fmt})" in table and "action: " in table
    _Replay.labels = {(e.id, i): s.action for e in episodes for i, s in enumerate(e.steps)}
    register_agent("replay-labels", lambda arg, **kw: _Replay(), replace=True)
    matcher = field_matcher(fmt)
    assert main(["eval-offline", "--agent", "replay-labels", "--data", str(path), "--matcher", matcher, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[0])
    assert summary["preset"] == matcher and summary["steps"] == figures["steps"] and summary["step_sr"] == 1.0
