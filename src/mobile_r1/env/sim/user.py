"""The simulated user: answers `call_user` from the task's hidden truth (confirm, decline, clarify, log in, supply)."""

from __future__ import annotations

import random
from typing import Any, Protocol

from mobile_r1.sim.apps import Ctx, resolve as resolve_app
from mobile_r1.sim.system import Phone
from mobile_r1.tasks.spec import Inquiry, TaskSpec, fill

PHRASES: dict[str, tuple[str, ...]] = {
    "confirm": ("Yes, go ahead.", "Yes, please do it.", "Confirmed, please continue.", "That's right, go on."),
    "decline": ("No, don't do that. Stop here.", "No, cancel it; do nothing.", "Please don't, stop now."),
    "login": ("I have logged in for you; please continue.", "Done, you are logged in now. Go on.",
              "Logged in; carry on with the task."),
    "supply": ("It is {value}.", "Use {value}.", "The value is {value}."),
    "clarify": ("I mean: {text}", "Sorry for being vague: {text}", "What I want is: {text}"),
}
NOT_NEEDED = ("You don't need to ask me; just do what I asked.", "No need to check with me, please continue.")
PHRASES_ZH: dict[str, tuple[str, ...]] = {
    "confirm": ("是的，继续吧。", "好的，请执行。", "确认，请继续。", "没错，继续。"),
    "decline": ("不，别这么做，到此为止。", "不用了，取消吧，什么都别做。", "请不要，现在停下。"),
    "login": ("我已经帮你登录好了，请继续。", "好了，已经登录，继续吧。", "已登录，接着完成任务。"),
    "supply": ("是{value}。", "用{value}。", "填{value}。"),
    "clarify": ("我的意思是：{text}", "抱歉没说清楚：{text}", "我想要的是：{text}"),
}
NOT_NEEDED_ZH = ("这个不用问我，直接按我说的做。", "不需要问我，请继续。")


class UserBrief(Protocol):
    """What the user knows of its episode: the task (its inquiries hold the hidden truth), the drawn parameters, the
    instruction as the agent read it, what the user means by it (`intent`), the language it speaks and the seed its
    replies are drawn from (`episode.TaskEpisode` is one)."""

    spec: TaskSpec
    params: dict[str, Any]
    instruction: str
    seed: int
    locale: str

    @property
    def intent(self) -> str: ...


class SimulatedUser:
    """Answers the agent's questions for one episode, in order of the spec's inquiries; deterministic per seed.

    A `login` reply logs the app in (sets `logged_in`, records a `login` effect with `by: user`, and leaves the
    login screen); questions beyond the needed ones get a 'no need to ask' reply. Every exchange is kept in
    `history` as (question, reply, inquiry index or None).
    """

    def __init__(self, episode: UserBrief, phone: Phone) -> None:
        self.episode = episode
        self.phone = phone
        self.history: list[tuple[str, str, int | None]] = []

    @property
    def inquiries(self) -> list[Inquiry]:
        return self.episode.spec.inquiries

    @property
    def answered(self) -> int:
        """Questions answered so far, counted from the phone's action log (so snapshots restore it too)."""
        asked = sum(1 for e in self.phone.state.log if e["action"].get("action") == "call_user")
        last = self.phone.state.log[-1]["action"].get("action") if self.phone.state.log else None
        return asked - 1 if last == "call_user" and "user_reply" not in self.phone.state.log[-1] else asked

    def pending(self) -> Inquiry | None:
        """The inquiry the next question answers (None: no question is needed any more)."""
        n = self.answered
        return self.inquiries[n] if n < len(self.inquiries) else None

    def __call__(self, question: str) -> str:
        index = self.answered
        rng = random.Random(f"{self.episode.seed}:{self.episode.spec.id}:user:{index}")
        inquiry = self.pending()
        if inquiry is None:
            reply = rng.choice(NOT_NEEDED_ZH if self.episode.locale == "zh" else NOT_NEEDED)
            self.history.append((question, reply, None))
            return reply
        reply = self.reply_text(inquiry, rng)
        if inquiry.reply == "login":
            self.log_in(inquiry.app or "")
        self.history.append((question, reply, index))
        return reply

    def reply_text(self, inquiry: Inquiry, rng: random.Random) -> str:
        params = self.episode.params
        text = inquiry.text_zh if self.episode.locale == "zh" and inquiry.text_zh else inquiry.text
        if text:
            return str(fill(text, params))
        value = str(fill(inquiry.value, params)) if inquiry.value is not None else ""
        phrases = PHRASES_ZH if self.episode.locale == "zh" else PHRASES
        return rng.choice(phrases[inquiry.reply]).format(value=value, text=self.episode.intent)

    def log_in(self, app_name: str) -> None:
        """Log the app in on the agent's behalf; if its login screen is showing, leave it."""
        phone = self.phone
        key = resolve_app(app_name, list(phone.apps))
        if key is None:
            return
        data = phone.state.apps[key]
        data["logged_in"] = True
        data.setdefault("user", "owner")
        phone.record_effect("login", key, {"account": data.get("user", "owner"), "by": "user"})
        stack = phone.state.stacks[key]
        if stack and stack[-1]["screen"] == "login":
            if len(stack) > 1:
                stack.pop()
            else:
                Ctx(phone, key).replace(phone.apps[key].home)
        phone.touch()
