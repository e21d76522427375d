"""`make_backend(spec)`: a phone backend from a spec string (`sim`, `adb:SERIAL`, `androidworld:URL`, ...).

A factory is called as `factory(argument, **options)`, where `argument` is the text after the first colon (None when
there is none). Every factory takes the observation options `render` (draw screenshots), `scale` (their scale) and
`xml` (keep the UI tree's XML), and may take more of its own. Backends that live in optional modules are imported on
first use, so `import mobile_r1.env` stays light.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from mobile_r1.core.errors import ConfigError
from mobile_r1.env.protocol import Backend

BackendFactory = Callable[..., Backend]
_REGISTRY: dict[str, BackendFactory] = {}
# name -> module that registers it when imported
_BUILTIN: dict[str, str] = {"sim": "mobile_r1.env.sim", "androidworld": "mobile_r1.env.androidworld",
                             "adb": "mobile_r1.env.adb"}


def register_backend(name: str, factory: BackendFactory, *, replace: bool = False) -> None:
    """Make `make_backend("NAME")` / `make_backend("NAME:ARG")` call `factory(arg, **options)`."""
    key = name.strip().lower()
    if not key or ":" in key:
        raise ConfigError(f"backend names are non-empty and have no colon; got {name!r}")
    if key in _REGISTRY and not replace:
        raise ConfigError(f"a backend called {key!r} is already registered")
    _REGISTRY[key] = factory


def backend_names() -> list[str]:
    return sorted(set(_REGISTRY) | set(_BUILTIN))


def split_spec(spec: str) -> tuple[str, str | None]:
    """("adb", "emulator-5554") for "adb:emulator-5554"; ("sim", None) for "sim"."""
    name, sep, argument = spec.strip().partition(":")
    return name.lower(), (argument if sep else None)


def make_backend(spec: str = "sim", **options: Any) -> Backend:
    """The backend a spec names, built with `options` (render, scale, xml, and the backend's own)."""
    name, argument = split_spec(spec)
    if name not in _REGISTRY and name in _BUILTIN:
        importlib.import_module(_BUILTIN[name])
    factory = _REGISTRY.get(name)
    if factory is None:
        raise ConfigError(f"unknown environment {spec!r}; known: {', '.join(backend_names())} "
                          "(e.g. sim, adb:SERIAL, androidworld:http://127.0.0.1:5000)")
    try:
        return factory(argument, **options)
    except TypeError as exc:
        raise ConfigError(f"bad options for environment {spec!r}: {exc}") from None


__all__ = ["make_backend", "register_backend", "backend_names", "split_spec", "BackendFactory"]
