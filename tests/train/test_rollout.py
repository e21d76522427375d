"""Multi-turn rollouts: identical group starts, one batched generation per turn, user replies, budgets, bad outputs."""

from __future__ import annotations

from typing import Any

import pytest

from mobile_r1.agents.base import AgentOutput, ModelView
from mobile_r1.core.actions import Action
from mobile_r1.core.dialects import ParseResult
from mobile_r1.core.records import Observation
from mobile_r1.env.sim import SimBackend
from mobile_r1.play.episode import Turn as PlayedTurn
from mobile_r1.models import load_policy
from mobile_r1.train.data import end_of_turn
from mobile_r1.train.grpo import PromptInput
from mobile_r1.train.rollout import (
    RolloutSettings,
    Turn,
    format_reward,
    generate_batch,
    rollout,
    self_corrections,
    start_groups,
)

VIEW = ModelView.create("inquire", observation_mode="text", frame="qwen", history_window=2)
SIM = SimBackend(render=False)


def task_episodes(split: str, count: int, seed: int, ids: list[str] = (), suite: str | None = None):  # type: ignore[no-untyped-def]
    return SIM.episodes(suite, split, count, seed, tasks=ids)


@pytest.fixture(scope="module")
def policy() -> Any:
    return load_policy("tiny-lm")


class Script:
    """A sampler that writes chosen dialect texts: `plan(call, index) -> Action | None` (None: garbage)."""

    def __init__(self, policy: Any, plan: Any) -> None:
        self.policy, self.plan = policy, plan
        self.batches: list[int] = []

    def __call__(self, prompts: list[PromptInput]) -> list[list[int]]:
        call = len(self.batches)
        self.batches.append(len(prompts))
        out = []
        for index in range(len(prompts)):
            action = self.plan(call, index)
            text = "no idea" if action is None else VIEW.dialect.render(action, "thinking", "a step")
            out.append(list(self.policy.tokenizer(text + end_of_turn(self.policy), add_special_tokens=False).input_ids))
        return out


def test_task_episodes_cycle_through_families_and_are_reproducible() -> None:
    a = task_episodes("train", 4, 7, ids=["notes.delete", "settings.dark_mode"])
    b = task_episodes("train", 4, 7, ids=["notes.delete", "settings.dark_mode"])
    assert [e.task for e in a] == ["notes.delete", "settings.dark_mode"] * 2
    assert [e.instruction for e in a] == [e.instruction for e in b]
    assert len({e.seed for e in a}) == 4


def test_suite_episodes_are_the_suites_split_restricted_to_the_chosen_tasks() -> None:
    from mobile_r1.env.sim.episode import build_split

    full = task_episodes("test", 6, 0, suite="nav-sim")
    assert [e.id for e in full] == [e.id for e in build_split("nav-sim", "test", 0, size=6)]
    only = task_episodes("train", 3, 0, ids=["settings.dark_mode"], suite="inquire-sim")
    assert len(only) == 3 and {e.task for e in only} == {"settings.dark_mode"}
    assert all(e.split == "train" for e in only) and len({e.seed for e in only}) == 3


def test_every_rollout_of_a_group_starts_from_the_same_phone() -> None:
    episodes = task_episodes("train", 2, 3, ids=["notes.delete", "shop.add_to_cart"])
    trajectories = start_groups(SIM, episodes, 3)
    assert [t.group for t in trajectories] == [0, 0, 0, 1, 1, 1]
    for group in (trajectories[:3], trajectories[3:]):
        first = group[0]
        for t in group[1:]:
            assert t.env is not first.env and t.env.sim.phone is not first.env.sim.phone
            assert t.start_key == first.start_key == t.env.sim.phone.state_key()
            assert t.env.sim.phone.state.apps == first.env.sim.phone.state.apps
            assert [e.to_dict() for e in t.play.observation.elements] == [e.to_dict() for e in first.play.observation.elements]
    assert trajectories[0].start_key != trajectories[3].start_key
    # the copies are independent: acting in one leaves the others alone
    trajectories[1].env.step(Action.open("Settings"))
    assert (trajectories[0].env.sim.phone.state_key() == trajectories[2].env.sim.phone.state_key()
            != trajectories[1].env.sim.phone.state_key())


def test_one_batched_generation_per_turn_and_finished_episodes_drop_out(policy: Any) -> None:
    # rollout 0 terminates at once, rollout 1 asks the user then terminates, rollout 2 writes garbage until its budget
    def plan(call: int, index: int) -> Action | None:
        if call == 0:
            return [Action.terminate(), Action.call_user("Should I delete it?"), None][index]
        if call == 1:
            return [Action.terminate(), None][index]
        return None

    script = Script(policy, plan)
    episodes = task_episodes("train", 1, 5, ids=["notes.delete"])
    trajectories = start_groups(SIM, episodes, 3, RolloutSettings(max_turns=4))
    rollout(policy, VIEW, trajectories, RolloutSettings(max_turns=4), script)
    assert script.batches == [3, 2, 1, 1]
    assert [t.length for t in trajectories] == [1, 2, 4]
    assert trajectories[0].env.terminated and trajectories[1].env.terminated
    assert trajectories[2].env.truncated and not trajectories[2].env.terminated
    asked = trajectories[1].turns[0]
    assert asked.user_reply  # the simulated user answered
    next_prompt = policy.tokenizer.decode(trajectories[1].turns[1].prompt.ids)
    assert asked.user_reply in next_prompt and asked.user_reply not in policy.tokenizer.decode(asked.prompt.ids)
    assert trajectories[1].play.history[0].user_reply == asked.user_reply
    # garbage is a step with the format penalty that changes nothing and leaves no history
    garbage = trajectories[2]
    assert all(t.action is None and t.format_reward == -1.0 and t.error for t in garbage.turns)
    assert garbage.play.history == [] and garbage.env.sim.phone.state_key() == garbage.start_key
    assert asked.format_reward == 1.0


def test_the_task_step_budget_caps_the_rollout(policy: Any) -> None:
    episodes = task_episodes("train", 1, 1, ids=["settings.dark_mode"])  # max_steps 8
    trajectories = start_groups(SIM, episodes, 1, RolloutSettings(max_turns=50))
    assert trajectories[0].env.budget == 8
    rollout(policy, VIEW, trajectories, RolloutSettings(max_turns=50), Script(policy, lambda c, i: Action.wait(1)))
    assert trajectories[0].length == 8 and trajectories[0].done
    assert trajectories[0].env.truncated and not trajectories[0].env.terminated


def test_generate_batch_samples_each_prompt_once_and_cuts_at_the_end_token(policy: Any) -> None:
    tok = policy.tokenizer
    prompts = [PromptInput(tok("hello there", add_special_tokens=False).input_ids),
               PromptInput(tok("a much longer prompt than the first one", add_special_tokens=False).input_ids)]
    out = generate_batch(policy, prompts, RolloutSettings(max_new_tokens=6, temperature=1.0))
    assert len(out) == 2
    eos = {tok.eos_token_id, tok.convert_tokens_to_ids(end_of_turn(policy))}
    for ids in out:
        assert 1 <= len(ids) <= 6
        assert not any(t in eos for t in ids[:-1])
    # greedy decoding of the same prompt alone and in a padded batch agree
    greedy = RolloutSettings(max_new_tokens=5, temperature=0.0)
    assert generate_batch(policy, prompts[:1], greedy)[0] == generate_batch(policy, prompts, greedy)[0]
    # prompts of very different lengths go to separate calls, with the same greedy completions as one padded call
    prompts += [PromptInput(tok(" ".join(["a long screen listing"] * 300), add_special_tokens=False).input_ids)]
    one_call = RolloutSettings(max_new_tokens=5, temperature=0.0, group_by_length=False)
    assert generate_batch(policy, prompts, greedy) == generate_batch(policy, prompts, one_call)


def test_format_reward_levels() -> None:
    good = VIEW.dialect.render(Action.back(), "go back", "back")
    assert format_reward(VIEW, good, Action.back()) == 1.0
    no_think = good[good.index("<tool_call>") :]
    assert VIEW.dialect.parse(no_think).action == Action.back()
    assert format_reward(VIEW, no_think, Action.back()) == 0.0  # an action read from a broken format
    assert format_reward(VIEW, "nothing", None) == -1.0


def test_self_corrections_count_returns_to_a_left_state() -> None:
    p = PromptInput([1])
    seen = Observation((1080, 2400))
    output = AgentOutput("", ParseResult(None, None, None, False, "nothing", ""), None)

    def turn(a: str, b: str) -> Turn:
        return Turn(p, [1], PlayedTurn(0, output, seen, None, state_key=a, next_state_key=b), 1.0)

    # home -> wrong screen -> Back to home (1); a no-op step is not a correction; home -> x -> y -> x (1)
    assert self_corrections([turn("h", "w"), turn("w", "h")]) == 1
    assert self_corrections([turn("h", "h"), turn("h", "a")]) == 0
    assert self_corrections([turn("h", "x"), turn("x", "y"), turn("y", "x"), turn("x", "z")]) == 1


@pytest.mark.slow
def test_screenshots_reach_a_vision_model_in_one_batched_generation() -> None:
    vl = load_policy("tiny-vl")
    view = ModelView.create("inquire", observation_mode="image", frame="qwen", prescale=0.3, history_window=1)
    settings = RolloutSettings(max_turns=1, max_new_tokens=4, render=True)
    backend = SimBackend(render=True)
    trajectories = start_groups(backend, backend.episodes(None, "train", 2, 0, tasks=["settings.dark_mode", "notes.pin"]),
                                1, settings)
    assert all(t.play.observation.screenshot is not None for t in trajectories)
    rollout(vl, view, trajectories, settings)
    for t in trajectories:
        prompt = t.turns[0].prompt
        assert prompt.vision is not None and prompt.vision["image_grid_thw"].shape == (1, 3)
        assert 1 <= len(t.turns[0].completion_ids) <= 4
