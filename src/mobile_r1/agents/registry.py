"""`make_agent(spec)`: build an agent from a spec string (`openai:MODEL`, `hf:PATH_OR_ID`, `human`, `random`, `oracle`,
or a third-party agent as `package.module:Name`).

The agents are found by the project's one registry style (`core.registry.Registry`): each built-in kind is
registered by the module that defines it, imported on the first lookup of its name; installed packages add kinds
under the entry-point group `mobile_r1.agents`; and `package.module:Name` (or `package.module:Name:ARG`) names any
agent class or factory without registering it:

    make_agent("hf:tiny-lm", dialect="inquire")           # HFAgent.from_spec("tiny-lm", dialect="inquire")
    make_agent("mypkg.bots:EchoAgent", dialect="inquire")  # EchoAgent(dialect="inquire"): an Agent class
    register_agent("echo", EchoAgent.from_spec)            # then make_agent("echo:ARG")

A registered factory is called as `factory(argument, **options)`, where `argument` is the text after the kind's
colon (None when there is none). An `Agent` subclass named by its module path is built with the options alone (and
the argument first, when the spec gives one); any other object it names is called as a factory.
"""

from __future__ import annotations

from typing import Any, Callable

from mobile_r1.agents.base import Agent
from mobile_r1.core.errors import ConfigError
from mobile_r1.core.registry import Registry, import_path, is_import_path

AgentFactory = Callable[..., Agent]

AGENTS: Registry[AgentFactory] = Registry(
    "agent",
    builtin={
        "openai": "mobile_r1.agents.openai_agent",
        "hf": "mobile_r1.agents.hf_agent",
        "human": "mobile_r1.agents.human",
        "random": "mobile_r1.agents.random_agent",
        "oracle": "mobile_r1.agents.scripted",  # the simulator's expert through the environment protocol
        "never-ask": "mobile_r1.agents.scripted",
        "always-ask": "mobile_r1.agents.scripted",
    },
    entry_points="mobile_r1.agents",
)


def register_agent(name: str, factory: AgentFactory, *, replace: bool = False) -> None:
    """Make `make_agent("NAME")` / `make_agent("NAME:ARG")` call `factory(arg, **options)`."""
    AGENTS.register(name, factory, replace=replace)


def agent_names() -> list[str]:
    """The agent kinds a spec can name without a module path, sorted."""
    return AGENTS.names()


def agent_factory(spec: str) -> tuple[AgentFactory, str | None]:
    """The factory a spec names and the spec's argument: `KIND[:ARG]` from the registry, or `package.module:Name[:ARG]`
    (an `Agent` subclass named so is wrapped to build with the options alone)."""
    spec = spec.strip()
    module, _, rest = spec.partition(":")
    attr, sep, argument = rest.partition(":")
    if is_import_path(f"{module}:{attr}"):
        target = import_path(f"{module}:{attr}", "agent")
        if isinstance(target, type) and issubclass(target, Agent):
            return _class_factory(target), argument if sep else None
        if not callable(target):
            raise ConfigError(f"agent {spec!r}: {module}:{attr} is neither an Agent class nor a factory")
        return target, argument if sep else None  # type: ignore[return-value]
    name, sep, argument = spec.partition(":")
    return AGENTS.get(name), argument if sep else None


def agent_class(spec: str) -> type[Agent] | None:
    """The class a spec's agent is built from, where it is known (a factory bound to its class: `Cls.from_spec`, or
    an `Agent` class named by its module path); None for a plain factory function."""
    factory, _ = agent_factory(spec)
    owner = getattr(factory, "agent_class", None) or getattr(factory, "__self__", None)
    return owner if isinstance(owner, type) and issubclass(owner, Agent) else None


def make_agent(spec: str, **options: Any) -> Agent:
    """The agent a spec names, built with `options` (dialect, temperature, base_url, ...)."""
    factory, argument = agent_factory(spec)
    try:
        return factory(argument, **options)
    except TypeError as exc:
        raise ConfigError(f"bad options for agent {spec!r}: {exc}") from None


def need_argument(argument: str | None, kind: str, example: str) -> str:
    """A spec's argument, or a ConfigError showing an `example` spec when it has none."""
    if not argument:
        raise ConfigError(f"the {kind} agent needs an argument, e.g. {example}")
    return argument


def _class_factory(cls: type[Agent]) -> AgentFactory:
    def build(argument: str | None, **options: Any) -> Agent:
        return cls(**options) if argument is None else cls(argument, **options)  # type: ignore[call-arg]

    build.agent_class = cls  # type: ignore[attr-defined]  # what `agent_class` reports (options are checked on it)
    return build


__all__ = ["AGENTS", "AgentFactory", "agent_class", "agent_factory", "agent_names", "make_agent", "need_argument",
           "register_agent"]
