"""Multi-turn rollouts on any phone backend: G copies of each task from one start, one batched generation per turn.

    backend = make_backend("sim", render=False)
    episodes = backend.episodes(None, "train", n=8, seed=0)                 # or a suite's split
    groups = start_groups(backend, episodes, group_size=4)                   # reset once per task, fork G - 1 times
    trajectories = rollout(policy, view, groups, RolloutSettings(max_turns=8))
    trajectories[0].turns[0].prompt.ids, .completion_ids, .action, .user_reply, .state_key

Every step is its own prompt: the dialect's messages for the current observation and a short history of the
steps taken (with the user's replies to `call_user`). All live episodes of all groups are advanced together: one
`model.generate` call per turn over every episode still running; finished episodes drop out. Phones are stepped
through `mobile_r1.play.episode.EpisodePlay`, the code `mobile-r1 eval` uses: an output the dialect cannot read
costs a step of the budget (and earns the format penalty) but touches nothing on the phone and leaves no trace in
the history. Phones come from the environment protocol only (`mobile_r1.env`); a group of G rollouts starts from
one phone forked G - 1 times where the backend can fork (FORK), else from G phones reset alike. The phones of a turn
are stepped together (`play.episode.advance_many`): on a Ray pool (`task_grpo.ray`) they advance in parallel across
its actors, a fork is made in the actor that holds its phone, and the trajectories are those played in process.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from mobile_r1.agents.base import AgentOutput, ModelView
from mobile_r1.core.actions import Action
from mobile_r1.core.errors import InfraError
from mobile_r1.core.verdict import Judgement
from mobile_r1.env import Backend, Capability, EpisodeRef, TaskEnv, reset_many
from mobile_r1.play.episode import EpisodePlay, advance_many
from mobile_r1.play.episode import Turn as PlayedTurn
from mobile_r1.play.episode import self_corrections as played_self_corrections
from mobile_r1.models.batching import length_groups
from mobile_r1.models.generation import PromptInput, Sampling, left_padded, sample
from mobile_r1.models.policy import Policy, decode_completion
from mobile_r1.train.data import StepExample, encode_prompt, encode_target

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
    group_by_length: bool = True  # a turn's prompts in generate calls of similar length (a few long screens no
                                  # longer pad every prompt to their length: `models.batching.length_groups`)


# ----- records ---------------------------------------------------------------------------------------------------------


@dataclass
class Turn:
    """One step of one rollout: the prompt, the completion's token ids, the step as played and its format reward.

    `format_reward` is +1 for an output the dialect reads fully, 0 for a readable action in a broken format, -1 for
    no action. `state_key` is the phone's state before the action (GiGPO groups steps by it).
    """

    prompt: PromptInput
    completion_ids: list[int]
    played: PlayedTurn
    format_reward: float

    @property
    def text(self) -> str:
        return self.played.text

    @property
    def action(self) -> Action | None:
        return self.played.action

    @property
    def error(self) -> str | None:
        return self.played.error

    @property
    def user_reply(self) -> str | None:
        return self.played.user_reply

    @property
    def state_key(self) -> str:
        return self.played.state_key or ""

    @property
    def next_state_key(self) -> str:
        return self.played.next_state_key or ""


@dataclass
class Trajectory:
    """One rollout of one episode; `group` numbers the G rollouts that share a start.

    `script`, when set, holds the texts this rollout plays in turn instead of sampling (an expert's demonstration
    written as the model's outputs: stage 3's `expert_guidance`); past its end the rollout gives up.
    """

    play: EpisodePlay
    group: int
    turns: list[Turn] = field(default_factory=list)
    judgement: Judgement | None = None
    script: list[str] | None = None

    @property
    def episode(self) -> EpisodeRef:
        return self.play.episode

    @property
    def env(self) -> TaskEnv:
        return self.play.env

    @property
    def done(self) -> bool:
        return self.play.done

    @property
    def start_key(self) -> str:
        return self.play.start_key or ""

    @property
    def length(self) -> int:
        return len(self.turns)

    @property
    def scripted(self) -> bool:
        return self.script is not None

    @property
    def format_valid(self) -> float:
        return sum(t.format_reward == 1.0 for t in self.turns) / max(len(self.turns), 1)

    def judge(self) -> Judgement:
        """The backend's judgement of this rollout (judged once, then kept)."""
        if self.judgement is None:
            self.judgement = self.env.judge()
        return self.judgement


def self_corrections(turns: Sequence[Turn]) -> int:
    """Steps that undo an earlier move: the phone comes back to a state it had left (e.g. a wrong screen, then Back);
    0 where the phone does not name its states. The count evaluation records (`mobile_r1.play.episode`)."""
    return played_self_corrections(turns) or 0


# ----- groups from one start -------------------------------------------------------------------------------------------


# Texts to play on each group's first phone before the group forks (a branch point): a list per phone.
Prefixes = Callable[[list[TaskEnv]], list[list[str]]]


def start_groups(backend: Backend, episodes: Sequence[EpisodeRef], group_size: int,
                 settings: RolloutSettings | None = None, prefixes: Prefixes | None = None,
                 view: ModelView | None = None) -> list[Trajectory]:
    """G trajectories per episode, all from one start: the first phone reset, the others forked from it (FORK), or
    reset alike where the backend cannot fork. Each has the step budget min(max_turns, the episode's own).

    With `prefixes` (and the `view` that reads them), each group's first phone first plays the texts `prefixes`
    gives it (an expert's steps up to a decision point) and the group forks from there: the G rollouts start from the
    same phone state, with the prefix in their history, and their turns are those played after it. The backend must
    fork (FORK)."""
    settings = settings or RolloutSettings()
    out: list[Trajectory] = []
    firsts = [backend.open(e, max_steps=min(settings.max_turns, e.max_steps)) for e in episodes]
    _reset_all(firsts)  # every group's first phone reset together
    prefix_texts = prefixes(firsts) if prefixes is not None else [[] for _ in firsts]
    for index, (episode, env, texts) in enumerate(zip(episodes, firsts, prefix_texts)):
        first = EpisodePlay(env, unreadable="skip", started=True)
        if texts:
            env.require(Capability.FORK, "groups branched at a decision point (task_grpo.branch)")
            assert view is not None, "a prefix needs the view that reads it"
            for text in texts:
                parsed, action = view.read(text, first.observation)
                first.advance(AgentOutput(text, parsed, action))
        out.append(Trajectory(first, index))
        others = [first.env.fork() if first.env.has(Capability.FORK) else backend.open(episode, max_steps=env.budget)
                  for _ in range(group_size - 1)]
        _reset_all([e for e in others if e.observation is None])
        for e in others:
            play = EpisodePlay(e, unreadable="skip", started=True)
            play.history = list(first.history)  # the branch's past, as every rollout of the group saw it
            out.append(Trajectory(play, index))
    return out


def _reset_all(envs: Sequence[TaskEnv]) -> None:
    for result in reset_many(envs):
        if isinstance(result, InfraError):
            raise result


def close_all(trajectories: Sequence[Trajectory]) -> None:
    """Release every rollout's phone (judge them first: a judgement is kept, the phone is not)."""
    for t in trajectories:
        t.env.close()


# ----- batched generation ----------------------------------------------------------------------------------------------


def generate_batch(policy: Policy, prompts: list[PromptInput], settings: RolloutSettings) -> list[list[int]]:
    """One completion per prompt, ids cut after the end token: the prompts in one left-padded `generate` call, or with
    `group_by_length` in calls of prompts of similar length (vision prompts stay in one call)."""
    if not prompts:
        return []
    if not settings.group_by_length or any(p.vision for p in prompts) or len(prompts) < 2:
        return sample(policy, left_padded(prompts, policy), _sampling(settings))
    out: list[list[int]] = [[] for _ in prompts]
    for rows in length_groups([len(p.ids) for p in prompts]):
        for r, ids in zip(rows, sample(policy, left_padded([prompts[r] for r in rows], policy), _sampling(settings))):
            out[r] = ids
    return out


def _sampling(settings: RolloutSettings) -> Sampling:
    return Sampling(settings.temperature, settings.top_p, settings.max_new_tokens)


def greedy_completions(policy: Policy, examples: Sequence[StepExample], max_new_tokens: int,
                       batch_size: int = 16) -> list[str]:
    """The greedy completion text of each labelled step's prompt (`StepExample`), in `generate` calls of at most
    `batch_size` prompts of similar length: what the held-out evaluations of stages 1 and 2 score."""
    settings = RolloutSettings(temperature=0.0, max_new_tokens=max_new_tokens, group_by_length=False)  # grouped here
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


@dataclass
class Ledger:
    """Where a rollout's time went, in seconds: starting the phones (`reset`), building and tokenising prompts
    (`prompt`), generating (`model`), parsing and stepping the phones (`env`) and judging (`judge`); `turns`
    batched generations, `steps` agent steps. Stage 3 logs it per optimizer step (`time_*_s` in metrics.jsonl)."""

    reset: float = 0.0
    prompt: float = 0.0
    model: float = 0.0
    env: float = 0.0
    judge: float = 0.0
    turns: int = 0
    steps: int = 0

    def metrics(self) -> dict[str, float]:
        return {"time_reset_s": self.reset, "time_prompt_s": self.prompt, "time_model_s": self.model,
                "time_env_s": self.env, "time_judge_s": self.judge, "generate_calls": float(self.turns),
                "agent_steps": float(self.steps)}


def rollout(policy: Policy, view: ModelView, trajectories: list[Trajectory], settings: RolloutSettings,
            sampler: Sampler | None = None, ledger: Ledger | None = None) -> list[Trajectory]:
    """Play every trajectory until it ends or uses its step budget, one batched generation per turn (a scripted
    trajectory plays its script's next text, tokenised as an SFT target is); `ledger` adds up where the time went."""
    sample = sampler or (lambda prompts: generate_batch(policy, prompts, settings))
    spent = ledger if ledger is not None else Ledger()
    while True:
        live = [t for t in trajectories if not t.done]
        if not live:
            return trajectories
        started = time.perf_counter()
        prompts = []
        for t in live:
            messages, images = view.prompt(t.play.request())
            prompts.append(encode_prompt(policy, messages, images))
        sampled = [i for i, t in enumerate(live) if not t.scripted]
        completions: list[list[int]] = [[] for _ in live]
        texts = [""] * len(live)
        prompted = time.perf_counter()
        for i, ids in zip(sampled, sample([prompts[i] for i in sampled]) if sampled else []):
            completions[i], texts[i] = ids, decode_completion(policy, ids)
        for i, t in enumerate(live):
            if t.scripted:
                texts[i] = script_text(t, view)
                completions[i] = encode_target(policy, texts[i])
        generated = time.perf_counter()
        advance_all(live, view, prompts, completions, texts)
        spent.prompt += prompted - started
        spent.model += generated - prompted
        spent.env += time.perf_counter() - generated
        spent.turns += 1 if sampled else 0
        spent.steps += len(live)


def script_text(t: Trajectory, view: ModelView) -> str:
    """The scripted trajectory's next text: its script's turn, or past the script's end a `terminate` (failure)."""
    assert t.script is not None
    if len(t.turns) < len(t.script):
        return t.script[len(t.turns)]
    return view.dialect.render(Action.terminate("failure"), "The demonstration has ended.", "Give up")


def advance(t: Trajectory, view: ModelView, prompt: PromptInput, ids: list[int], text: str) -> Turn:
    """Apply one model output to one trajectory: parse, play the step (or skip it), record the turn."""
    return advance_all([t], view, [prompt], [ids], [text])[0]


def advance_all(trajectories: Sequence[Trajectory], view: ModelView, prompts: Sequence[PromptInput],
                completions: Sequence[list[int]], texts: Sequence[str]) -> list[Turn]:
    """`advance` for every trajectory, their phones stepped together (a phone that fails raises its InfraError)."""
    outputs = []
    for t, text in zip(trajectories, texts):
        parsed, action = view.read(text, t.play.observation)
        outputs.append(AgentOutput(text, parsed, action))
    turns = []
    for t, prompt, ids, output, played in zip(trajectories, prompts, completions, outputs,
                                              advance_many([t.play for t in trajectories], outputs)):
        if isinstance(played, InfraError):
            raise played
        fmt = -1.0 if output.action is None else (1.0 if output.parse.valid else 0.0)
        turn = Turn(prompt, ids, played, fmt)
        t.turns.append(turn)
        turns.append(turn)
    return turns
