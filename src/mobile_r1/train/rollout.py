"""Multi-turn rollouts on the simulated phone: G copies of each task from one snapshot, one batched generation per turn.

    groups = start_groups(episodes, group_size=4)                  # reset once per task, snapshot, restore into G envs
    trajectories = rollout(policy, view, groups, RolloutSettings(max_turns=8))
    trajectories[0].turns[0].prompt_ids, .completion_ids, .action, .user_reply, .state_key

Every step is its own prompt: the dialect's messages for the current observation and a short history of the
steps taken (with the simulated user's replies to `call_user`). All live episodes of all groups are advanced
together: one `model.generate` call per turn over every episode still running; finished episodes drop out.
An output the dialect cannot read counts as a step (it uses up the budget and earns the format penalty) but
touches nothing on the phone and leaves no trace in the history.

Task episodes come from `mobile_r1.tasks` (`TaskEpisode`: setup, simulated user, judge); `task_episodes` is the
one place that knows how suites of task episodes are made.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import torch

from mobile_r1.agents.base import AgentRequest, ModelView
from mobile_r1.core.actions import Action
from mobile_r1.core.errors import ConfigError
from mobile_r1.core.records import Observation, Step
from mobile_r1.env import SimEnv
from mobile_r1.models.batching import length_groups
from mobile_r1.models.policy import Policy, unwrap
from mobile_r1.models.policy import decode_completion
from mobile_r1.train.data import encode_prompt
from mobile_r1.train.grpo import PromptInput

# A sampler turns a batch of prompts into completion token ids (the policy by default; tests script it).
Sampler = Callable[[list[PromptInput]], list[list[int]]]


@dataclass
class RolloutSettings:
    """How episodes are played: step budget, sampling, what the model sees."""

    max_turns: int = 10  # step budget per episode (the task's own `max_steps` caps it too)
    temperature: float = 1.0
    top_p: float = 1.0
    max_new_tokens: int = 128
    render: bool = False  # screenshots in observations (image mode); text mode needs none


# ----- task episodes (the adapter to mobile_r1.tasks) ------------------------------------------------------------------


def task_episodes(split: str, count: int, seed: int, specs: str | None = None, ids: Sequence[str] = (),
                  suite: str | None = None) -> list[Any]:
    """`count` task episodes of `split` (train, test, unseen-app), reproducible from `seed`.

    With a `suite` (inquire-sim, nav-sim) they are the suite's balanced split (`mobile_r1.tasks.suites.build_split`),
    restricted to the task ids in `ids` when given. Without one, the task families (every spec under `specs`, default
    the packaged ones, or those in `ids`) take turns, with templates and seeds varied.
    """
    from mobile_r1.tasks import load_specs, make_episode

    families = load_specs(specs)
    if ids:
        wanted = set(ids)
        families = [s for s in families if s.id in wanted]
        missing = wanted - {s.id for s in families}
        if missing:
            raise ConfigError(f"unknown task id(s) {sorted(missing)}; list them with `mobile-r1 sim tasks`")
    if not families:
        raise ConfigError("no task specs to train on; check task_grpo.specs / task_grpo.tasks")
    if suite is not None:
        from mobile_r1.tasks.suites import build_split

        return build_split(suite, split, seed, size=count, specs=families)
    n = len(families)
    base = (0 if split == "train" else 10**7) + 1000 * seed
    templates = "train" if split == "train" else "test"
    return [make_episode(families[i % n], templates, i // n, base + i) for i in range(count)]


# ----- records ---------------------------------------------------------------------------------------------------------


@dataclass
class Turn:
    """One step of one rollout: the prompt, what the model wrote, what it did and what came back.

    `state_key` is the phone's state before the action (GiGPO groups steps by it). `format_reward` is +1 for
    an output the dialect reads fully, 0 for a readable action in a broken format, -1 for no action.
    """

    prompt: PromptInput
    completion_ids: list[int]
    text: str
    action: Action | None
    format_reward: float
    state_key: str
    next_state_key: str
    error: str | None = None
    user_reply: str | None = None


@dataclass
class Trajectory:
    """One rollout of one task episode; `group` numbers the G rollouts that share a start snapshot."""

    episode: Any
    group: int
    env: SimEnv
    start_key: str
    turns: list[Turn] = field(default_factory=list)
    history: list[Step] = field(default_factory=list)
    observation: Observation | None = None
    done: bool = False
    budget: int = 10

    @property
    def length(self) -> int:
        return len(self.turns)

    @property
    def format_valid(self) -> float:
        return sum(t.format_reward == 1.0 for t in self.turns) / max(len(self.turns), 1)

    def judge(self) -> Any:
        """The rule judge's verdict on this rollout's phone (`mobile_r1.tasks.judge`)."""
        from mobile_r1.tasks import judge

        return judge(self.episode, self.env.phone)


def self_corrections(turns: Sequence[Turn]) -> int:
    """Steps that undo an earlier move: the phone comes back to a state it had left (e.g. a wrong screen, then Back)."""
    seen: set[str] = set()
    count = 0
    for t in turns:
        seen.add(t.state_key)
        if t.next_state_key != t.state_key and t.next_state_key in seen:
            count += 1
    return count


# ----- groups from one snapshot ----------------------------------------------------------------------------------------


def start_groups(episodes: Sequence[Any], group_size: int, settings: RolloutSettings | None = None) -> list[Trajectory]:
    """G trajectories per episode, each in its own env restored from one snapshot taken right after the task's reset."""
    from mobile_r1.tasks import SimulatedUser

    settings = settings or RolloutSettings()
    out: list[Trajectory] = []
    for index, episode in enumerate(episodes):
        first = episode.make_env(render=settings.render, xml=False)
        snap = first.snapshot()
        budget = min(settings.max_turns, episode.spec.max_steps)
        for g in range(group_size):
            env = first if g == 0 else SimEnv(seed=episode.seed, render=settings.render, xml=False)
            observation = env.restore(snap)
            env.user = SimulatedUser(episode, env.phone)
            out.append(Trajectory(episode, index, env, observation.state_key or "", observation=observation,
                                  budget=budget))
    return out


# ----- batched generation ----------------------------------------------------------------------------------------------


def _eos_ids(policy: Policy) -> set[int]:
    ids = unwrap(policy.model).generation_config.eos_token_id
    out = set() if ids is None else {ids} if isinstance(ids, int) else set(ids)
    if policy.tokenizer.eos_token_id is not None:
        out.add(policy.tokenizer.eos_token_id)
    return out


@torch.no_grad()
def generate_batch(policy: Policy, prompts: list[PromptInput], settings: RolloutSettings) -> list[list[int]]:
    """One sampled completion per prompt, all prompts in one left-padded `generate` call; ids cut after the end token."""
    if not prompts:
        return []
    model = unwrap(policy.model)
    pad = policy.tokenizer.pad_token_id
    width = max(len(p.ids) for p in prompts)
    ids = torch.tensor([[pad] * (width - len(p.ids)) + p.ids for p in prompts], device=policy.device)
    mask = torch.tensor([[0] * (width - len(p.ids)) + [1] * len(p.ids) for p in prompts], device=policy.device)
    vision: dict[str, torch.Tensor] = {}
    if any(p.vision for p in prompts):
        keys = next(p.vision for p in prompts if p.vision).keys()
        vision = {k: torch.cat([p.vision[k] for p in prompts if p.vision]).to(policy.device) for k in keys}
    sample = settings.temperature > 0
    options: dict[str, Any] = {"do_sample": sample}
    if sample:
        options.update(temperature=settings.temperature, top_p=settings.top_p, top_k=0)
    was_training = model.training
    model.eval()
    try:
        out = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=settings.max_new_tokens,
                             pad_token_id=pad, eos_token_id=sorted(_eos_ids(policy)), **options, **vision)
    finally:
        model.train(was_training)
    eos = _eos_ids(policy)
    completions = []
    for row in out[:, width:].tolist():
        cut = next((i for i, t in enumerate(row) if t in eos), None)
        completions.append(row[: cut + 1] if cut is not None else row)
    return completions


def greedy_completions(policy: Policy, examples: Sequence[Any], max_new_tokens: int, batch_size: int = 16) -> list[str]:
    """The greedy completion text of each labelled step's prompt (`StepExample`), in `generate` calls of at most
    `batch_size` prompts of similar length: what the held-out evaluations of stages 1 and 2 score."""
    settings = RolloutSettings(temperature=0.0, max_new_tokens=max_new_tokens)
    prompts = [encode_prompt(policy, e.messages, e.images) for e in examples]
    out = [""] * len(prompts)
    for rows in length_groups([len(p.ids) for p in prompts], max_size=batch_size):
        for r, ids in zip(rows, generate_batch(policy, [prompts[r] for r in rows], settings)):
            out[r] = decode_completion(policy, ids)
    return out


def format_reward(view: ModelView, text: str, action: Action | None) -> float:
    """+1 fully valid in the dialect, 0 an action read from a broken format, -1 nothing readable."""
    if action is None:
        return -1.0
    return 1.0 if view.dialect.parse(text).valid else 0.0


# ----- the loop --------------------------------------------------------------------------------------------------------


def rollout(policy: Policy, view: ModelView, trajectories: list[Trajectory], settings: RolloutSettings,
            sampler: Sampler | None = None) -> list[Trajectory]:
    """Play every trajectory until it ends or uses its step budget, one batched generation per turn."""
    sample = sampler or (lambda prompts: generate_batch(policy, prompts, settings))
    while True:
        live = [t for t in trajectories if not t.done and t.length < t.budget]
        if not live:
            return trajectories
        prompts = []
        for t in live:
            assert t.observation is not None
            request = AgentRequest(t.episode.instruction, t.observation, t.history, t.episode.id)
            messages, images = view.prompt(request)
            prompts.append(encode_prompt(policy, messages, images))
        completions = sample(prompts)
        for t, prompt, ids in zip(live, prompts, completions):
            advance(t, view, prompt, ids, decode_completion(policy, ids))


def advance(t: Trajectory, view: ModelView, prompt: PromptInput, ids: list[int], text: str) -> Turn:
    """Apply one model output to one trajectory: parse, step the phone (or not), record the turn and the history."""
    obs = before_obs = t.observation
    assert obs is not None
    parsed, action = view.read(text, obs)
    before = obs.state_key or ""
    turn = Turn(prompt, ids, text, action, format_reward(view, text, action), before, before)
    if action is None:
        turn.error = parsed.error or "no action"
    else:
        obs, _, done, info = t.env.step(action)
        turn.error = info.get("error")
        turn.user_reply = info.get("user_reply")
        turn.next_state_key = obs.state_key or ""
        t.history.append(Step(action=action, thought=parsed.thought or "", description=parsed.description or "",
                              observation=before_obs, user_reply=turn.user_reply, model_text=text))
        t.observation = obs
        t.done = done
    t.turns.append(turn)
    return turn
