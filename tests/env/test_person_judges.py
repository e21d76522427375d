"""The person in the loop (terminal, nobody) and the judges of device trajectories (person, model)."""

from __future__ import annotations

import io

import pytest

from mobile_r1.core.actions import Action
from mobile_r1.core.errors import ConfigError, InfraError
from mobile_r1.core.records import Observation, Step
from mobile_r1.env import EpisodeRef
from mobile_r1.env.judges import PersonJudge, Trajectory, make_judge
from mobile_r1.env.person import NO_PERSON_REPLY, ConsentRequest, NoPerson, PersonVerdict, TtyPerson, make_person
from mobile_r1.serve import LoopbackServer, ScriptedModel

EPISODE = EpisodeRef("t-000", "Send hello to Ann", "t-000", "adb", category="privacy", language="en",
                     meta={"intension": "Send 'hello' to Ann on Chat"})
REQUEST = ConsentRequest(EPISODE, 3, "tap 'Send'", "sending", "the button says 'Send'", "Chat | Ann | Send")


def _tty(answers: str) -> tuple[TtyPerson, io.StringIO]:
    out = io.StringIO()
    return TtyPerson(io.StringIO(answers), out), out


def test_the_terminal_person_approves_only_on_yes() -> None:
    person, out = _tty("y\n\nno thanks, send it later\n")
    assert person.consent(REQUEST).approved
    refused = person.consent(REQUEST)
    assert not refused.approved and "do not allow that (sending)" in refused.reply
    custom = person.consent(REQUEST)
    assert not custom.approved and custom.reply == "no thanks, send it later"
    assert "the agent wants to: tap 'Send'" in out.getvalue() and "this looks like: sending" in out.getvalue()
    with pytest.raises(ConfigError, match="terminal closed"):
        person.consent(REQUEST)


def test_the_terminal_person_answers_and_judges() -> None:
    person, out = _tty("Ann Lee\nmaybe\ny\nn\n3\nfine\n")
    assert person.answer("Which Ann?", EPISODE) == "Ann Lee"
    verdict = person.verdict(EPISODE, "  1. click")
    assert verdict == PersonVerdict(True, False, 3.0, "fine")
    assert "the agent asks: Which Ann?" in out.getvalue()


def test_nobody_refuses_and_answers_with_the_fixed_reply() -> None:
    nobody = NoPerson()
    consent = nobody.consent(REQUEST)
    assert not consent.approved and consent.by == "no-person" and "No person is at the terminal" in consent.reply
    assert nobody.answer("Which Ann?", EPISODE) == NO_PERSON_REPLY and nobody.verdict(EPISODE, "") is None
    assert isinstance(make_person("auto"), NoPerson)  # the tests run without a terminal on stdin
    with pytest.raises(ConfigError, match="needs a terminal"):
        make_person("tty")
    with pytest.raises(ConfigError, match="person must be one of"):
        make_person("robot")


def _trajectory() -> Trajectory:
    from PIL import Image

    screen = Observation((1080, 2400), screenshot=Image.new("RGB", (108, 240), (200, 10, 10)))
    steps = [Step(Action.call_user("Which Ann?"), observation=screen, user_reply="Ann Lee"),
             Step(Action.terminate("success"), observation=screen)]
    return Trajectory(EPISODE, steps, screen)


def test_the_person_judges_and_may_keep_the_models_verdict() -> None:
    person, out = _tty("y\ny\n\n\n")
    judgement = PersonJudge(person).judge(_trajectory())
    assert judgement.judge == "person" and judgement.verdict.success and judgement.verdict.inquiry == "asked"
    assert judgement.asked_steps == [0] and judgement.verdict.steps == 2
    with pytest.raises(ConfigError, match="needs a person at the terminal"):
        PersonJudge(NoPerson())


def test_the_model_judge_is_registered_by_the_evaluation_layer() -> None:
    import mobile_r1.eval.judge  # noqa: F401  (registers "model")

    backend = ScriptedModel(['{"reason": "asked", "reward": 4, "status": "success", "inquiry": "success"}',
                               "no json", "no json", "no json"])
    with LoopbackServer(backend, model_name="judge") as server:
        judge = make_judge("model", model="judge", base_url=server.base_url, language="en")
        judgement = judge.judge(_trajectory())
        assert judgement.judge == "model" and judgement.verdict.score == 4.0 and judgement.verdict.inquiry == "asked"
        messages = backend.requests[0][0]
        assert "Send 'hello' to Ann on Chat" in messages[1].text and len(messages[1].images) == 3
        with pytest.raises(InfraError, match="model judge failed"):
            judge.judge(_trajectory())
    person, _ = _tty("n\ny\n1\ndid not send\n")
    with LoopbackServer(ScriptedModel(['{"reason": "r", "reward": 4, "status": "success", "inquiry": "success"}'])) as s:
        both = make_judge("model+person", person=person, model="m", base_url=s.base_url, language="en")
        overruled = both.judge(_trajectory())
    assert overruled.judge == "person" and not overruled.verdict.success and overruled.verdict.score == 1.0
    with pytest.raises(ConfigError, match="unknown judge"):
        make_judge("oracle")
