"""Synthetic labelled steps for smoke runs of the trainers: tap a named button, type into a field, ask when unsure.

    python -m mobile_r1.train.synthetic data/synthetic --episodes 400 --seed 0

Each episode is one step on a list screen with accessibility elements (no screenshots). It is not the
simulator's expert data, only enough structure for a tiny model to learn the format and the grounding.
"""

from __future__ import annotations

import argparse
import random

from mobile_r1.core.actions import Action
from mobile_r1.core.formats import save_episodes
from mobile_r1.core.records import Episode, Observation, Step, UIElement

SCREEN = (1080, 2400)
NAMES = ("Mom", "Dad", "Work", "Alarm", "Wifi", "Camera", "Music", "Maps", "Photos", "Notes", "Weather", "Clock",
         "Calendar", "Settings", "Messages", "Contacts")
WORDS = ("hello", "on my way", "see you soon", "good morning", "call me", "thanks", "ok", "dinner at seven")


def _buttons(labels: list[str]) -> list[UIElement]:
    return [
        UIElement(id=k, class_name="android.widget.Button", bounds=(40, 200 + 160 * k, 1040, 340 + 160 * k), text=t,
                  clickable=True)
        for k, t in enumerate(labels)
    ]


def synthetic_episode(rng: random.Random, index: int) -> Episode:
    """One single-step episode of a random kind: click (60%), type (25%) or call_user (15%)."""
    labels = rng.sample(NAMES, rng.randint(3, 6))
    elements = _buttons(labels)
    kind = rng.random()
    if kind < 0.6:
        target = rng.choice(elements)
        step = Step(Action.click(*target.center), f"The screen lists {', '.join(labels)}. I tap {target.text}.",
                    f"Open {target.text}", Observation(SCREEN, elements), bbox=target.bounds)
        instruction = f"Open {target.text}"
    elif kind < 0.85:
        text = rng.choice(WORDS)
        field = UIElement(id=len(elements), class_name="android.widget.EditText", bounds=(40, 1800, 1040, 1940),
                          text="Message", editable=True, focused=True)
        step = Step(Action.type_text(text), f"The message field is focused. I type {text}.", f"Type {text}",
                    Observation(SCREEN, [*elements, field]))
        instruction = f"Send {text} to {rng.choice(labels)}"
    else:
        a, b = rng.sample(labels, 2)
        question = f"Do you mean {a} or {b}?"
        step = Step(Action(type="call_user", content=question), f"Both {a} and {b} could match. I ask the user.",
                    "Ask the user", Observation(SCREEN, elements))
        instruction = "Open the one I use most"
    return Episode(id=f"synthetic-{index}", instruction=instruction, steps=[step], screen_size=SCREEN)


def synthetic_episodes(n: int, seed: int = 0) -> list[Episode]:
    rng = random.Random(seed)
    return [synthetic_episode(rng, i) for i in range(n)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output")
    parser.add_argument("--episodes", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    path = save_episodes(args.output, synthetic_episodes(args.episodes, args.seed))
    print(f"{args.episodes} episodes -> {path}")


if __name__ == "__main__":
    main()
