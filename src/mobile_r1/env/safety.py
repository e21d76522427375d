"""The safety gate: before an action reaches a phone it is classed, and risky classes need the owner's consent.

    backend = gated(make_backend("sim"), confirm="risky", person=make_person("auto"))   # any backend
    env = backend.open(episode)        # a GatedTaskEnv: every step passes the gate first

`GatedBackend` and `GatedTaskEnv` are wrappers (`env.wrappers`): every member and capability of the backend and its
phones is there as it was (max_in_play, name_pool, the expert, fork, ...); the gate changes only `open` and `step`.

Classes: payment, transfer, purchase, deletion, sending (sending, posting, sharing, calling), account (log in or
out, sign up), permission (granting one), settings (changing one), none. The class comes from rules over the
element the action touches (its text, description and resource id, or the labels inside it) and, for a bare
confirmation ("OK", "Confirm", "确定"), the rest of the screen's text, in English and Chinese; `classify` explains
its choice in `evidence`.

`confirm`: "risky" asks the person about every risky action, "all" about every action that touches the phone,
"none" switches the gate off. A refusal never reaches the phone: the step returns the person's words as the
user's reply (`StepInfo.user_reply`) and an `error` saying the gate stopped it. Every decision, asked or not, is
recorded in `StepInfo.extra["gate"]` (class, evidence, asked, approved, by whom) together with the irreversible
effects the step caused where the backend reports them (the simulator does), so the gate can be scored against them
(`benchmarks/safety_gate.py`). With nobody at the terminal (`NoPerson`) every asked action is refused.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Mapping, Sequence

from mobile_r1.core.actions import Action, ActionType
from mobile_r1.core.errors import ConfigError
from mobile_r1.core.records import Observation, UIElement
from mobile_r1.env.person import ConsentRequest, Person, make_person
from mobile_r1.env.protocol import JSON, Backend, EpisodeRef, StepInfo, TaskEnv
from mobile_r1.env.wrappers import BackendWrapper, TaskEnvWrapper

CLASSES = ("payment", "transfer", "purchase", "deletion", "sending", "account", "permission", "settings", "none")
RISKY = frozenset(CLASSES[:-1])
CONFIRM_MODES = ("risky", "all", "none")
TOUCHING = frozenset({ActionType.CLICK, ActionType.LONG_PRESS, ActionType.SWIPE, ActionType.TYPE, ActionType.KEY,
                      ActionType.SYSTEM_BUTTON, ActionType.OPEN})

# The simulator's irreversible effects and the gate class each belongs to (a login the user did is not one).
EFFECT_CLASSES: dict[str, str] = {
    "payment": "payment", "subscription": "purchase", "subscription_cancel": "purchase", "transfer": "transfer",
    "red_packet": "transfer", "delete": "deletion", "post": "sending", "comment": "sending", "sms": "sending",
    "share": "sending", "call": "sending", "login": "account", "logout": "account", "permission": "permission",
    "profile_change": "settings",
}


def _en(*words: str) -> str:
    return r"\b(?:" + "|".join(words) + r")\b"


# Label rules: the touched element says what it does. Order matters (the first class that matches wins).
LABEL_RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((name, re.compile(pattern, re.I)) for name, pattern in (
    ("transfer", _en(r"transfer", r"send money", r"red (?:packet|envelope)s?", r"remit") + "|转账|红包|汇款|打款"),
    ("payment", _en(r"pay", r"pay now", r"pay bill", r"payment", r"confirm payment", r"top ?up") + "|支付|付款|买单|缴费|充值"),
    ("purchase", _en(r"buy", r"buy now", r"purchase", r"subscribe", r"place order", r"check ?out", r"order now",
                     r"upgrade", r"renew", r"join premium", r"start (?:free )?trial", r"cancel subscription")
     + "|购买|下单|订阅|结算|提交订单|开通|续费|立即抢购"),
    ("deletion", _en(r"delete", r"delete forever", r"remove", r"erase", r"uninstall", r"discard",
                     r"clear (?:all|history|data|cache|chat|messages)", r"move to (?:trash|bin)",
                     r"empty (?:trash|bin)") + "|删除|移除|清空|卸载|彻底删除"),
    ("sending", _en(r"send", r"post", r"publish", r"share", r"reply", r"comment", r"tweet", r"retweet", r"repost",
                    r"forward", r"call", r"dial", r"submit comment", r"upload") + "|发送|发布|分享|评论|回复|转发|拨打|呼叫|发表|上传"),
    ("account", _en(r"log ?in", r"sign ?in", r"log ?out", r"sign ?out", r"sign ?up", r"register",
                    r"switch account", r"delete account") + "|登录|登陆|注册|退出登录|注销|切换账号"),
    ("permission", r"(?<!don't )(?<!dont )(?<!not )" + _en(r"allow", r"grant", r"while using the app",
                                                            r"only this time", r"always allow")
     + "|(?<!不)允许|授权"),
    ("settings", _en(r"turn (?:on|off)", r"enable", r"disable", r"factory reset", r"reset settings")
     + "|恢复出厂|重置"),
))
# A bare confirmation takes its class from the rest of the screen ...
CONFIRM_RE = re.compile(_en(r"ok", r"okay", r"confirm", r"yes", r"continue", r"proceed", r"done", r"submit",
                            r"agree", r"accept", r"got it", r"update", r"save", r"apply", r"set")
                        + r"|^(?:确定|确认|好的?|是|继续|提交|同意|完成|保存|更新|应用|设置)$", re.I)
# ... where these words also count (they name what a confirmation changes, not an action of their own).
CONTEXT_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("settings", re.compile(_en(r"signature", r"profile", r"avatar", r"status message", r"nickname")
                            + "|个性签名|签名|头像|昵称|个人资料", re.I)),
)
# Refusals and ways out are never risky, whatever the screen says.
NEGATIVE_RE = re.compile(_en(r"cancel", r"back", r"close", r"no", r"not now", r"later", r"skip", r"dismiss",
                             r"don'?t allow", r"deny", r"decline", r"keep") + r"|取消|关闭|返回|不允许|拒绝|暂不|以后再说|跳过", re.I)
SUBMIT_KEYS = frozenset({"enter", "66", "keycode_enter"})
MAX_LABEL_WORDS = 6  # longer texts are content (a message, a note), not what a button does


@dataclass(frozen=True, slots=True)
class Classification:
    """An action's class, the touched element's label, and why (`evidence`)."""

    action_class: str
    target: str = ""
    evidence: str = ""

    @property
    def risky(self) -> bool:
        return self.action_class in RISKY


def target_element(elements: Sequence[UIElement], point: tuple[float, float]) -> UIElement | None:
    """The element a tap at `point` touches: the last (topmost) clickable one under it, else the last one under it."""
    x, y = point
    under = [e for e in elements if e.bounds[0] <= x < e.bounds[2] and e.bounds[1] <= y < e.bounds[3]]
    for e in reversed(under):
        if e.clickable or e.long_clickable or e.editable or e.checkable:
            return e
    return under[-1] if under else None


def element_label(elements: Sequence[UIElement], element: UIElement) -> str:
    """What the element says: its text or description, else the labels inside it, else its resource id's words."""
    if element.label.strip():
        return element.label.strip()
    texts: list[str] = []
    descriptions: list[str] = []
    members = {element.id}
    for e in elements:
        if e.parent in members:
            members.add(e.id)
            if e.text.strip():
                texts.append(e.text.strip())
            elif e.content_desc.strip():
                descriptions.append(e.content_desc.strip())
    if texts or descriptions:  # the first words inside (an icon's description only when there is no text)
        return (texts or descriptions)[0]
    rid = element.resource_id.rsplit("/", 1)[-1]
    return re.sub(r"[_\W]+", " ", rid).strip()


def _short(label: str) -> bool:
    return len(label.split()) <= MAX_LABEL_WORDS and len(label) <= 40


def _label_class(label: str) -> tuple[str, str] | None:
    for name, pattern in LABEL_RULES:
        match = pattern.search(label)
        if match:
            return name, match.group(0)
    return None


def screen_text(observation: Observation | None, without: UIElement | None = None) -> str:
    if observation is None:
        return ""
    return " | ".join(e.label.strip() for e in observation.elements if e.label.strip() and e is not without)


def _region(elements: Sequence[UIElement], element: UIElement) -> list[UIElement]:
    """The elements around `element`: the subtree of its nearest ancestor that holds another label (a dialog, a
    form), as long as that ancestor is not most of the screen."""
    by_id = {e.id: e for e in elements}
    if not elements:
        return []
    screen = max(e.bounds[2] for e in elements) * max(e.bounds[3] for e in elements) or 1
    ancestor = by_id.get(element.parent) if element.parent is not None else None
    while ancestor is not None:
        x1, y1, x2, y2 = ancestor.bounds
        if (x2 - x1) * (y2 - y1) > 0.6 * screen:
            return []
        members, inside = {ancestor.id}, []
        for e in elements:
            if e.parent in members:
                members.add(e.id)
                inside.append(e)
        if any(e is not element and e.label.strip() for e in inside):
            return [ancestor, *inside]
        ancestor = by_id.get(ancestor.parent) if ancestor.parent is not None else None
    return []


def _context_class(elements: Sequence[UIElement], without: UIElement | None) -> tuple[str, str] | None:
    """The class that `elements` (a confirmation's dialog, or the screen) suggest."""
    for rules in (LABEL_RULES, CONTEXT_RULES):
        for e in elements:
            label = e.label.strip()
            if e is without or not label or NEGATIVE_RE.fullmatch(label):
                continue
            for name, pattern in rules:
                if pattern.search(label):
                    return name, f"the screen says {label[:60]!r}"
    return None


def classify(action: Action, observation: Observation | None) -> Classification:
    """The gate class of `action` on the screen `observation` (see the module docstring)."""
    kind = action.type
    elements = observation.elements if observation is not None else []
    if kind in (ActionType.CLICK, ActionType.LONG_PRESS) and action.coordinate is not None:
        element = target_element(elements, action.coordinate)
        if element is None:
            return Classification("none", "", "nothing under the point")
        label = element_label(elements, element)
        if element.editable and kind is ActionType.CLICK:
            return Classification("none", label, "a text field (tapping it only focuses it)")
        if label and _short(label):
            if NEGATIVE_RE.fullmatch(label.strip()):
                return Classification("none", label, "a way out")
            found = _label_class(label)
            if found is not None:
                return Classification(found[0], label, f"the button says {found[1]!r}")
            if NEGATIVE_RE.search(label):
                return Classification("none", label, "a way out")
            if CONFIRM_RE.search(label):
                context = _context_class(_region(elements, element), element)
                if context is not None:
                    return Classification(context[0], label, f"a confirmation; {context[1]}")
        if element.checkable and _in_settings(observation):
            return Classification("settings", label, "a switch in the settings")
        return Classification("none", label, "")
    if kind is ActionType.TYPE and (action.text or "").endswith("\n") or (
            kind is ActionType.KEY and (action.text or "").strip().lower() in SUBMIT_KEYS) or (
            kind is ActionType.SYSTEM_BUTTON and action.button == "Enter"):
        field = _text_field(elements)
        if field is not None:
            label = element_label(elements, field)
            found = _label_class(label) if label and _short(label) else None
            if found is not None:
                return Classification(found[0], label, f"submits the field {label!r}")
        context = _context_class(elements, None)
        if context is not None and context[0] == "sending":
            return Classification("sending", "Enter", f"submits the text; {context[1]}")
        return Classification("none", "Enter", "")
    return Classification("none", "", "")


def _text_field(elements: Sequence[UIElement]) -> UIElement | None:
    """The text field that has the focus (else the only one on screen)."""
    fields = [e for e in elements if e.editable]
    focused = [e for e in fields if e.focused]
    if focused:
        return focused[-1]
    return fields[0] if len(fields) == 1 else None


def _in_settings(observation: Observation | None) -> bool:
    if observation is None:
        return False
    return (observation.app or "").lower() in ("settings", "设置") or (observation.activity or "").startswith(
        ("settings/", "com.android.settings"))


def describe(action: Action, classification: Classification) -> str:
    """The action in a person's words ("tap 'Pay now'", "type 'hello' and press Enter")."""
    kind = action.type
    if kind is ActionType.CLICK:
        return f"tap {classification.target!r}" if classification.target else f"tap at {action.coordinate}"
    if kind is ActionType.LONG_PRESS:
        return f"long-press {classification.target!r}" if classification.target else f"long-press at {action.coordinate}"
    if kind is ActionType.TYPE:
        text = action.text or ""
        return f"type {text.rstrip(chr(10))!r}" + (" and press Enter" if text.endswith("\n") else "")
    if kind is ActionType.SWIPE:
        return f"swipe from {action.coordinate} to {action.coordinate2}"
    if kind is ActionType.OPEN:
        return f"open {action.text}"
    if kind is ActionType.SYSTEM_BUTTON:
        return f"press {action.button}"
    if kind is ActionType.KEY:
        return f"press the key {action.text}"
    return str(action)


@dataclass(slots=True)
class GateDecision:
    """One decision of the gate (what `StepInfo.extra["gate"]` records)."""

    action_class: str
    evidence: str
    target: str
    asked: bool
    approved: bool
    by: str  # "gate" (not asked), "person", "no-person"
    reply: str = ""

    def to_dict(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {k: v for k, v in asdict(self).items() if v != ""}
        return out


class Gate:
    """Classes each action and, per `confirm`, asks the person."""

    def __init__(self, confirm: str = "risky", person: Person | None = None) -> None:
        if confirm not in CONFIRM_MODES:
            raise ConfigError(f"confirm must be one of {', '.join(CONFIRM_MODES)}; got {confirm!r}")
        self.confirm = confirm
        self.person = person or make_person("auto")

    def decide(self, episode: EpisodeRef, step: int, observation: Observation | None, action: Action) -> GateDecision:
        found = classify(action, observation)
        ask = self.confirm == "all" and action.type in TOUCHING or self.confirm == "risky" and found.risky
        if not ask:
            return GateDecision(found.action_class, found.evidence, found.target, False, True, "gate")
        request = ConsentRequest(episode, step, describe(action, found), found.action_class, found.evidence,
                                 screen_text(observation)[:300])
        consent = self.person.consent(request)
        return GateDecision(found.action_class, found.evidence, found.target, True, consent.approved, consent.by,
                            consent.reply)


class GatedTaskEnv(TaskEnvWrapper):
    """A task environment behind the gate: every step passes the gate first. Everything else (the budget, the judge,
    the capabilities, the expert, any member of the inner environment) is the inner one's; a refused step reaches the
    inner environment as a skipped turn (`skip`: it costs the step and touches nothing)."""

    def __init__(self, inner: TaskEnv, gate: Gate) -> None:
        super().__init__(inner)
        self.gate = gate
        self.decisions: list[GateDecision] = []

    def reset(self) -> tuple[Observation, StepInfo]:
        started = self.inner.reset()
        self.decisions = []
        return started

    def step(self, action: Action) -> tuple[Observation, bool, bool, StepInfo]:
        self._live()  # nobody is asked about a step the episode cannot take
        decision = self.gate.decide(self.episode, self.steps + 1, self.observation, action)
        self.decisions.append(decision)
        if not decision.approved:
            what = decision.action_class.replace("_", " ")
            observation, terminated, truncated, info = self.inner.skip(
                f"the safety gate stopped this action ({what}): the owner did not approve it")
            info.user_reply = decision.reply or f"No, do not do that ({what})."
            info.extra["gate"] = decision.to_dict()
            return observation, terminated, truncated, info
        observation, terminated, truncated, info = self.inner.step(action)
        record = decision.to_dict()
        record["effects"] = list(irreversible(info.effects))
        info.extra["gate"] = record
        return observation, terminated, truncated, info

    def fork(self) -> GatedTaskEnv:
        other = super().fork()
        assert isinstance(other, GatedTaskEnv)
        other.decisions = list(self.decisions)
        return other


class GatedBackend(BackendWrapper):
    """Any backend with the gate in front of its phones; every other member is the inner backend's."""

    def __init__(self, inner: Backend, gate: Gate) -> None:
        super().__init__(inner)
        self.gate = gate

    def open(self, episode: EpisodeRef, max_steps: int | None = None) -> GatedTaskEnv:
        return GatedTaskEnv(self.inner.open(episode, max_steps), self.gate)

    def asks_person(self) -> bool:
        return self.gate.person.present or self.inner.asks_person()


def gated(backend: Backend, confirm: str = "risky", person: Person | str = "auto") -> Backend:
    """`backend` behind the gate (unchanged when `confirm` is "none")."""
    if confirm not in CONFIRM_MODES:
        raise ConfigError(f"confirm must be one of {', '.join(CONFIRM_MODES)}; got {confirm!r}")
    if confirm == "none":
        return backend
    return GatedBackend(backend, Gate(confirm, make_person(person) if isinstance(person, str) else person))


def irreversible(effects: Sequence[Mapping[str, JSON]]) -> list[str]:
    """The gate classes of the irreversible effects among `effects` (a permission denied, or a login the user did on
    the agent's behalf, is none)."""
    out = []
    for e in effects:
        kind = str(e.get("kind"))
        detail = e.get("detail") if isinstance(e.get("detail"), dict) else {}
        assert isinstance(detail, dict)
        if kind not in EFFECT_CLASSES or detail.get("by") == "user":
            continue
        if kind == "permission" and not detail.get("granted"):
            continue
        out.append(EFFECT_CLASSES[kind])
    return out


__all__ = ["classify", "Classification", "Gate", "GateDecision", "GatedTaskEnv", "GatedBackend", "gated",
           "irreversible", "CLASSES", "RISKY", "CONFIRM_MODES", "EFFECT_CLASSES", "target_element", "element_label",
           "describe"]
