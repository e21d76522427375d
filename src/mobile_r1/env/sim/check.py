"""`mobile-r1 sim check`: the expert and the rule judge on every episode of a suite split, and what is wrong with a task."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from mobile_r1.env.sim.episode import TaskEpisode, build_split
from mobile_r1.env.sim.expert import Expert
from mobile_r1.env.sim.state import check

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


def check_split(suite: str, split: str = "test", seed: int = 0, size: int | None = None,
                progress: Progress | None = None, total: Callable[[int], None] | None = None) -> CheckReport:
    """Run the expert on every episode of a split and judge it (`progress(episode_id)` after each)."""
    episodes = build_split(suite, split, seed, size)
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
