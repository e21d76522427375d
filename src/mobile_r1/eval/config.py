"""The options of one evaluation run (`EvalConfig`): the agent, the phone backend, the suite and how many episodes,
what a resumed run must agree on, and which agent kinds are played in a batch, one at a time or re-seeded."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mobile_r1.agents.options import redact_options, validate_agent_options
from mobile_r1.core.errors import ConfigError
from mobile_r1.env import Backend
from mobile_r1.env.pools import make_pool

BATCHED_KINDS = frozenset({"hf", "openai"})
SERIAL_KINDS = frozenset({"human"})
RESEEDED_KINDS = frozenset({"random"})
# Options that must agree between a run and its resumption (anything else, e.g. workers, may change).
RESUME_KEYS = ("agent", "env", "suite", "split", "episodes", "dialect", "observation", "max_steps", "seed",
               "agent_options", "env_options", "exclude")


@dataclass(slots=True)
class EvalConfig:
    """Options of one evaluation run.

    agent          an agent spec for `make_agent` (`oracle`, `random`, `hf:tiny-lm`, `openai:MODEL`, ...)
    env            the phone backend for `make_backend` (`sim`, `adb:SERIAL`, ...)
    suite, split   which episodes (`inquire-sim` / `nav-sim`; `test`, `train`, ...)
    episodes       run only the first N episodes of the split (None: all of them)
    workers        episodes in flight at once (processes for scripted agents, a batch for model agents)
    dialect        the agent's dialect (None: the agent's default)
    observation    "image" (screenshots) or "text" (the accessibility element list) for model agents (None: the
                   agent's default; for a model `mobile-r1 train` wrote, what it was trained on)
    max_steps      step budget per episode (None: the task's own `max_steps`)
    seed           base seed of the suite's episodes
    scale          screenshot scale of the 1080x2400 screen
    agent_options  further keyword options for `make_agent` (base_url, temperature, ...)
    env_options    further keyword options for `make_backend`
    exclude        a text file of instructions, one per line (a training set's): episodes with one of them are
                   skipped, and `episodes` counts the others (in-distribution episodes no training episode used)
    ray            play on a pool of Ray actors: "local" (a local cluster) or a cluster's address (None: in process)
    ray_workers    actors in the pool (None: one per CPU of the cluster)
    """

    agent: str
    env: str = "sim"
    suite: str = "inquire-sim"
    split: str = "test"
    episodes: int | None = None
    workers: int = 1
    dialect: str | None = None
    observation: str | None = None
    max_steps: int | None = None
    seed: int = 0
    scale: float = 0.3
    out: Path | None = None
    resume: bool = False
    agent_options: dict[str, Any] = field(default_factory=dict)
    env_options: dict[str, Any] = field(default_factory=dict)
    exclude: str | None = None
    ray: str | None = None
    ray_workers: int | None = None

    def validate(self) -> None:
        if self.workers < 1:
            raise ConfigError(f"--workers must be >= 1, got {self.workers}")
        if self.episodes is not None and self.episodes < 1:
            raise ConfigError(f"--episodes must be >= 1, got {self.episodes}")
        if self.max_steps is not None and self.max_steps < 1:
            raise ConfigError(f"--max-steps must be >= 1, got {self.max_steps}")
        if self.observation not in (None, "image", "text"):
            raise ConfigError(f"--observation must be 'image' or 'text', got {self.observation!r}")
        if not self.scale > 0:
            raise ConfigError(f"scale must be > 0, got {self.scale}")
        validate_agent_options(self.agent, self.agent_kwargs())  # before anything is written: no secrets, known keys
        if self.ray_workers is not None and self.ray_workers < 1:
            raise ConfigError(f"--ray-workers must be >= 1, got {self.ray_workers}")

    def backend(self) -> Backend:
        """The phone backend this run plays on (screenshots drawn: runs keep them): `env`, or the Ray pool around it."""
        return make_pool(self.env, self.ray, self.ray_workers, render=True, scale=self.scale, xml=False,
                         **self.env_options)

    @property
    def agent_kind(self) -> str:
        return self.agent.strip().partition(":")[0].lower()

    def resolved(self) -> dict[str, Any]:
        """The options as written to run.json (no secrets: agent options are the user's own flags)."""
        data = asdict(self)
        data["out"] = str(self.out) if self.out is not None else None
        data["agent_options"] = redact_options(self.agent_options)  # a key inside a URL is never stored
        data["env_options"] = redact_options(self.env_options)
        data.pop("resume")
        return data

    def agent_kwargs(self) -> dict[str, Any]:
        options = dict(self.agent_options)
        if self.dialect:
            options.setdefault("dialect", self.dialect)
        if self.agent_kind in BATCHED_KINDS and self.observation:
            options.setdefault("observation_mode", self.observation)
        return options


__all__ = ["BATCHED_KINDS", "RESEEDED_KINDS", "RESUME_KEYS", "SERIAL_KINDS", "EvalConfig"]
