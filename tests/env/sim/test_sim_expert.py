"""The expert: solves a sample of every sub-category, asks exactly before the irreversible step, writes records."""

from __future__ import annotations

import pytest

from mobile_r1.core.actions import ActionType
from mobile_r1.core.geometry import point_in_box
from mobile_r1.env.sim.expert import Expert
from mobile_r1.tasks.taxonomy import SUBCATEGORIES


@pytest.mark.parametrize("sub", [s.name for s in SUBCATEGORIES] + ["control"])
def test_expert_solves_one_episode_of_every_subcategory(specs, episode, sub: str) -> None:  # type: ignore[no-untyped-def]
    # a classic task where there is one (the released benchmark's templates have suites of their own to test them)
    spec = sorted((s for s in specs.values() if s.subcategory == sub), key=lambda s: (s.suite is not None, s.id))[0]
    ep = episode(spec.id, seed=11, template=1)
    run = Expert().run(ep)
    v = run.judgement.verdict
    assert run.stuck is None and v.success, (spec.id, v.reason, run.stuck)
    assert v.inquiry == ("asked" if spec.inquiries else "not_needed") and v.over_asks == 0
    assert not v.safety_violation and v.steps <= spec.max_steps
    asks = [s for s in run.episode.steps if s.action.type is ActionType.CALL_USER]
    assert len(asks) == len(spec.inquiries) and all(s.user_reply for s in asks)


def test_question_comes_right_before_the_irreversible_step(episode) -> None:  # type: ignore[no-untyped-def]
    ep = episode("notes.delete", seed=2)
    run = Expert().run(ep)
    steps = run.episode.steps
    ask = next(i for i, s in enumerate(steps) if s.action.type is ActionType.CALL_USER)
    effects = run.env.phone.state.effects
    assert [e.kind for e in effects] == ["delete"]
    assert effects[0].step == ask + 2  # steps are 1-based: the one after the question deletes


def test_vague_intent_is_asked_first_and_decline_stops(episode) -> None:  # type: ignore[no-untyped-def]
    steps = Expert().run(episode("shop.vague_snack")).episode.steps
    assert steps[0].action.type is ActionType.CALL_USER
    run = Expert().run(episode("wallet.transfer_declined"))
    assert [s.action.type for s in run.episode.steps[-2:]] == [ActionType.CALL_USER, ActionType.TERMINATE]
    assert not run.env.phone.state.effects or all(e.kind != "transfer" for e in run.env.phone.state.effects)


def test_records_have_thought_description_action_and_target_box(episode) -> None:  # type: ignore[no-untyped-def]
    ep = episode("shop.buy", seed=4)
    rec = Expert(render=True).run(ep).episode
    assert rec.instruction == ep.instruction and rec.subcategory == "payment" and rec.success
    assert rec.screen_size == (1080, 2400)
    for step in rec.steps:
        assert step.thought.startswith("I am on") or step.thought.startswith("The user")
        assert step.description and step.observation is not None and step.observation.elements
        assert step.observation.screenshot is not None and step.observation.screenshot.size == (324, 720)
        if step.action.type is ActionType.CLICK:
            assert step.bbox is not None and point_in_box(step.action.coordinate, step.bbox)
    assert rec.meta["params"]["product"] == ep.params["product"]


def test_self_correction_takes_a_wrong_step_and_recovers(episode) -> None:  # type: ignore[no-untyped-def]
    wrong = 0
    for seed in range(4):
        run = Expert(self_correct=1.0, seed=seed).run(episode("shop.add_to_cart", seed=seed))
        assert run.success
        flags = [s.info for s in run.episode.steps]
        if any(f.get("wrong") for f in flags):
            wrong += 1
            i = next(i for i, f in enumerate(flags) if f.get("wrong"))
            assert flags[i + 1].get("recovery") and "correct course" in run.episode.steps[i + 1].thought
    assert wrong >= 2


def test_plan_state_copies_are_deep_where_the_search_may_change_them(episode) -> None:  # type: ignore[no-untyped-def]
    import datetime

    from mobile_r1.env.sim.expert import copy_state

    env = episode("notes.delete", seed=2).make_env()
    state = env.phone.state
    state.apps["notes"]["unmarshallable"] = [datetime.date(2026, 1, 1)]  # not marshal's: still copied deeply
    copied = copy_state(state, {"notes"})
    assert copied.apps["notes"] == state.apps["notes"] and copied.stacks == state.stacks
    assert copied.apps["notes"] is not state.apps["notes"] and copied.stacks is not state.stacks
    copied.apps["notes"]["notes"].clear()
    copied.apps["notes"]["unmarshallable"].append(1)
    assert state.apps["notes"]["notes"] and len(state.apps["notes"]["unmarshallable"]) == 1
    other = next(k for k in state.apps if k != "notes" and not k.startswith("_") and k != "settings")
    assert copied.apps[other] is state.apps[other]  # apps the search does not touch are shared


@pytest.mark.slow
@pytest.mark.parametrize("task", ["shop.favorite", "contacts.favorite", "notes.pin"])
def test_search_first_types_the_named_entry_into_the_search_field_and_taps_it_among_the_results(
        episode, task: str) -> None:  # type: ignore[no-untyped-def]
    found = {"shop.favorite": "product", "contacts.favorite": "contact", "notes.pin": "title"}[task]
    browsed, searched = 0, 0
    for seed in range(6):
        ep = episode(task, seed=seed, split="train")
        name = ep.params[found]
        plain = Expert().run(ep)
        first = Expert(search_first=True).run(ep)
        assert plain.success and first.success, (ep.id, first.judgement.verdict.reason)
        steps = first.episode.steps
        typed = [i for i, s in enumerate(steps) if s.action.type is ActionType.TYPE]
        assert typed and steps[typed[0]].action.text.strip() == name  # the entry's name, typed into the search field
        field = steps[typed[0]].observation.elements
        focused = [e for e in field if e.focused and e.editable]
        assert focused and "search" in focused[0].label.lower()
        picked = steps[typed[0] + 1:]
        entry = next(s for s in picked if s.action.type in (ActionType.CLICK, ActionType.LONG_PRESS))
        listed = [e for e in entry.observation.elements if e.text and name in e.text]
        assert listed and point_in_box(entry.action.coordinate, entry.bbox)  # tapped among the results
        searched += 1
        browsed += not any(s.action.type is ActionType.TYPE for s in plain.episode.steps)
    assert searched == 6 and browsed == 6  # without the setting the expert browses for the entry every time


def test_search_first_leaves_tasks_without_a_search_field_as_they_were(episode) -> None:  # type: ignore[no-untyped-def]
    for task in ("settings.font", "wallet.balance", "calendar.create"):
        ep = episode(task, seed=5, split="train")
        plain = [s.action for s in Expert().run(ep).episode.steps]
        assert [s.action for s in Expert(search_first=True).run(ep).episode.steps] == plain
