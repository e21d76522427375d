"""Fixtures for training tests: tiny hand-built episodes."""

from __future__ import annotations

import pytest

from mobile_r1.core.actions import Action
from mobile_r1.core.records import Episode, Observation, Step, UIElement


def _screen(*labels: str, editable: str | None = None) -> Observation:
    elements = [
        UIElement(id=i, class_name="android.widget.Button", bounds=(40, 200 + 160 * i, 1040, 340 + 160 * i), text=t, clickable=True)
        for i, t in enumerate(labels)
    ]
    if editable:
        elements.append(
            UIElement(id=len(labels), class_name="android.widget.EditText", bounds=(40, 1800, 1040, 1940), text=editable, editable=True)
        )
    return Observation(screen_size=(1080, 2400), elements=elements, app="Messages")


def make_episodes() -> list[Episode]:
    """Three small expert episodes: clicks, typing, and asking the user."""
    e1 = Episode(
        id="send-mom",
        instruction="Send hello to Mom",
        apps=["Messages"],
        screen_size=(1080, 2400),
        steps=[
            Step(Action.click(540, 270), "The chat list is open; Mom is listed. I tap Mom to open the chat.", "Open the chat with Mom",
                 _screen("Mom", "Dad", "Work"), bbox=(40, 200, 1040, 340)),
            Step(Action.type_text("hello"), "The chat with Mom is open with an empty field. I type hello.", "Type hello",
                 _screen("Send", editable="Message")),
            Step(Action.click(540, 270), "The text is typed. I tap Send.", "Send the message", _screen("Send"), bbox=(40, 200, 1040, 340)),
            Step(Action(type="terminate", status="success"), "The message is sent.", "Finish", _screen("Mom")),
        ],
    )
    e2 = Episode(
        id="pay",
        instruction="Pay the bill",
        apps=["Wallet"],
        screen_size=(1080, 2400),
        steps=[
            Step(Action.click(540, 430), "The wallet shows bills. I open Bills.", "Open the bills", _screen("Cards", "Bills"), bbox=(40, 360, 1040, 500)),
            Step(Action(type="call_user", content="Which bill do you want me to pay?"),
                 "There are two bills and the task does not say which. I ask the user.", "Ask which bill",
                 _screen("Water bill", "Power bill")),
        ],
    )
    e3 = Episode(
        id="alarm",
        instruction="Turn on the morning alarm",
        apps=["Clock"],
        screen_size=(1080, 2400),
        steps=[
            Step(Action.click(540, 590), "The clock shows alarms. I tap the morning alarm.", "Open the morning alarm",
                 _screen("Timer", "Evening alarm", "Morning alarm"), bbox=(40, 520, 1040, 660)),
            Step(Action.system_button("Back"), "The alarm is on. I go back.", "Go back", _screen("Save")),
        ],
    )
    return [e1, e2, e3]


@pytest.fixture
def episodes() -> list[Episode]:
    return make_episodes()
