"""`make_agent(spec)`: build an agent from a spec string (`openai:MODEL`, `hf:PATH_OR_ID`, `human`, `random`, ...).

Other layers add their own agents (the simulator's expert: `oracle`, `never-ask`, `always-ask`) with
`register_agent(name, factory)`; a factory is called as `factory(argument, **options)`, where `argument`
is the text after the first colon of the spec (None when there is none).
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from mobile_r1.agents.base import Agent
from mobile_r1.core.errors import ConfigError

AgentFactory = Callable[..., Agent]
_REGISTRY: dict[str, AgentFactory] = {}


def register_agent(name: str, factory: AgentFactory, *, replace: bool = False) -> None:
    """Make `make_agent("NAME")` / `make_agent("NAME:ARG")` call `factory(arg, **options)`."""
    key = name.strip().lower()
    if not key or ":" in key:
        raise ConfigError(f"agent names are non-empty and have no colon; got {name!r}")
    if key in _REGISTRY and not replace:
        raise ConfigError(f"an agent called {key!r} is already registered")
    _REGISTRY[key] = factory


# Modules that register further agents when imported; loaded on first use so importing the registry stays light.
_BUILTIN_MODULES = ("mobile_r1.agents.scripted",)  # oracle, never-ask, always-ask (they need the tasks layer)
_builtins_loaded = False


def _load_builtins() -> None:
    global _builtins_loaded
    if not _builtins_loaded:
        _builtins_loaded = True
        for module in _BUILTIN_MODULES:
            importlib.import_module(module)


def agent_names() -> list[str]:
    """The registered agent kinds, sorted."""
    _load_builtins()
    return sorted(_REGISTRY)


def make_agent(spec: str, **options: Any) -> Agent:
    """The agent a spec names, built with `options` (dialect, temperature, base_url, ...)."""
    name, sep, argument = spec.strip().partition(":")
    _load_builtins()
    factory = _REGISTRY.get(name.lower())
    if factory is None:
        raise ConfigError(f"unknown agent {spec!r}; known kinds: {', '.join(agent_names())} (e.g. openai:MODEL, hf:tiny-lm)")
    try:
        return factory(argument if sep else None, **options)
    except TypeError as exc:
        raise ConfigError(f"bad options for agent {spec!r}: {exc}") from None


def _need(argument: str | None, kind: str, example: str) -> str:
    if not argument:
        raise ConfigError(f"the {kind} agent needs an argument, e.g. {example}")
    return argument


def _openai(argument: str | None, **options: Any) -> Agent:
    from mobile_r1.agents.openai_agent import OpenAIAgent

    return OpenAIAgent(_need(argument, "openai", "openai:gpt-4o"), **options)


def _hf(argument: str | None, **options: Any) -> Agent:
    from mobile_r1.agents.hf_agent import HFAgent

    return HFAgent(_need(argument, "hf", "hf:tiny-lm or hf:PATH"), **options)


def _human(argument: str | None, **options: Any) -> Agent:
    from mobile_r1.agents.human import HumanAgent

    if argument:
        raise ConfigError("the human agent takes no argument")
    options.pop("dialect", None)  # a person needs no prompt format
    return HumanAgent(**options)


def _random(argument: str | None, **options: Any) -> Agent:
    from mobile_r1.agents.random_agent import RandomAgent

    if argument:
        try:
            options.setdefault("seed", int(argument))
        except ValueError:
            raise ConfigError(f"random:SEED takes an integer seed, got {argument!r}") from None
    return RandomAgent(**options)


register_agent("openai", _openai)
register_agent("hf", _hf)
register_agent("human", _human)
register_agent("random", _random)
