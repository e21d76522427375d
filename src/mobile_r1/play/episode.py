"""One episode in play on any phone: the agent-facing history, one turn per agent reply, and what each turn did.

    play = EpisodePlay(backend.open(episode))     # resets the phone (started=True: play on from a fork)
    while not play.done:
        play.advance(agent.act(play.request()))   # parse -> step the phone (or skip the turn) -> record
    judgement = play.env.judge()

    turns = advance_many(plays, outputs)          # many episodes' turns, their phones stepped together (`step_many`)

The one piece of code that steps phones for `mobile-r1 eval` (`eval.runner`) and for stage-3 rollouts
(`train.rollout`), so an agent meets the same rules in both: actions are in screen pixels; a reply with no readable
action costs a step of the budget and touches nothing on the phone (`TaskEnv.skip`); the user's reply to
`call_user` enters the history the next prompt shows. `unreadable` says what the history keeps of a turn with no
readable action: "wait" records it as a `wait` with the model's text (the evaluation's rule), "skip" leaves no trace
(the rollouts' rule). `advance_many` plays one turn of many episodes at once: each episode's turn is exactly what
`advance` would play, and a backend whose phones live in other processes (a Ray pool) steps them all in parallel.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol, Sequence

from mobile_r1.agents.base import AgentOutput, AgentRequest
from mobile_r1.core.actions import Action
from mobile_r1.core.dialects import ParseResult
from mobile_r1.core.errors import InfraError
from mobile_r1.core.records import Observation, Step
from mobile_r1.env.protocol import EpisodeRef, Move, StepInfo, StepResult, TaskEnv, step_many

NO_ACTION = "no action could be read from the model output"
Unreadable = Literal["wait", "skip"]


@dataclass(slots=True)
class Turn:
    """One agent reply and what it did.

    action          the action in screen pixels (None: nothing could be read, the turn was skipped)
    observation     what the agent saw
    error           why the phone changed nothing (it refused the action), or why the turn was skipped
    state_key       the phone's state before and after the turn (None where the backend does not name states)
    """

    index: int
    output: AgentOutput
    observation: Observation
    action: Action | None
    error: str | None = None
    user_reply: str | None = None
    state_key: str | None = None
    next_state_key: str | None = None
    info: StepInfo = field(default_factory=StepInfo)

    @property
    def text(self) -> str:
        return self.output.text

    @property
    def parse(self) -> ParseResult:
        return self.output.parse


class EpisodePlay:
    """An episode in progress on a `TaskEnv` (reset when the play starts)."""

    def __init__(self, env: TaskEnv, unreadable: Unreadable = "wait", *, started: bool = False) -> None:
        """`started=True` plays on from where `env` is (a fork of a phone already reset) instead of resetting it."""
        self.env = env
        self.unreadable = unreadable
        if started:
            if env.observation is None:
                raise ValueError("started=True needs an environment that has been reset")
            self.observation = env.observation
        else:
            self.observation, _ = env.reset()
        self.start_key = self.observation.state_key
        self.history: list[Step] = []
        self.turns: list[Turn] = []

    @property
    def episode(self) -> EpisodeRef:
        return self.env.episode

    @property
    def done(self) -> bool:
        return self.env.done

    def request(self) -> AgentRequest:
        """What the agent is asked now: the instruction, the current screen and the steps so far."""
        return AgentRequest(self.episode.instruction, self.observation, list(self.history), episode_id=self.episode.id)

    def advance(self, output: AgentOutput) -> Turn:
        """Apply one agent reply: step the phone with its action (or skip the turn), record the turn and the history."""
        result = step_many([self.move(output)])[0]
        if isinstance(result, InfraError):
            raise result
        return self.record(output, result)

    def move(self, output: AgentOutput) -> Move:
        """What the phone is asked to do for `output`: its action, or a skipped turn when nothing could be read."""
        if output.action is None:
            return Move(self.env, None, output.parse.error or NO_ACTION)
        return Move(self.env, output.action)

    def record(self, output: AgentOutput, result: StepResult) -> Turn:
        """Record the turn `output` played (`result`: what the phone returned for `move(output)`)."""
        before = self.observation
        action = output.action
        observation, _, _, info = result
        turn = Turn(len(self.turns), output, before, action, info.error, info.user_reply, before.state_key,
                    observation.state_key, info)
        self.turns.append(turn)
        if action is not None:
            self.history.append(Step(action=action, thought=output.thought, description=output.description,
                                     observation=before, user_reply=info.user_reply, model_text=output.text))
        elif self.unreadable == "wait":  # the history shows a wasted turn; the phone was not touched
            self.history.append(Step(action=Action.wait(1.0), thought=output.thought, description=output.description,
                                     observation=before, user_reply=None, model_text=output.text))
        self.observation = observation
        return turn


def advance_many(plays: Sequence[EpisodePlay], outputs: Sequence[AgentOutput]) -> list[Turn | InfraError]:
    """`play.advance(output)` for every pair, the phones stepped together (`env.step_many`): each play's turn, or the
    `InfraError` of a phone that failed (that play is left as it was)."""
    if len(plays) != len(outputs):
        raise ValueError(f"{len(plays)} episodes but {len(outputs)} replies")
    results = step_many([play.move(output) for play, output in zip(plays, outputs)])
    return [r if isinstance(r, InfraError) else play.record(output, r) for play, output, r in zip(plays, outputs, results)]


class Moved(Protocol):
    """A turn as far as self-corrections go: the phone's state before and after it."""

    @property
    def state_key(self) -> str | None: ...

    @property
    def next_state_key(self) -> str | None: ...


def self_corrections(turns: Sequence[Moved]) -> int | None:
    """The turns that brought the phone back to a state it had left (a wrong screen, then Back): the recoveries
    Mobile-R1's stage 3 is meant to teach. None where the phone does not name its states (no `state_key`)."""
    if any(t.state_key is None or t.next_state_key is None for t in turns):
        return None
    seen: set[str | None] = set()
    count = 0
    for t in turns:
        seen.add(t.state_key)
        if t.next_state_key != t.state_key and t.next_state_key in seen:
            count += 1
    return count


__all__ = ["EpisodePlay", "Turn", "NO_ACTION", "Unreadable", "advance_many", "self_corrections"]
