"""`mobile-r1 sim check`: the expert and the rule judge on every episode of a suite split, and what is wrong with a task.

The judge is audited too: an episode whose goal holds at the start, that the judge passes when the agent does nothing,
or that a random walk completes (`RANDOM_WALKS` seeded walks of the task's step budget: taps on elements or anywhere,
swipes, typing, Back and Home, opening the task's apps, questions to the user, stopping) passes by default, and is
reported as a problem.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable

from mobile_r1.core.actions import Action
from mobile_r1.env.sim.episode import TaskEpisode, build_split
from mobile_r1.env.sim.expert import Expert
from mobile_r1.env.sim.judge import judge
from mobile_r1.env.sim.state import check
from mobile_r1.sim.driver import SimEnv
from mobile_r1.tasks.spec import load_task_specs

RANDOM_WALKS = 3
_WORDS = ("hello", "yes", "ok", "search", "photo", "pay", "100", "mom", "好的", "搜索")

Progress = Callable[[str], None]


@dataclass(slots=True)
class EpisodeCheck:
    """The expert's run on one episode as the judge saw it, and anything wrong with the task itself."""

    episode_id: str
    task: str
    subcategory: str
    needs_inquiry: bool
    success: bool
    inquiry: str
    over_asks: int
    safety_violation: bool
    steps: int
    score: float | None
    problems: list[str] = field(default_factory=list)


@dataclass
class CheckReport:
    """Figures of one `check` run; `ok` is the bar: all solved, all needed questions asked, no over-asking."""

    suite: str
    split: str
    episodes: list[EpisodeCheck]

    def _rate(self, rows: list[EpisodeCheck], ok: Callable[[EpisodeCheck], bool]) -> float:
        return sum(ok(r) for r in rows) / len(rows) if rows else 1.0

    def summary(self) -> dict[str, Any]:
        rows = self.episodes
        inq = [r for r in rows if r.needs_inquiry]
        ctl = [r for r in rows if not r.needs_inquiry]
        steps = [r.steps for r in rows]
        return {
            "suite": self.suite, "split": self.split, "episodes": len(rows),
            "success": self._rate(rows, lambda r: r.success),
            "inquiry_needing": len(inq), "inquiry_success": self._rate(inq, lambda r: r.inquiry == "asked"),
            "controls": len(ctl), "over_asking_controls": sum(1 for r in ctl if r.over_asks > 0),
            "safety_violations": sum(r.safety_violation for r in rows),
            "mean_score": sum(r.score or 0 for r in rows) / len(rows) if rows else 0.0,
            "steps_min": min(steps, default=0), "steps_max": max(steps, default=0),
            "steps_mean": sum(steps) / len(steps) if steps else 0.0,
            "problems": sum(1 for r in rows if r.problems),
        }

    @property
    def ok(self) -> bool:
        s = self.summary()
        return (s["success"] == 1.0 and s["inquiry_success"] == 1.0 and s["over_asking_controls"] == 0
                and s["problems"] == 0)


def check_episode(ep: TaskEpisode, expert: Expert, steps_range: tuple[int, int] | None = None) -> EpisodeCheck:
    """Run the expert on one episode; list problems: judge disagreement, goal true at the start, odd length."""
    problems = []
    start = ep.make_env(render=False, xml=False)
    if not any(i.reply == "decline" for i in ep.spec.inquiries) and all(
            check(start.phone, c, ep.params) for c in ep.spec.goal):
        problems.append("the goal already holds at the start")
    if judge(ep, start.phone).verdict.success:
        problems.append("passes by default: the judge passes it when the agent does nothing")
    walked = next((seed for seed in range(RANDOM_WALKS) if random_walk(ep, seed)), None)
    if walked is not None:
        problems.append(f"passes by default: random walk {walked} completes it")
    run = expert.run(ep)
    v = run.judgement.verdict
    believes = run.stuck is None
    if believes != v.success:
        problems.append(f"judge disagreement: expert {'finished' if believes else 'stuck: ' + str(run.stuck)}, "
                        f"judge says {'success' if v.success else 'failure'} ({v.reason})")
    if steps_range is not None and not steps_range[0] <= v.steps <= steps_range[1]:
        problems.append(f"expert length {v.steps} outside {steps_range[0]}..{steps_range[1]}")
    if v.steps > ep.spec.max_steps:
        problems.append(f"expert needed {v.steps} steps, over the task's budget of {ep.spec.max_steps}")
    return EpisodeCheck(ep.id, ep.spec.id, ep.spec.subcategory, ep.spec.needs_inquiry, v.success, v.inquiry,
                        v.over_asks, v.safety_violation, v.steps, v.score, problems)


def random_walk(ep: TaskEpisode, seed: int) -> bool:
    """Play the episode with seeded random actions for its whole step budget; whether the judge passes it."""
    env = ep.make_env(render=False, xml=False)
    rng = random.Random(f"{ep.id}:walk:{seed}")
    for _ in range(ep.spec.max_steps):
        action = _random_action(env, ep, rng)
        env.step(action)
        if env.done:
            break
    return judge(ep, env.phone).verdict.success


def _random_action(env: SimEnv, ep: TaskEpisode, rng: random.Random) -> Action:
    w, h = env.screen_size
    kind = rng.choice(("click", "click", "click", "long_press", "swipe", "type", "back", "home", "open", "call_user",
                       "answer", "terminate"))
    elements = [e for e in env.phone.elements() if e.clickable]
    if kind in ("click", "long_press"):
        if elements and rng.random() < 0.7:
            x1, y1, x2, y2 = rng.choice(elements).bounds
            x, y = rng.randint(x1, max(x1, x2 - 1)), rng.randint(y1, max(y1, y2 - 1))
        else:
            x, y = rng.randrange(w), rng.randrange(h)
        return Action.click(x, y) if kind == "click" else Action.long_press(x, y, time=1.0)
    if kind == "swipe":
        return Action.swipe(rng.randrange(w), rng.randrange(h), rng.randrange(w), rng.randrange(h))
    if kind == "type":
        return Action.type_text(rng.choice(_WORDS) + ("\n" if rng.random() < 0.5 else ""))
    if kind in ("back", "home"):
        return Action.system_button("Back" if kind == "back" else "Home")
    if kind == "open":
        return Action.open(rng.choice(ep.spec.apps))
    if kind == "call_user":
        return Action.call_user("Should I go ahead?")
    if kind == "answer":
        return Action.answer(rng.choice(_WORDS))
    return Action.terminate("success")


def check_split(suite: str, split: str = "test", seed: int = 0, size: int | None = None,
                progress: Progress | None = None, total: Callable[[int], None] | None = None,
                specs: str | None = None, specs_only: bool = False) -> CheckReport:
    """Run the expert on every episode of a split and judge it (`progress(episode_id)` after each); `specs` adds a
    folder of the user's task specs to the packaged ones (`specs_only`: alone)."""
    episodes = build_split(suite, split, seed, size, specs=load_task_specs(specs, specs_only))
    if total is not None:
        total(len(episodes))
    expert = Expert(seed=seed)
    steps_range = (3, 15) if suite == "nav-sim" else None
    rows = []
    for ep in episodes:
        rows.append(check_episode(ep, expert, steps_range))
        if progress is not None:
            progress(ep.id)
    return CheckReport(suite, split, rows)
