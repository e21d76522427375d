"""Our own exports read back: LLaMA-Factory ShareGPT `messages` and TRL rows, every dialect, through `data stats`,
`data convert` and `load_any`; the labels come back as the exporter wrote them (in the model frame)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image

from mobile_r1.cli.main import main
from mobile_r1.core.actions import Action
from mobile_r1.core.dialects import get_dialect
from mobile_r1.core.formats import FrameSettings, detect_format, load_any, model_steps, save_episodes
from mobile_r1.core.records import Episode, Observation, Step, UIElement

SCREEN = (1080, 2400)


def screen(label: str, shade: int) -> Observation:
    icon = UIElement(1, "android.widget.TextView", (48, 652, 264, 844), text="Shop", clickable=True)
    field = UIElement(2, "android.widget.EditText", (40, 200, 1040, 300), text=label, editable=True)
    return Observation(SCREEN, elements=[icon, field], screenshot=Image.new("RGB", (324, 720), (shade, 90, 160)))


def episodes() -> list[Episode]:
    first = [Step(Action.open("Shop"), "Open the shop.", "open Shop", screen("a", 10)),
             Step(Action.click(540, 250), "Tap the search box.", "tap search", screen("b", 20)),
             Step(Action.type_text("earbuds"), "Type the name.", "type earbuds", screen("c", 30)),
             Step(Action.swipe(540, 1800, 540, 600), "Scroll down.", "scroll", screen("d", 40)),
             Step(Action.terminate("success"), "Done.", "done", screen("e", 50))]
    second = [Step(Action.call_user("Which colour do you want?"), "Ask first.", "ask", screen("f", 60)),
              Step(Action.long_press(156, 748, time=2.0), "Hold the icon.", "hold", screen("g", 70)),
              Step(Action.back(), "Go back.", "back", screen("h", 80))]
    return [Episode("buy", "Buy earbuds", first, screen_size=SCREEN),
            Episode("ask", "Send a gift to Mom", second, screen_size=SCREEN)]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("store")
    save_episodes(folder, episodes())
    return folder


@pytest.mark.parametrize("dialect", ["qwen2.5vl", "inquire", "mobile-r1", "uitars", "compact"])
@pytest.mark.parametrize("to,style,mode", [("sharegpt", None, "image"), ("sharegpt", None, "text"),
                                           ("trl", "prompt-completion", "text"), ("trl", "messages", "image"),
                                           ("trl", "messages", "text")])
def test_every_export_reads_back_with_its_labels(store: Path, tmp_path: Path, dialect: str, to: str,
                                                 style: str | None, mode: str, capsys) -> None:
    if dialect != "inquire" and (to, mode) == ("sharegpt", "text"):
        pytest.skip("one dialect is enough for this combination")
    if dialect == "uitars" and style == "messages":
        pytest.skip("UI-TARS prompts hold earlier outputs as assistant turns: the exporter refuses TRL messages rows")
    out = tmp_path / f"{to}.jsonl"
    command = ["data", "export", str(store), "--to", to, "--dialect", dialect, "--prescale", "0.3",
               "--observation-mode", mode, "--out", str(out)]
    command += ["--trl-style", style] if style else []
    command += ["--mask-history"] if dialect == "uitars" and to == "sharegpt" else []
    assert main(command) == 0
    capsys.readouterr()
    # a TRL messages row of text alone has exactly ShareGPT's layout: it reads as sharegpt, the same steps
    to = "sharegpt" if style == "messages" and mode == "text" else to
    assert detect_format(out) == to
    frames = FrameSettings(prescale=0.3)
    expected = list(model_steps(episodes(), get_dialect(dialect), frames))
    name, read = load_any(out)
    assert name == to
    assert [e.instruction for e in read] == sorted({m.episode.instruction for m in expected},
                                                   key=[e.instruction for e in episodes()].index)
    steps = [s for e in read for s in e.steps]
    assert [s.action for s in steps] == [m.step.action for m in expected]
    assert all(e.frame == "model" for e in read)
    if mode == "image" or dialect == "qwen2.5vl":  # the frame is known: from the images, or the prompt states it
        assert {e.model_size for e in read} == {(336, 728)}
    assert main(["data", "stats", str(out), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["format"] == to and figures["episodes"] == len(read) and figures["steps"] == len(expected)
    assert figures["action_types"] == dict(Counter(m.step.action.type.value for m in expected).most_common())


def test_convert_of_an_export_keeps_its_screenshots(store: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "sft" / "sft.jsonl"
    assert main(["data", "export", str(store), "--dialect", "inquire", "--prescale", "0.3", "--out", str(out)]) == 0
    native = tmp_path / "native"
    assert main(["data", "convert", str(out), str(native)]) == 0
    assert "2 episodes (sharegpt)" in capsys.readouterr().out
    _, read = load_any(native)
    first = read[0].steps[0]
    assert first.thought == "Open the shop." and first.observation.screen_size == (336, 728)
    assert Image.open(first.observation.screenshot_path).size == (336, 728)


def test_a_sample_without_a_readable_target_names_its_line(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.jsonl"
    record = {"messages": [{"role": "user", "content": "Task: x"}, {"role": "assistant", "content": "I would tap."}]}
    bad.write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert main(["data", "stats", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.jsonl:1" in err and "neither a <tool_call> block nor a UI-TARS 'Action:' line" in err
