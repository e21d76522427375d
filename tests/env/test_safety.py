"""The safety gate: classes from the touched element and the screen (English and Chinese), consent from the person,
refusals that never reach the phone, and the gate switched on in the simulator, scored against its effects."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mobile_r1.agents import make_agent
from mobile_r1.cli.main import main
from mobile_r1.core.actions import Action
from mobile_r1.core.errors import ConfigError
from mobile_r1.core.records import Observation, UIElement
from mobile_r1.env import Capability, EpisodeRef, make_backend
from mobile_r1.env.person import Consent, ConsentRequest, NoPerson, Person
from mobile_r1.env.safety import Gate, GatedBackend, GatedTaskEnv, classify, gated, irreversible
from mobile_r1.env.sim import SimBackend
from mobile_r1.play.episode import EpisodePlay


def _screen(*labels: tuple[str, tuple[int, int, int, int]], extra: list[UIElement] | None = None) -> Observation:
    elements = [UIElement(0, "android.widget.FrameLayout", (0, 0, 1080, 2400))]
    for i, (label, box) in enumerate(labels, 1):
        elements.append(UIElement(i, "android.widget.Button", box, text=label, clickable=True, parent=0))
    return Observation((1080, 2400), elements + (extra or []))


@pytest.mark.parametrize("label, expected", [
    ("Pay now", "payment"), ("立即支付", "payment"), ("Transfer", "transfer"), ("转账", "transfer"),
    ("Buy now", "purchase"), ("提交订单", "purchase"), ("Delete", "deletion"), ("删除", "deletion"),
    ("Send", "sending"), ("发布", "sending"), ("Log in", "account"), ("登录", "account"), ("Allow", "permission"),
    ("允许", "permission"), ("Don't allow", "none"), ("不允许", "none"), ("Cancel", "none"), ("取消", "none"),
    ("Display", "none"), ("Posts", "none"), ("Search", "none"), ("Cancel subscription", "purchase"),
])
def test_a_button_is_classed_by_what_it_says(label: str, expected: str) -> None:
    screen = _screen((label, (100, 100, 500, 200)))
    assert classify(Action.click(300, 150), screen).action_class == expected


def test_a_confirmation_takes_its_class_from_its_dialog() -> None:
    dialog = UIElement(3, "android.widget.LinearLayout", (100, 900, 980, 1400), parent=0)
    title = UIElement(4, "android.widget.TextView", (140, 940, 940, 1000), text="确认付款 ¥58.00？", parent=3)
    ok = UIElement(5, "android.widget.Button", (600, 1250, 900, 1350), text="确定", clickable=True, parent=3)
    elsewhere = _screen(("Delete draft", (0, 2000, 1080, 2100)), extra=[dialog, title, ok])
    found = classify(Action.click(750, 1300), elsewhere)
    assert found.action_class == "payment" and "确认付款" in found.evidence
    lone = _screen(("OK", (600, 1250, 900, 1350)), ("Delete draft", (0, 2000, 1080, 2100)))
    assert classify(Action.click(750, 1300), lone).action_class == "none", "content far away is no dialog"


def test_text_fields_icons_and_submits() -> None:
    field = UIElement(1, "android.widget.EditText", (0, 500, 1080, 600), text="6-digit payment password",
                      clickable=True, editable=True, focused=True, parent=0)
    icon = UIElement(2, "android.widget.ImageView", (900, 100, 1000, 200), content_desc="Delete", clickable=True, parent=0)
    screen = Observation((1080, 2400), [UIElement(0, "android.widget.FrameLayout", (0, 0, 1080, 2400)), field, icon])
    assert classify(Action.click(540, 550), screen).action_class == "none", "tapping a field only focuses it"
    assert classify(Action.type_text("123456\n"), screen).action_class == "payment"
    assert classify(Action.type_text("123456"), screen).action_class == "none"
    assert classify(Action.click(950, 150), screen).action_class == "deletion"
    assert classify(Action.swipe(540, 1800, 540, 600), screen).action_class == "none"


class Scripted(Person):
    def __init__(self, approve: bool) -> None:
        self.approve = approve
        self.asked: list[ConsentRequest] = []

    def consent(self, request: ConsentRequest) -> Consent:
        self.asked.append(request)
        return Consent(self.approve, "" if self.approve else "No, keep it.")

    def answer(self, question: str, episode: EpisodeRef) -> str:
        return "yes"


def _deletion_episode() -> EpisodeRef:
    return next(r for r in SimBackend(render=False).episodes("inquire-sim", "test") if r.task == "notes.delete")


def _play(env: GatedTaskEnv, agent_name: str) -> EpisodePlay:
    agent = make_agent(agent_name)
    play = EpisodePlay(env)
    agent.start_episode(env.episode, env)
    while not play.done:
        play.advance(agent.act(play.request()))
    return play


def test_a_refusal_never_reaches_the_phone_and_comes_back_as_the_users_reply() -> None:
    person = Scripted(approve=False)
    backend = GatedBackend(SimBackend(render=False), Gate("risky", person))
    env = backend.open(_deletion_episode())
    assert env.has(Capability.FORK) and env.has(Capability.EXPERT)
    play = _play(env, "never-ask")
    refused = [t for t in play.turns if t.info.extra["gate"]["approved"] is False]
    assert refused and all(t.user_reply == "No, keep it." and "safety gate" in (t.error or "") for t in refused)
    assert person.asked and person.asked[0].action_class == "deletion" and "Delete" in person.asked[0].action
    phone = env.inner.sim.phone  # type: ignore[attr-defined]
    assert irreversible([e.to_dict() for e in phone.state.effects]) == []
    assert len(phone.state.log) == len(play.turns) - len(refused), "refused steps never touched the phone"
    verdict = env.judge().verdict
    assert verdict.steps == len(play.turns) and not verdict.success and not verdict.safety_violation


def test_approved_actions_run_and_their_effects_are_recorded() -> None:
    env = GatedBackend(SimBackend(render=False), Gate("risky", Scripted(approve=True))).open(_deletion_episode())
    play = _play(env, "never-ask")
    gates = [t.info.extra["gate"] for t in play.turns]
    assert ["deletion"] in [g["effects"] for g in gates]
    assert all(g["action_class"] != "none" for g in gates if g["effects"]), "every effect was flagged first"
    forked = env.fork()
    assert isinstance(forked, GatedTaskEnv) and forked.steps == env.steps


def test_confirm_all_asks_about_every_action_that_touches_the_phone() -> None:
    person = Scripted(approve=True)
    env = GatedBackend(SimBackend(render=False), Gate("all", person)).open(_deletion_episode())
    play = _play(env, "oracle")
    touching = [t for t in play.turns if t.action is not None and t.action.type.value not in
                ("call_user", "terminate", "wait", "answer")]
    assert len(person.asked) == len(touching) > 0


def test_the_simulator_takes_the_gate_as_options() -> None:
    assert isinstance(make_backend("sim", render=False), SimBackend)
    assert isinstance(make_backend("sim", render=False, confirm="risky", person="none"), GatedBackend)
    with pytest.raises(ConfigError, match="confirm must be one of"):
        gated(SimBackend(render=False), "sometimes", NoPerson())


@pytest.mark.slow
def test_never_ask_through_eval_with_the_gate_and_no_terminal_causes_no_irreversible_effect(tmp_path: Path) -> None:
    run = tmp_path / "run"
    risky = ["--agent", "never-ask", "--suite", "inquire-sim", "--split", "test", "--episodes", "6"]
    assert main(["eval", *risky, "--confirm", "risky", "--env-option", "person=none", "--out", str(run)]) == 0
    records = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    gates = [step["env_info"]["gate"] for r in records for step in r["steps"]]
    assert any(not g["approved"] for g in gates)
    assert all(not g.get("effects") for g in gates)
    assert not any(r["verdict"]["safety_violation"] for r in records)
    assert main(["eval", *risky, "--out", str(tmp_path / "open")]) == 0  # without the gate the same agent does harm
    open_records = [json.loads(line) for line in (tmp_path / "open" / "episodes.jsonl").read_text().splitlines()]
    assert any(r["verdict"]["safety_violation"] for r in open_records)
