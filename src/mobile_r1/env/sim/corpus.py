"""Texts of the simulated phone for training a tokenizer: the prompts and answers of expert steps on each suite.

`mobile_r1.models.tokenizer.train_tokenizer(phone_corpus())` is how the presets' tokenizer (shipped in the package)
was trained, so app labels, names and instructions take few tokens.
"""

from __future__ import annotations

from mobile_r1.core.dialects import get_dialect
from mobile_r1.env.sim.episode import build_split
from mobile_r1.env.sim.expert import Expert


def phone_corpus(episodes_per_suite: int = 24, seed: int = 0) -> list[str]:
    """Each suite's train split (never a test phrasing) as the expert plays it, in the compact and inquire dialects,
    text observations."""
    dialects = [get_dialect("compact"), get_dialect("inquire")]
    expert = Expert(seed=seed)
    lines: list[str] = []
    for suite in ("inquire-sim", "nav-sim"):  # the corpus the shipped tokenizer was trained on
        for episode in build_split(suite, "train", seed, size=episodes_per_suite):
            steps = expert.run(episode).episode.steps
            for index, step in enumerate(steps):
                for dialect in dialects:
                    messages = dialect.build_messages(episode.instruction, step.observation, steps[:index],
                                                      observation_mode="text", history_window=4)
                    lines.extend(str(m["content"]) for m in messages[1:])
                    if dialect.allows(step.action):
                        lines.append(dialect.render(step.action, step.thought, step.description))
    lines.extend(d.system_prompt() for d in dialects)
    return lines


__all__ = ["phone_corpus"]
