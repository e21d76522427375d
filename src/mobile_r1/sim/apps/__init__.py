"""The app registry: every module in this package defines apps and registers them with `@register`.

Modules are discovered automatically (`load_all`), so adding an app is adding one file here.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

from mobile_r1.core.errors import ConfigError
from mobile_r1.sim.apps.base import App, Ctx, Effect, clone, money, new_id

REGISTRY: dict[str, type[App]] = {}
_loaded = False


def register(cls: type[App]) -> type[App]:
    """Class decorator: add an app to the registry under its lower-case name."""
    if not cls.name or not cls.package:
        raise ConfigError(f"app class {cls.__name__} needs a `name` and a `package`")
    key = cls.__dict__.get("key") or cls.name.lower()
    if key in REGISTRY and REGISTRY[key] is not cls and REGISTRY[key].__qualname__ != cls.__qualname__:
        raise ConfigError(f"app class {cls.__name__}: the key {key!r} is already taken by {REGISTRY[key].__name__}")
    cls.key = key
    REGISTRY[key] = cls
    return cls


def load_all() -> dict[str, type[App]]:
    """Import every app module of this package (once) and return the registry."""
    global _loaded
    if not _loaded:
        for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
            if info.name != "base" and not info.name.startswith("_"):
                importlib.import_module(f"{__name__}.{info.name}")
        _loaded = True
    return REGISTRY


def normalize(name: str) -> str:
    """Lower case without spaces or punctuation: 'Shop Mall' and 'shop-mall' both become 'shopmall'."""
    return re.sub(r"[^0-9a-z\u0080-\uffff]+", "", name.lower())


def resolve(name: str, among: list[str] | None = None) -> str | None:
    """The registry key of the app called `name` (its registry key, its name in any language, an alias or its package,
    any case), or None. A key comes first, so two apps with one name (a classic app and the system app that shares its
    name, `settings` and `android_settings`) are told apart by their keys wherever both are registered."""
    registry = load_all()
    want = normalize(name)
    keys = among if among is not None else list(registry)
    for key in keys:  # a registry key first
        if want == normalize(key):
            return key
    for key in keys:  # then an app's own name, in any language, or its package
        cls = registry[key]
        if want in (normalize(cls.name), normalize(cls.package), *(normalize(n) for n in cls.names.values())):
            return key
    for key in keys:  # then the other names it answers to
        if want in (normalize(a) for a in registry[key].aliases):
            return key
    return None


__all__ = ["App", "Ctx", "Effect", "clone", "REGISTRY", "register", "load_all", "resolve", "normalize", "money", "new_id"]
