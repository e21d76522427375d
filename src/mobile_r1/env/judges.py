"""Judges of a recorded trajectory, for phones that cannot judge themselves (a real device has no rule judge).

    judge = make_judge("model", model="gpt-4o", base_url=..., language="zh")    # registered by mobile_r1.eval.judge
    judge = make_judge("person", person=TtyPerson())
    judgement = judge.judge(Trajectory(episode, steps, final))

Judges are found in the core registry (`JUDGES`): by name, by the entry-point group `mobile_r1.judges`, or a third
party's as `package.module:Name`; a factory is called with the judge's options (`make_judge(spec, **options)`). The
model judge (InquireMobile's GPT-4o judge, `mobile_r1.eval.judge.ModelJudge`) lives above this layer; it registers
itself here under "model" when `mobile_r1.eval.judge` is imported (the evaluation runner imports it), so a backend
names judges without importing the layers above it. "person" asks the person at the terminal. A spec
"NAME+person" ("model+person") shows that judge's verdict to the person, who keeps it or gives their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Protocol

from mobile_r1.core.errors import ConfigError
from mobile_r1.core.registry import Registry
from mobile_r1.core.records import Observation, Step
from mobile_r1.core.verdict import EpisodeVerdict, Judgement
from mobile_r1.env.person import Person
from mobile_r1.env.protocol import EpisodeRef

if TYPE_CHECKING:
    from PIL.Image import Image


@dataclass(slots=True)
class Trajectory:
    """An episode as played: its steps (each with the observation it was taken on) and the final screen."""

    episode: EpisodeRef
    steps: list[Step] = field(default_factory=list)
    final: Observation | None = None

    @property
    def intent(self) -> str:
        value = self.episode.meta.get("intension") or self.episode.meta.get("intent")
        return str(value) if value else self.episode.instruction

    def screenshots(self) -> list[Image]:
        """The screen before every step and the final one (those there are)."""
        shots = [s.observation.screenshot for s in self.steps if s.observation is not None]
        if self.final is not None:
            shots.append(self.final.screenshot)
        return [s for s in shots if s is not None]

    def summary(self) -> str:
        lines = []
        for n, step in enumerate(self.steps, 1):
            line = f"  {n}. {step.action}"
            if step.user_reply:
                line += f"  -> user: {step.user_reply}"
            lines.append(line)
        return "\n".join(lines) or "  (no steps)"


class TrajectoryJudge(Protocol):
    """Judges a trajectory."""

    def judge(self, trajectory: Trajectory) -> Judgement: ...


JudgeFactory = Callable[..., TrajectoryJudge]
JUDGES: Registry[JudgeFactory] = Registry("judge", entry_points="mobile_r1.judges")
PERSON = "person"  # the person at the terminal (`PersonJudge`), made here with the person it is given


def register_judge(name: str, factory: JudgeFactory, *, replace: bool = False) -> None:
    """Make `make_judge("NAME", **options)` call `factory(**options)`."""
    JUDGES.register(name, factory, replace=replace)


def judge_names() -> list[str]:
    return sorted(set(JUDGES.names()) | {PERSON})


def verdict_fields(episode: EpisodeRef, steps: int) -> dict[str, Any]:
    return {"episode_id": episode.id, "steps": steps, "category": episode.category,
            "subcategory": episode.subcategory, "language": episode.language}


class PersonJudge:
    """The person at the terminal judges; `proposal` (another judge) is shown first and may be kept."""

    def __init__(self, person: Person, proposal: TrajectoryJudge | None = None) -> None:
        if not person.present:
            raise ConfigError("a person's verdict needs a person at the terminal (standard input is not one)")
        self.person = person
        self.proposal = proposal

    def judge(self, trajectory: Trajectory) -> Judgement:
        summary = trajectory.summary()
        proposed = self.proposal.judge(trajectory) if self.proposal is not None else None
        if proposed is not None:
            v = proposed.verdict
            summary += (f"\nthe model judge says: {'success' if v.success else 'failure'}, inquiry {v.inquiry}, "
                        f"score {v.score}: {v.reason[:200]}\n(answer as you see it; the same answers keep its verdict)")
        said = self.person.verdict(trajectory.episode, summary)
        if said is None:
            if proposed is not None:
                return proposed
            raise ConfigError("the person gave no verdict")
        steps = len(trajectory.steps)
        asked = any(s.action.is_inquiry for s in trajectory.steps)
        if said.asked_well is None:
            inquiry = "asked" if asked else "not_needed"
        elif said.asked_well:
            inquiry = "asked" if asked else "not_needed"
        else:
            inquiry = "over_asked" if asked and trajectory.episode.needs_inquiry is False else "missed"
        verdict = EpisodeVerdict(success=said.success, inquiry=inquiry, score=said.score, reason=said.reason,  # type: ignore[arg-type]
                                 **verdict_fields(trajectory.episode, steps))
        if proposed is not None and proposed.verdict.success == said.success and said.score is None:
            verdict.score = proposed.verdict.score
        asked_steps = [i for i, s in enumerate(trajectory.steps) if s.action.is_inquiry]
        return Judgement(verdict, judge="person", asked_steps=asked_steps)


def make_judge(spec: str, person: Person | None = None, **options: Any) -> TrajectoryJudge:
    """The judge `spec` names: "person", a registered one ("model"), a `package.module:Name`, or "NAME+person"."""
    name, plus, second = spec.strip().partition("+")
    if JUDGES.key(name) == PERSON and not plus:
        if person is None:
            raise ConfigError("the person judge needs a person")
        return PersonJudge(person)
    if JUDGES.key(name) == "model" and "model" not in JUDGES:
        raise ConfigError(f"unknown judge 'model'; judges: {', '.join(judge_names())} (import mobile_r1.eval.judge, "
                          "which `mobile-r1 eval` does)")
    judge = JUDGES.get(name)(**options)
    if plus:
        if second.strip().lower() != PERSON or person is None:
            raise ConfigError(f"a judge spec is NAME or NAME+person, got {spec!r}")
        return PersonJudge(person, judge)
    return judge


__all__ = ["Trajectory", "TrajectoryJudge", "PersonJudge", "JUDGES", "JudgeFactory", "register_judge", "make_judge",
           "judge_names", "verdict_fields"]
