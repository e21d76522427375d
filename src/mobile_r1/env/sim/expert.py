"""The expert: plans over the simulator's screens milestone by milestone, asks when the task needs it, writes Mobile-R1 steps.

For each milestone of a spec (`spec.plan`) it runs a best-first search on a private copy of the phone (snapshot and
restore, no rendering): the moves are taps on clickable elements, long presses, scrolling lists, typing the task's
parameter values into a focused input, Back, waiting out a spinner and opening the task's apps. Moves whose label
matches the milestone's hints or a parameter value are tried first. The found path is replayed on the real env,
with a `call_user` just before the step that would cause a guarded effect (or at the start for a vague intent, or on
the screen an inquiry names); after a decline it stops. Every step becomes a `Step` with thought, description,
action and target bbox. With `self_correct` > 0 it sometimes takes a wrong tap first and then recovers. With
`search_first` it finds a list entry the task names through the screen's search field when it has one (type the name,
then tap the entry among the results) rather than by browsing the list or a category for it.
"""

from __future__ import annotations

import copy
import heapq
import itertools
import marshal
import random
from dataclasses import dataclass, replace
from typing import Any, Callable

from mobile_r1.core.actions import Action
from mobile_r1.core.records import Episode, Step, UIElement
from mobile_r1.core.verdict import Judgement
from mobile_r1.env.protocol import Demonstration
from mobile_r1.env.sim.episode import TaskEpisode
from mobile_r1.env.sim.expert_words import KINDS_ZH, words
from mobile_r1.env.sim.judge import judge
from mobile_r1.env.sim.state import check, match_detail
from mobile_r1.sim.apps import resolve as resolve_app
from mobile_r1.sim.driver import SimEnv
from mobile_r1.sim.system import Phone
from mobile_r1.tasks.spec import Condition, Inquiry, fill, on_screen

SKIP_IDS = ("com.android.systemui:id/", "com.sim.inputmethod:id/", "com.sim.launcher:id/")  # apps open by name
# With `search_first`: the extra cost of tapping an entry named by a task value on a screen with a search field before
# that value is typed. Typing it there takes three or four moves more than browsing (tap the field, type, wait for the
# results), and 4.0 makes the search path the cheaper one in every simulated app that has a search field.
SEARCH_DETOUR = 4.0


@dataclass(slots=True)
class Move:
    """One candidate action with what it targets (for the record) and its search cost."""

    action: Action
    label: str
    kind: str  # tap | long_press | type | scroll | back | open | wait
    element: UIElement | None = None
    cost: float = 1.0
    text: str = ""


@dataclass(slots=True)
class PlanStep:
    move: Move
    effects: list[tuple[str, dict[str, Any]]]
    activity: str


@dataclass
class ExpertRun:
    """What the expert did on one episode: the Mobile-R1 record, the judge's view of it, and whether it got stuck."""

    episode: Episode
    judgement: Judgement
    stuck: str | None = None
    env: SimEnv | None = None

    @property
    def success(self) -> bool:
        return self.judgement.verdict.success and self.stuck is None


def _labels(elements: list[UIElement]) -> dict[int, str]:
    """Each element's readable label: its own text/description, else the first two distinct texts under it."""
    kids: dict[int, list[UIElement]] = {}
    for e in elements:
        if e.parent is not None:
            kids.setdefault(e.parent, []).append(e)

    def parts_of(e: UIElement, depth: int = 0) -> list[str]:
        if e.label or depth > 3:
            return [e.label] if e.label else []
        out: list[str] = []
        for k in kids.get(e.id, []):
            out.extend(parts_of(k, depth + 1))
        return out

    labels = {}
    for e in elements:
        parts = list(dict.fromkeys(p.strip() for p in parts_of(e) if p.strip()))
        labels[e.id] = " ".join(parts[:2])[:80]
    return labels


def _relevant(label: str, hints: list[str]) -> bool:
    low = label.lower().strip()
    if not low:
        return False
    for h in hints:
        hl = h.lower().strip()
        if hl and (hl in low or (len(low) >= 4 and low in hl)):
            return True
    return False


def _names_search(label: str, element: UIElement | None) -> bool:
    return "search" in label.lower() or (element is not None and "search" in element.resource_id.lower())


def _has_search(elements: list[UIElement], labels: dict[int, str]) -> bool:
    return any((e.clickable or e.editable) and _names_search(labels.get(e.id, ""), e) for e in elements)


def candidate_moves(phone: Phone, values: list[str], hints: list[str], apps: list[str],
                    search_first: bool = False) -> list[Move]:
    """Every move worth trying on the current screen, cheapest (most relevant) first.

    `search_first`: on a screen with a search field, a tap on an entry whose label holds a task value costs
    `SEARCH_DETOUR` more until that value is typed into a field of the screen, and the search field counts as relevant.
    """
    elements = phone.elements()
    labels = _labels(elements)
    moves: list[Move] = []
    focused = None
    for e in elements:
        if e.resource_id.startswith(SKIP_IDS):
            continue
        label = labels.get(e.id, "")
        rel = _relevant(label, hints)
        if e.editable and e.focused:
            focused = e
        if e.clickable and e.enabled and not (e.editable and e.focused):
            moves.append(Move(Action.click(*e.center), label or e.resource_id.split("/")[-1], "tap", e,
                              1.0 if rel else 3.0))
        if e.long_clickable:
            moves.append(Move(Action.long_press(*e.center), label, "long_press", e, 1.5 if rel else 3.5))
        if e.scrollable:
            x1, y1, x2, y2 = e.bounds
            cx, h = (x1 + x2) // 2, y2 - y1
            if h > 300:
                moves.append(Move(Action.swipe(cx, y2 - h // 5, cx, y1 + h // 5), "the list", "scroll", e, 2.0))
                moves.append(Move(Action.swipe(cx, y1 + h // 5, cx, y2 - h // 5), "the list", "scroll_up", e, 3.0))
    if focused is not None:
        frame = phone.top_frame() or {}
        typed = {str(t).strip() for t in frame.get("fields", {}).values()}
        for v in values:
            if v in typed:
                continue
            moves.append(Move(Action.type_text(v + "\n"), labels.get(focused.id, ""), "type", focused, 0.8, v))
            moves.append(Move(Action.type_text(v), labels.get(focused.id, ""), "type", focused, 0.9, v))
    frame = phone.top_frame()
    if frame is not None and frame.get("ready_at", 0) > phone.state.clock:
        moves.append(Move(Action.wait(1.0), "loading", "wait", None, 0.5))
    moves.append(Move(Action.back(), "Back", "back", None, 2.0))
    for app in apps:
        if phone.foreground is None or phone.apps[phone.foreground].name.lower() != app.lower():
            moves.append(Move(Action.open(app), app, "open", None, 1.0))
    if search_first and _has_search(elements, labels):
        _prefer_search(moves, phone, values)
    moves.sort(key=lambda m: m.cost)
    return moves


def _prefer_search(moves: list[Move], phone: Phone, values: list[str]) -> None:
    frame = phone.top_frame() or {}
    typed = {str(t).strip().lower() for t in frame.get("fields", {}).values()}
    typed.add(str(frame.get("params", {}).get("query", "")).strip().lower())
    named = [v.lower() for v in values if len(v.strip()) >= 3]
    for m in moves:
        if m.kind not in ("tap", "long_press"):
            continue
        label = m.label.lower()
        held = [v for v in named if v in label]
        if held and not any(v in typed for v in held):
            m.cost += SEARCH_DETOUR
        elif _names_search(label, m.element):
            m.cost = min(m.cost, 1.0)


def _key(phone: Phone) -> str:
    frame = phone.top_frame()
    loading = frame is not None and frame.get("ready_at", 0) > phone.state.clock
    return phone.state_key() + ("L" if loading else "")


def _clone(value: Any) -> Any:
    """A deep copy of plain data (dicts, lists, strings, numbers, as app states are) through marshal instead of
    `copy.deepcopy`, which the search spent a third of its profiled time in (data generation about 10% faster);
    anything marshal cannot write is deep-copied."""
    try:
        return marshal.loads(marshal.dumps(value))
    except ValueError:
        return copy.deepcopy(value)


def copy_state(state: Any, keys: set[str] | None) -> Any:
    """A copy of a PhoneState deep only where planning can change it: the apps in `keys`, settings, permissions.

    The other apps' states are shared with the original (the planner opens only the task's apps),
    which makes a copy several times cheaper than `Phone.snapshot()`. `keys=None` copies everything.
    """
    if keys is None:
        return copy.deepcopy(state)
    new = copy.copy(state)
    deep = lambda k: k in keys or k.startswith("_") or k == "settings"  # noqa: E731
    new.apps = {k: _clone(v) if deep(k) else v for k, v in state.apps.items()}
    new.stacks = _clone(state.stacks)
    new.permissions = _clone(state.permissions)
    new.effects, new.log, new.answers = list(state.effects), list(state.log), list(state.answers)
    new.recents, new.launcher_order, new.removed = list(state.recents), list(state.launcher_order), list(state.removed)
    rng = random.Random()
    rng.setstate(state.rng.getstate())
    new.rng = rng
    return new


def search(phone: Phone, goal: Callable[[Phone], bool], values: list[str], hints: list[str], apps: list[str],
           allowed_effects: set[str], budget: int = 400, max_depth: int = 12,
           keys: set[str] | None = None, search_first: bool = False) -> list[PlanStep] | None:
    """Best-first search from the phone's current state to one where `goal(phone)` holds; leaves the phone as it was.

    Returns the moves (empty when the goal already holds) or None within `budget` expansions. Moves causing an
    effect outside `allowed_effects` are never taken. `keys`: the app keys the search may change (see `copy_state`).
    `search_first`: see `candidate_moves`.
    """

    class _Phone:
        @staticmethod
        def snapshot() -> Any:
            return copy_state(phone.state, keys)

        @staticmethod
        def restore(snap: Any) -> None:
            phone.state = copy_state(snap, keys)
            phone.touch()

    store = _Phone()
    start = store.snapshot()
    if goal(phone):
        return []
    counter = itertools.count()
    heap: list[tuple[float, int, Any, list[PlanStep], Move]] = []
    seen = {_key(phone)}
    for m in candidate_moves(phone, values, hints, apps, search_first):
        heapq.heappush(heap, (m.cost, next(counter), start, [], m))
    pops = 0
    while heap and pops < budget:
        prio, _, snap, path, move = heapq.heappop(heap)
        pops += 1
        store.restore(snap)
        n = len(phone.state.effects)
        info = phone.act(move.action)
        if info.get("error"):
            continue
        new = phone.state.effects[n:]
        if any(e.kind not in allowed_effects for e in new):
            continue
        key = _key(phone)
        if key in seen:
            continue
        seen.add(key)
        step = PlanStep(move, [(e.kind, dict(e.detail)) for e in new], phone.activity())
        new_path = path + [step]
        if goal(phone):
            store.restore(start)
            return new_path
        if len(new_path) >= max_depth:
            continue
        child = store.snapshot()
        for m in candidate_moves(phone, values, hints, apps, search_first):
            heapq.heappush(heap, (prio + m.cost, next(counter), child, new_path, m))
    store.restore(start)
    return None


def _screen_name(phone: Phone) -> str:
    w = words(phone.locale)
    act = phone.activity()
    if act == "launcher":
        return w["home"]
    if act == "recents":
        return w["recents"]
    app, _, screen = act.partition("/")
    name = phone.apps[app].label(phone.locale) if app in phone.apps else app
    if phone.state.overlay is not None:
        kind = phone.state.overlay.kind
        return w["overlay"].format(title=phone.state.overlay.title, app=name,
                                   kind=KINDS_ZH.get(kind, kind) if phone.locale == "zh" else kind)
    return w["screen"].format(screen=screen.replace("_", " "), app=name)


def _describe(move: Move, language: str = "en") -> str:
    w = words(language)
    if move.kind in ("tap", "long_press"):
        return w[move.kind].format(label=move.label)
    if move.kind == "type":
        return w["type"].format(text=move.text) + (w["submit"] if (move.action.text or "").endswith("\n") else "")
    if move.kind in ("scroll", "scroll_up", "back"):
        return w[move.kind]
    if move.kind == "open":
        return w["open"].format(label=move.label)
    return w["wait"]


class Expert:
    """Solves task episodes by search; see the module docstring. `run(episode)` returns an `ExpertRun`."""

    def __init__(self, budget: int = 1500, self_correct: float = 0.0, render: bool = False, scale: float = 0.3,
                 seed: int = 0, search_first: bool = False) -> None:
        self.budget = budget
        self.self_correct = self_correct
        self.search_first = search_first
        self.render = render
        self.scale = scale
        self.seed = seed

    def run(self, episode: TaskEpisode) -> ExpertRun:
        env = episode.make_env(render=self.render, scale=self.scale, xml=False)
        spec, params = episode.spec, episode.params
        planner = env.phone  # searched in place: copies of its state are taken and put back (see `search`)
        rng = random.Random(f"{self.seed}:{episode.id}:expert")
        wrong_at = rng.randint(0, 3) if rng.random() < self.self_correct else -1
        record = Episode(id=episode.id, instruction=episode.instruction, apps=list(spec.apps),
                         screen_size=env.screen_size, category=spec.category, subcategory=spec.subcategory,
                         meta={"task": spec.id, "split": episode.split, "template": episode.template,
                               "seed": episode.seed, "params": {k: v for k, v in params.items()},
                               # the instruction's phrasing with its placeholders: `data.instruction_dropout` drops
                               # words of the phrasing and never a parameter's value
                               "phrasing": episode.template_text,
                               # the task in the spec's first train phrasing: the `restated` SFT thought writes it
                               "restated": fill(spec.templates_for(episode.locale).train[0], params)})
        hidden = {str(v) for k, v in params.items() if spec.params[k].hidden}
        revealed: set[str] = set()
        state = {"stuck": None, "recovering": False, "stopped": False}
        user = env.user
        w = words(episode.locale)
        keys = {k for k in (resolve_app(a, list(env.phone.apps)) for a in spec.apps) if k}

        def values() -> list[str]:
            out = []
            for k, v in params.items():
                if k.endswith("_id"):
                    continue
                if isinstance(v, (str, int, float)) and not isinstance(v, bool):
                    out.append(str(v))
            return list(dict.fromkeys(out))

        def emit(action: Action, thought: str, description: str, element: UIElement | None = None,
                 **extra: Any) -> dict[str, Any]:
            obs = env.observe()
            obs.app_state = None
            _, _, _, info = env.step(action)
            step = Step(action=action, thought=thought, description=description, observation=obs,
                        bbox=element.bounds if element is not None else None, user_reply=info.get("user_reply"),
                        info={k: v for k, v in extra.items() if v})
            record.steps.append(step)
            if info.get("user_reply"):
                for h in hidden:
                    if h in info["user_reply"]:
                        revealed.add(h)
            return info

        def ask(inq: Inquiry, purpose: str) -> bool:
            """Ask; False when the user declined (then the expert stops)."""
            question = self._question(inq, episode, env.phone)
            info = emit(Action.call_user(question),
                        w["ask_thought"].format(where=_screen_name(env.phone), purpose=purpose), w["ask"])
            if inq.reply == "decline":
                emit(Action.terminate("success"), w["declined"].format(reply=info.get("user_reply")), w["stop"])
                state["stopped"] = True
                return False
            return True

        def pending() -> Inquiry | None:
            return user.pending()

        # A vague intent: ask before anything else.
        inq = pending()
        if inq is not None and inq.at_start:
            if not ask(inq, w["vague"].format(instruction=episode.instruction)):
                return self._finish(record, env, episode, state)

        for index, cond in enumerate(spec.plan):
            guard = 0
            while not state["stopped"] and not check(env.phone, cond, params):
                guard += 1
                if guard > 6:
                    state["stuck"] = f"milestone {index + 1} ({cond.kind}) not reached after 6 plans"
                    break
                inq = pending()
                if inq is not None and index < inq.after:
                    inq = None
                if inq is not None and inq.screen and on_screen(env.phone.activity(), fill(inq.screen, params)):
                    if not ask(inq, self._purpose(inq, episode)):
                        break
                    continue
                target_screen = fill(inq.screen, params) if inq is not None and inq.screen else None

                def goal(p: Phone, c: Condition = cond, ts: str | None = target_screen) -> bool:
                    return check(p, c, params) or (ts is not None and on_screen(p.activity(), ts))

                hints = [str(fill(h, params)) for h in cond.hint]
                if env.phone.locale != "en":  # the hint words as the phone's apps show them
                    hints += [env.phone.t(h, key) for h in hints for key in keys]
                hints += values()
                allowed = {c.effect for c in spec.plan if c.kind == "effect"} | {
                    i.effect for i in spec.inquiries if i.effect} | {"permission"}
                path = search(planner, goal, values(), hints, list(spec.apps), allowed, self.budget,  # type: ignore[arg-type]
                              keys=keys, search_first=self.search_first)
                if path is None and env.phone.activity() != "launcher" and guard < 4:
                    emit(Action.back(), w["lost"].format(where=_screen_name(env.phone)), w["back"], recovery=True)
                    continue
                if path is None:
                    state["stuck"] = f"no path to milestone {index + 1} ({cond.kind}) from {env.phone.activity()}"
                    break
                if not path:
                    break
                say = self._say(cond, episode)
                for n, ps in enumerate(path):
                    if 0 <= wrong_at <= len(record.steps) and ps.move.kind == "tap":
                        wrong_at = -1
                        if self._wrong_step(env, emit, values(), spec.apps, {p.activity for p in path[n:]}):
                            state["recovering"] = True
                            break
                    inq = pending()
                    if inq is not None and index < inq.after:
                        inq = None
                    if inq is not None and inq.effect and any(
                            k == inq.effect and match_detail(d, fill(inq.where, params)) for k, d in ps.effects):
                        if not ask(inq, self._purpose(inq, episode)):
                            break
                    elif (inq is not None and ps.move.kind == "type" and ps.move.text in hidden
                          and ps.move.text not in revealed):
                        if not ask(inq, self._purpose(inq, episode)):
                            break
                        break  # the reply may change the plan: plan again
                    thought = self._thought(env.phone, ps.move, say, state)
                    info = emit(ps.move.action, thought, _describe(ps.move, episode.locale), ps.move.element,
                                recovery=state["recovering"])
                    state["recovering"] = False
                    if info.get("error"):
                        break  # the real phone differs from the plan: plan again
                if state["stopped"]:
                    break
            if state["stopped"] or state["stuck"]:
                break
        if not state["stopped"] and not state["stuck"]:
            if spec.answer:
                text = str(fill(spec.answer, params))
                emit(Action.answer(text), w["answer_thought"].format(where=_screen_name(env.phone), text=text),
                     w["answer"].format(text=text))
            emit(Action.terminate("success"), w["done_thought"].format(where=_screen_name(env.phone),
                                                                       instruction=episode.instruction), w["done"])
        return self._finish(record, env, episode, state)

    def _finish(self, record: Episode, env: SimEnv, episode: TaskEpisode, state: dict[str, Any]) -> ExpertRun:
        j = judge(episode, env.phone)
        record.success = j.verdict.success and state["stuck"] is None
        record.meta["inquiry"] = j.verdict.inquiry
        return ExpertRun(record, j, state["stuck"], env)

    def _wrong_step(self, env: SimEnv, emit: Callable[..., Any], values: list[str], apps: list[str],
                    planned: set[str]) -> bool:
        """Take a plausible but wrong tap: one to a screen off the plan (`planned` activities), nothing irreversible."""
        phone = env.phone
        snap = copy_state(phone.state, None)
        moves = [m for m in candidate_moves(phone, values, [], apps) if m.kind == "tap"]
        rng = random.Random(f"{self.seed}:{phone.state_key()}:wrong")
        rng.shuffle(moves)
        base = _key(phone)
        chosen = None
        for m in moves[:8]:
            phone.state = copy_state(snap, None)
            phone.touch()
            n = len(phone.state.effects)
            info = phone.act(m.action)
            if (info.get("error") or len(phone.state.effects) > n or _key(phone) == base or phone.state.overlay
                    or phone.activity() in planned or phone.foreground is None):
                continue
            chosen = m
            break
        phone.state = copy_state(snap, None)
        phone.touch()
        if chosen is None:
            return False
        emit(chosen.action, words(phone.locale)["wrong"].format(where=_screen_name(phone), label=chosen.label),
             _describe(chosen, phone.locale), chosen.element, wrong=True)
        return True

    @staticmethod
    def _say(cond: Condition, episode: TaskEpisode) -> str:
        w = words(episode.locale)
        if cond.kind == "screen":
            screen = str(fill(cond.screen, episode.params)).split("/")[-1].replace("_", " ")
            return w["say_screen"].format(screen=screen)
        return w["say_goal"].format(instruction=episode.instruction)

    @staticmethod
    def _thought(phone: Phone, move: Move, say: str, state: dict[str, Any]) -> str:
        w = words(phone.locale)
        where = w["where"].format(where=_screen_name(phone))
        if state.get("recovering"):
            where += w["recovering"]
        described = _describe(move, phone.locale)
        return w["next"].format(where=where, move=described[0].lower() + described[1:], say=say)

    @staticmethod
    def _purpose(inq: Inquiry, episode: TaskEpisode) -> str:
        w = words(episode.locale)
        if inq.reply == "login":
            return w["purpose_login"]
        if inq.reply == "supply":
            return w["purpose_supply"]
        if inq.effect:
            return w["purpose_effect"].format(effect=inq.effect)
        return w["purpose_vague"]

    @staticmethod
    def _question(inq: Inquiry, episode: TaskEpisode, phone: Phone) -> str:
        w = words(episode.locale)
        question = inq.question_zh if episode.locale == "zh" and inq.question_zh else inq.question
        if question:
            return str(fill(question, episode.params))
        if inq.reply == "login":
            app = phone.apps[phone.foreground].label(phone.locale) if phone.foreground else str(inq.app)
            return w["ask_login"].format(app=app)
        if inq.reply == "supply":
            return w["ask_supply"]
        if inq.at_start:
            return w["ask_vague"].format(instruction=episode.instruction)
        return w["ask_effect"].format(effect=inq.effect)


def run_expert(episode: TaskEpisode, **kwargs: Any) -> ExpertRun:
    """Run the expert on one episode (keyword arguments go to `Expert`)."""
    return Expert(**kwargs).run(episode)


def demonstrate(task: TaskEpisode, *, ask: bool = True, self_correct: float = 0.0, seed: int = 0, render: bool = False,
                scale: float = 0.3, search_first: bool = False) -> Demonstration:
    """The expert's demonstration of `task` from its start, on a phone of its own (`TaskEnv.expert_demo`'s options;
    `ask=False` plans as if the task needed no question: it acts as if the user had agreed)."""
    if not ask:
        task = replace(task, spec=task.spec.model_copy(update={"inquiries": []}), params=dict(task.params))
    run = Expert(seed=seed, self_correct=self_correct, render=render, scale=scale, search_first=search_first).run(task)
    return Demonstration(run.episode, run.judgement.verdict, run.stuck)


__all__ = ["Expert", "ExpertRun", "run_expert", "demonstrate", "search", "candidate_moves"]
