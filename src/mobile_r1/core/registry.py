"""One registry style for every extension point (backends, agents, judges, training stages): names, built-in modules
loaded on first use, installed plug-ins found by entry point, and third-party code named as `package.module:Name`.

    BACKENDS: Registry[BackendFactory] = Registry("environment", builtin={"sim": "mobile_r1.env.sim"},
                                                  entry_points="mobile_r1.backends")
    BACKENDS.register("sim", factory)                  # done by the module that defines it
    BACKENDS.get("sim")                                # imports mobile_r1.env.sim on first use
    BACKENDS.get("mypkg.phone:Backend")                # imports mypkg.phone, returns its attribute Backend

A `module:Name` entry is what Gymnasium's `make("module:Env-v0")` and Python's entry points (`module:attr`) write: the
module is imported and its attribute is the factory. Nothing is imported until a name is looked up, so importing a
registry stays light.
"""

from __future__ import annotations

import importlib
import re
from importlib.metadata import entry_points
from typing import Generic, Mapping, TypeVar

from mobile_r1.core.errors import ConfigError

T = TypeVar("T")
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def is_import_path(spec: str) -> bool:
    """True for `package.module:Name` (a dotted module path, a colon, an attribute path). The module path needs a dot,
    so that built-in specs with an argument (`hf:tiny-lm`, `adb:emulator-5554`, `openai:gpt4o`) are never taken for
    one."""
    module, sep, attr = spec.partition(":")
    return bool(sep) and "." in module and bool(_DOTTED.fullmatch(module)) and bool(_DOTTED.fullmatch(attr))


def import_path(spec: str, kind: str) -> object:
    """The object `package.module:Name` names; a clear error when the module or the attribute is missing."""
    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"{kind} {spec!r}: cannot import {module_name!r} ({exc}); is its package installed and on "
                          "the Python path?") from None
    target: object = module
    for part in attr.split("."):
        if not hasattr(target, part):
            raise ConfigError(f"{kind} {spec!r}: module {module_name!r} has no attribute {attr!r}")
        target = getattr(target, part)
    return target


class Registry(Generic[T]):
    """Named factories of one kind.

    kind           what the entries are, for messages ("environment", "agent", "judge", "stage")
    builtin        name -> the module that registers it when imported (loaded on first lookup of that name)
    entry_points   the entry-point group installed packages register under (`[project.entry-points."GROUP"]`)
    """

    def __init__(self, kind: str, builtin: Mapping[str, str] | None = None, entry_points: str | None = None) -> None:
        self.kind = kind
        self._entries: dict[str, T] = {}
        self._builtin = dict(builtin or {})
        self._group = entry_points

    @staticmethod
    def key(name: str) -> str:
        return name.strip().lower()

    def register(self, name: str, factory: T, *, replace: bool = False) -> T:
        """Add `factory` under `name` (names are case-insensitive, non-empty, without a colon)."""
        key = self.key(name)
        if not key or ":" in key:
            raise ConfigError(f"{self.kind} names are non-empty and have no colon; got {name!r}")
        if key in self._entries and not replace and self._entries[key] is not factory:
            raise ConfigError(f"a {self.kind} called {key!r} is already registered")
        self._entries[key] = factory
        return factory

    def names(self) -> list[str]:
        """Every name a lookup can find without a module path: registered, built in, and installed plug-ins."""
        return sorted(set(self._entries) | set(self._builtin) | set(self._plugins()))

    def __contains__(self, name: str) -> bool:
        return self.key(name) in self.names()

    def get(self, name: str) -> T:
        """The factory called `name`, or the object a `package.module:Name` path names."""
        if is_import_path(name):
            return import_path(name, self.kind)  # type: ignore[return-value]
        key = self.key(name)
        if key not in self._entries and key in self._builtin:
            importlib.import_module(self._builtin[key])
        if key not in self._entries:
            plugin = self._plugins().get(key)
            if plugin is not None:
                self._entries[key] = import_path(plugin, self.kind)  # type: ignore[assignment]
        if key not in self._entries:
            raise ConfigError(f"unknown {self.kind} {name!r}; known: {', '.join(self.names()) or 'none'} "
                              f"(or a third-party one as package.module:Name)")
        return self._entries[key]

    def _plugins(self) -> dict[str, str]:
        if self._group is None:
            return {}
        return {self.key(ep.name): ep.value for ep in entry_points(group=self._group)}


__all__ = ["Registry", "is_import_path", "import_path"]
