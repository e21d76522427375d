"""Shared hypothesis strategies for the dialect tests: actions each dialect offers and awkward texts."""

from __future__ import annotations

from hypothesis import strategies as st

from mobile_r1.core.actions import BUTTONS, Action, ActionType

# Texts with unicode, quotes, backslashes, braces, newlines and tag-like fragments.
AWKWARD = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from(list("'\"\\{}[]()<>/:,\n\t ") + ["点", "击", "é", "\u2028", "🙂"]),
    ),
    max_size=40,
)
# points a model can write on a screen (negative ones read back as invalid: they are off any screen)
coord = st.one_of(st.integers(0, 5000), st.floats(0, 5000, allow_nan=False, allow_infinity=False))
seconds = st.one_of(st.none(), st.integers(0, 30), st.floats(0, 30, allow_nan=False))


def actions_of(kind: ActionType, text: st.SearchStrategy[str] = AWKWARD) -> st.SearchStrategy[Action]:
    """Any valid action of type `kind`."""
    if kind is ActionType.CLICK:
        return st.builds(Action.click, coord, coord)
    if kind is ActionType.LONG_PRESS:
        return st.builds(Action.long_press, coord, coord, seconds)
    if kind is ActionType.SWIPE:
        return st.builds(Action.swipe, coord, coord, coord, coord)
    if kind is ActionType.TYPE:
        return st.builds(Action.type_text, text)
    if kind is ActionType.KEY:
        return st.builds(Action.key, text)
    if kind is ActionType.SYSTEM_BUTTON:
        return st.builds(Action.system_button, st.sampled_from(BUTTONS))
    if kind is ActionType.OPEN:
        return st.builds(Action.open, text)
    if kind is ActionType.WAIT:
        return st.builds(Action.wait, seconds)
    if kind is ActionType.TERMINATE:
        return st.builds(Action.terminate, st.sampled_from(["success", "failure"]))
    if kind is ActionType.CALL_USER:
        return st.builds(Action.call_user, text)
    if kind is ActionType.ANSWER:
        return st.builds(Action.answer, text)
    raise AssertionError(kind)


def any_action(kinds: tuple[ActionType, ...]) -> st.SearchStrategy[Action]:
    return st.one_of(*[actions_of(k) for k in kinds])
