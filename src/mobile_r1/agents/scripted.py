"""Scripted agents on the simulated tasks: `oracle` (the expert), `never-ask` (the expert that never asks), `always-ask`.

They follow a plan the task expert (`mobile_r1.tasks.Expert`) finds for the episode, one planned action per step;
step i of an episode is answered with the plan's i-th action (i = the number of steps in the request's history).
The simulator is deterministic per seed, so the plan replays exactly on an env made by `TaskEpisode.make_env`.

- `oracle`: the expert's own plan, questions included.
- `never-ask`: the expert planned with every inquiry removed from the task: it never calls the user and carries on
  as if the user had agreed (a declined payment is paid; a clarification is taken as already known).
- `always-ask`: the oracle's plan with a `call_user` question before every other action (ignoring the replies).

The agent learns the task either from `start_episode(task_episode)` (what the evaluation runner calls) or, failing
that, from the request's `episode_id` (`<spec id>/<split><template>/s<seed>`, read against the packaged specs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from mobile_r1.agents.base import Agent, AgentOutput, AgentRequest
from mobile_r1.agents.registry import register_agent
from mobile_r1.core.actions import Action, ActionType
from mobile_r1.core.dialects import ParseResult, get_dialect
from mobile_r1.core.errors import ConfigError

_EPISODE_ID = re.compile(r"^(?P<spec>[a-z0-9_.\-]+)/(?P<split>[a-z_\-]+?)(?P<template>\d+)/s(?P<seed>\d+)$")
FREE_TYPES = frozenset({ActionType.CALL_USER, ActionType.TERMINATE, ActionType.ANSWER})


@dataclass(frozen=True, slots=True)
class PlannedStep:
    """One planned action with the thought and one-line description that go with it."""

    action: Action
    thought: str
    description: str
    state_key: str | None = None


def task_from_episode_id(episode_id: str) -> Any:
    """The `TaskEpisode` an id like `shop.buy/test1/s7` names, from the packaged task specs."""
    from mobile_r1.tasks import load_specs, make_episode

    match = _EPISODE_ID.match(episode_id or "")
    if match is None:
        raise ConfigError(
            f"cannot tell the task from episode id {episode_id!r}; scripted agents run on the simulated suites "
            "(mobile-r1 eval --suite inquire-sim) or need start_episode(task_episode)"
        )
    specs = {s.id: s for s in load_specs()}
    spec = specs.get(match["spec"])
    if spec is None:
        raise ConfigError(f"episode {episode_id!r} names no known task spec {match['spec']!r}")
    return make_episode(spec, match["split"], int(match["template"]), int(match["seed"]))


def expert_plan(task: Any, *, drop_inquiries: bool = False) -> list[PlannedStep]:
    """The expert's steps for a task episode; with `drop_inquiries` planned as if the task needed no question."""
    from mobile_r1.tasks import Expert, TaskEpisode

    episode = task
    if drop_inquiries:
        spec = task.spec.model_copy(update={"inquiries": []})
        episode = TaskEpisode(spec, task.split, task.template, task.seed, dict(task.params), task.instruction)
    run = Expert(render=False).run(episode)
    steps = [
        PlannedStep(s.action, s.thought, s.description, s.observation.state_key if s.observation else None)
        for s in run.episode.steps
    ]
    if not steps or steps[-1].action.type is not ActionType.TERMINATE:
        why = run.stuck or "the plan ended early"
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


class ScriptedAgent(Agent):
    """Replays a per-episode plan built by `planner(task_episode)`; see the module docstring."""

    def __init__(self, name: str, planner: Callable[[Any], list[PlannedStep]], *, dialect: str = "qwen2.5vl") -> None:
        self.name = name
        self.planner = planner
        self.dialect = get_dialect(dialect)
        self.tasks: dict[str, Any] = {}
        self.plans: dict[str, list[PlannedStep]] = {}

    def start_episode(self, task: Any) -> None:
        """Tell the agent which task episode the requests with `episode_id == task.id` belong to."""
        self.tasks[task.id] = task
        self.plans.pop(task.id, None)

    def reset(self, episode_id: str | None = None) -> None:
        if episode_id is None:
            self.tasks.clear()
            self.plans.clear()
        else:
            self.plans.pop(episode_id, None)

    def plan_for(self, episode_id: str) -> list[PlannedStep]:
        if episode_id not in self.plans:
            task = self.tasks.get(episode_id) or task_from_episode_id(episode_id)
            self.plans[episode_id] = self.planner(task)
        return self.plans[episode_id]

    def _render(self, step: PlannedStep) -> str:
        try:
            return self.dialect.render(step.action, thought=step.thought, description=step.description)
        except Exception:  # an action this dialect cannot write (e.g. `open` in `inquire`): fall back to the tool call
            import json

            return json.dumps(step.action.to_tool_call(), ensure_ascii=False)

    def act_batch(self, requests: Sequence[AgentRequest]) -> list[AgentOutput]:
        outputs = []
        for r in requests:
            if r.episode_id is None:
                raise ConfigError(f"the {self.name} agent needs AgentRequest.episode_id to know the task")
            plan = self.plan_for(r.episode_id)
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


def _options(argument: str | None, options: dict[str, Any], kind: str) -> str:
    if argument:
        raise ConfigError(f"the {kind} agent takes no argument")
    dialect = options.pop("dialect", None) or "qwen2.5vl"
    options.pop("observation_mode", None)  # a script reads the task, not the screen
    if options:
        raise ConfigError(f"the {kind} agent takes only 'dialect'; got {', '.join(sorted(options))}")
    return str(dialect)


def _oracle(argument: str | None, **options: Any) -> Agent:
    return ScriptedAgent("oracle", expert_plan, dialect=_options(argument, options, "oracle"))


def _never_ask(argument: str | None, **options: Any) -> Agent:
    return ScriptedAgent(
        "never-ask", lambda task: expert_plan(task, drop_inquiries=True), dialect=_options(argument, options, "never-ask")
    )


def _always_ask(argument: str | None, **options: Any) -> Agent:
    return ScriptedAgent(
        "always-ask", lambda task: always_ask(expert_plan(task)), dialect=_options(argument, options, "always-ask")
    )


def register() -> None:
    """Register `oracle`, `never-ask` and `always-ask` (idempotent)."""
    register_agent("oracle", _oracle, replace=True)
    register_agent("never-ask", _never_ask, replace=True)
    register_agent("always-ask", _always_ask, replace=True)


register()

__all__ = ["ScriptedAgent", "PlannedStep", "expert_plan", "always_ask", "task_from_episode_id", "register"]
