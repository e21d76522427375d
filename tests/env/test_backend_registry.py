"""Backends and judges by one registry: a third party's backend in a package of its own is reached from the shell as
`--env package.module:Name[:ARG]`, and a judge as `package.module:Name`, with nothing registered beforehand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mobile_r1.cli.main import main
from mobile_r1.core.errors import ConfigError
from mobile_r1.env import make_backend
from mobile_r1.env.judges import Trajectory, make_judge
from mobile_r1.env.registry import split_spec

# What a third party writes: a phone with one button, whose task is to tap it ARG times (1 without an argument) and
# then finish, judged by its own rule and demonstrated by its own expert.
PHONE = '''
"""A phone of someone else's: one button."""

from mobile_r1.core.actions import Action, ActionType
from mobile_r1.core.records import Episode, Observation, Step, UIElement
from mobile_r1.core.verdict import EpisodeVerdict, Judgement
from mobile_r1.env import Backend as PhoneBackend, Capability, Demonstration, EpisodeRef, StepInfo, TaskEnv


class Backend(PhoneBackend):
    name = "tapper"

    def __init__(self, taps=None, render=True, scale=0.3, xml=False):
        self.taps = int(taps or 1)

    def episodes(self, suite, split="test", n=None, seed=0, tasks=()):
        return [EpisodeRef(f"tap{self.taps}/{seed + i}", f"Tap the button {self.taps} times, then finish", "tap",
                           self.name, split, seed + i, suite, "control", max_steps=self.taps + 3,
                           needs_inquiry=False) for i in range(n or 2)]

    def open(self, episode, max_steps=None):
        return Phone(episode, self.taps, max_steps)


class Phone(TaskEnv):
    capabilities = frozenset({Capability.EXPERT})

    def __init__(self, episode, taps, max_steps=None):
        super().__init__(episode, max_steps)
        self.taps, self.count = taps, 0

    def _screen(self):
        button = UIElement(0, "android.widget.Button", (100, 1000, 980, 1200), text=f"Tapped {self.count}",
                           clickable=True)
        return Observation((1080, 2400), [button], app="Tapper")

    def _reset(self):
        self.count = 0
        return self._screen()

    def _step(self, action):
        if action.type is ActionType.CLICK:
            self.count += 1
        return self._screen(), action.type is ActionType.TERMINATE, StepInfo()

    def judge(self):
        done = self.terminated and self.count == self.taps
        return Judgement(EpisodeVerdict(self.episode.id, done, "not_needed", steps=self.steps,
                                        category=self.episode.category), judge="rule")

    def expert_demo(self, **options):
        demo = Phone(self.episode, self.taps)
        observation, _ = demo.reset()
        steps = []
        for action in [Action.click(540, 1100)] * self.taps + [Action.terminate()]:
            steps.append(Step(action=action, thought="Tap.", description="Tap the button", observation=observation))
            observation, _, _, _ = demo.step(action)
        record = Episode(id=self.episode.id, instruction=self.episode.instruction, steps=steps)
        return Demonstration(record, demo.judge().verdict)


class Strict:
    """A judge of someone else's: success when the episode took no step at all."""

    def __init__(self, **options):
        self.options = options

    def judge(self, trajectory):
        return Judgement(EpisodeVerdict(trajectory.episode.id, not trajectory.steps, "not_needed"), judge="strict")


NOT_A_FACTORY = 3


def not_a_phone(argument=None, **options):
    return "a phone"
'''


@pytest.fixture
def third_party(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A package `thirdparty_phones` in a folder of its own, put on the import path."""
    package = tmp_path / "site" / "thirdparty_phones"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('"""Someone else\'s phones."""\n')
    (package / "tapper.py").write_text(PHONE)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    return "thirdparty_phones.tapper"


def _records(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines() if line.strip()]


def test_a_third_party_backend_is_reached_from_the_shell_by_its_module_path(third_party: str, tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    common = ["eval", "--agent", "oracle", "--suite", "taps", "--episodes", "2"]
    assert main([*common, "--env", f"{third_party}:Backend", "--out", str(tmp_path / "one"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["overall"]["sr"]["value"] == 1.0
    assert main([*common, "--env", f"{third_party}:Backend:3", "--out", str(tmp_path / "three")]) == 0
    one, three = _records(tmp_path / "one"), _records(tmp_path / "three")
    assert [r["id"] for r in one] == ["tap1/0", "tap1/1"] and [r["id"] for r in three] == ["tap3/0", "tap3/1"]
    assert all(r["verdict"]["success"] for r in one + three)
    assert [len(r["steps"]) for r in three] == [4, 4]  # three taps and the end, as the argument asked
    run = json.loads((tmp_path / "three" / "run.json").read_text())
    assert run["env"] == f"{third_party}:Backend:3"


def test_a_bad_module_path_is_a_clear_error_on_the_shell(third_party: str, capsys: pytest.CaptureFixture[str]) -> None:
    for spec, words in ((f"{third_party}:Nope", "has no attribute 'Nope'"),
                        ("thirdparty_phones.missing:Backend", "cannot import 'thirdparty_phones.missing'"),
                        (f"{third_party}:NOT_A_FACTORY", "not a backend class or factory"),
                        (f"{third_party}:not_a_phone", "gave a str, not a mobile_r1.env.Backend"),
                        ("nosuchphone", "unknown environment 'nosuchphone'")):
        assert main(["eval", "--agent", "oracle", "--env", spec, "--episodes", "1"]) == 2
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err, (spec, err)


def test_specs_split_into_a_registry_key_and_an_argument() -> None:
    assert split_spec("sim") == ("sim", None)
    assert split_spec("ADB:emulator-5554") == ("adb", "emulator-5554")
    assert split_spec("adb:192.168.1.5:5555") == ("adb", "192.168.1.5:5555")
    assert split_spec("androidworld:http://127.0.0.1:5000") == ("androidworld", "http://127.0.0.1:5000")
    assert split_spec("my_pkg.phone:Backend") == ("my_pkg.phone:Backend", None)
    assert split_spec("my_pkg.phone:Backend:http://host:5000") == ("my_pkg.phone:Backend", "http://host:5000")
    with pytest.raises(ConfigError, match="unknown environment"):
        make_backend("nosuch:thing")


def test_a_third_party_judge_is_named_by_its_module_path(third_party: str) -> None:
    episode = make_backend(f"{third_party}:Backend").episodes("taps", n=1)[0]
    judge = make_judge(f"{third_party}:Strict", level=2)
    assert judge.options == {"level": 2}  # type: ignore[attr-defined]
    assert judge.judge(Trajectory(episode)).verdict.success
    with pytest.raises(ConfigError, match="unknown judge"):
        make_judge("nosuchjudge")
