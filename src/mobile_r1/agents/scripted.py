"""Scripted agents: `oracle` (the expert), `never-ask` (the expert that never asks), `always-ask`.

They replay the demonstration of the backend's expert (the EXPERT capability of `mobile_r1.env`), one planned
action per step; step i of an episode is answered with the plan's i-th action (i = the number of steps in the
request's history). Backends replay deterministically per seed, so the plan replays exactly on the phone the
episode is played on.

- `oracle`: the expert's own plan, questions included.
- `never-ask`: the expert planned with every inquiry removed from the task: it never calls the user and carries on
  as if the user had agreed (a declined payment is paid; a clarification is taken as already known).
- `always-ask`: the oracle's plan with a `call_user` question before every other action (ignoring the replies).

Each takes `dialect` and `self_correct` (0..1, default 0): the share of episodes whose expert takes one wrong step
first and then recovers, so that metrics of recovery (self-corrections) can be checked against a known agent.

The plan is made in `start_episode(episode, env)` (`start_episodes` for many, their expert demonstrations asked of
the phones at once), which the evaluation runner calls before an episode's first request; a backend without an
expert gets a clear error there.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Sequence

from mobile_r1.agents.base import Agent, AgentOutput, AgentRequest
from mobile_r1.agents.registry import register_agent
from mobile_r1.core.actions import Action, ActionType
from mobile_r1.core.dialects import ParseResult, get_dialect
from mobile_r1.core.errors import ActionError, ConfigError, InfraError
from mobile_r1.env.protocol import Capability, Demonstration, EpisodeRef, PlannedStep, TaskEnv, expert_demos

FREE_TYPES = frozenset({ActionType.CALL_USER, ActionType.TERMINATE, ActionType.ANSWER})
Shape = Callable[[list[PlannedStep]], list[PlannedStep]]


def expert_plan(env: TaskEnv, *, ask: bool = True) -> list[PlannedStep]:
    """The expert's steps for the episode on `env`, ending with `terminate`; `ask=False` plans as if the task needed
    no question."""
    return plan_of(env.expert_demo(ask=ask))


def plan_of(demo: Demonstration) -> list[PlannedStep]:
    """A demonstration's steps, ending with `terminate` (a `failure` one where the expert stopped short)."""
    steps = demo.plan()
    if not steps or steps[-1].action.type is not ActionType.TERMINATE:
        why = demo.stuck or "the plan ended early"
        steps.append(PlannedStep(Action.terminate("failure"), f"I cannot finish this task ({why}).", "Give up"))
    return steps


def always_ask(plan: Sequence[PlannedStep]) -> list[PlannedStep]:
    """The plan with a question before every action that is not itself a question, an answer or the end."""
    out: list[PlannedStep] = []
    for step in plan:
        previous_asked = bool(out) and out[-1].action.type is ActionType.CALL_USER
        if step.action.type not in FREE_TYPES and not previous_asked:
            what = step.description[:1].lower() + step.description[1:] if step.description else str(step.action)
            out.append(
                PlannedStep(
                    Action.call_user(f"Next I will {what}. Is that all right?"),
                    "I check every step with the user before acting.",
                    "Ask the user before acting",
                    step.state_key,
                )
            )
        out.append(step)
    return out


def _same(plan: list[PlannedStep]) -> list[PlannedStep]:
    return plan


class ScriptedAgent(Agent):
    """Replays a per-episode plan: the expert's demonstration (`ask=False`: planned without questions), reshaped by
    `shape`; see the module docstring."""

    def __init__(self, name: str, *, ask: bool = True, shape: Shape = _same, dialect: str = "qwen2.5vl",
                 self_correct: float = 0.0) -> None:
        if not 0.0 <= self_correct <= 1.0:
            raise ConfigError(f"the {name} agent's self_correct is a share of episodes from 0 to 1; got {self_correct}")
        self.name = name
        self.ask = ask
        self.self_correct = self_correct
        self.shape = shape
        self.dialect = get_dialect(dialect)
        self.plans: dict[str, list[PlannedStep]] = {}

    def start_episode(self, episode: EpisodeRef, env: TaskEnv) -> None:
        """Plan the episode with the backend's expert (requests with `episode_id == episode.id` follow the plan)."""
        self.start_episodes([(episode, env)])

    def start_episodes(self, started: Sequence[tuple[EpisodeRef, TaskEnv]]) -> None:
        """Plan many episodes, their experts' demonstrations asked of the phones at once."""
        for _, env in started:
            env.require(Capability.EXPERT, f"the {self.name} agent")
        demos = expert_demos([env for _, env in started], ask=self.ask, self_correct=self.self_correct)
        for (episode, _), demo in zip(started, demos):
            if isinstance(demo, InfraError):
                raise demo
            self.plans[episode.id] = self.shape(plan_of(demo))

    def reset(self, episode_id: str | None = None) -> None:
        if episode_id is None:
            self.plans.clear()
        else:
            self.plans.pop(episode_id, None)

    def _render(self, step: PlannedStep) -> str:
        try:
            return self.dialect.render(step.action, thought=step.thought, description=step.description)
        except ActionError:  # an action this dialect cannot write (e.g. `open` in `inquire`): the plain tool call
            return json.dumps(step.action.to_tool_call(), ensure_ascii=False)

    def act_batch(self, requests: Sequence[AgentRequest]) -> list[AgentOutput]:
        outputs = []
        for r in requests:
            plan = self.plans.get(r.episode_id or "")
            if plan is None:
                raise ConfigError(f"the {self.name} agent has no plan for episode {r.episode_id!r}: it plays episodes "
                                  "through `mobile-r1 eval`, which calls start_episode(episode, env) first")
            index = len(r.history)
            if index < len(plan):
                step = plan[index]
            else:
                step = PlannedStep(Action.terminate("failure"), "My plan is used up.", "Give up")
            on_plan = step.state_key is None or r.observation.state_key is None or step.state_key == r.observation.state_key
            text = self._render(step)
            parse = ParseResult(step.action, step.thought, step.description, True, None, text)
            outputs.append(AgentOutput(text, parse, step.action, {"plan_step": index, "on_plan": on_plan}))
        return outputs


def _options(argument: str | None, options: dict[str, object], kind: str) -> dict[str, Any]:
    if argument:
        raise ConfigError(f"the {kind} agent takes no argument")
    dialect = options.pop("dialect", None) or "qwen2.5vl"
    options.pop("observation_mode", None)  # a script reads the task, not the screen
    self_correct = options.pop("self_correct", 0.0)
    if options:
        raise ConfigError(f"the {kind} agent takes only 'dialect' and 'self_correct'; got {', '.join(sorted(options))}")
    if isinstance(self_correct, bool) or not isinstance(self_correct, (int, float)):
        raise ConfigError(f"the {kind} agent's self_correct is a number from 0 to 1; got {self_correct!r}")
    return {"dialect": str(dialect), "self_correct": float(self_correct)}


def _oracle(argument: str | None, **options: object) -> Agent:
    return ScriptedAgent("oracle", **_options(argument, options, "oracle"))


def _never_ask(argument: str | None, **options: object) -> Agent:
    return ScriptedAgent("never-ask", ask=False, **_options(argument, options, "never-ask"))


def _always_ask(argument: str | None, **options: object) -> Agent:
    return ScriptedAgent("always-ask", shape=always_ask, **_options(argument, options, "always-ask"))


def register() -> None:
    """Register `oracle`, `never-ask` and `always-ask` (idempotent)."""
    register_agent("oracle", _oracle, replace=True)
    register_agent("never-ask", _never_ask, replace=True)
    register_agent("always-ask", _always_ask, replace=True)


register()

__all__ = ["ScriptedAgent", "expert_plan", "plan_of", "always_ask", "register"]
