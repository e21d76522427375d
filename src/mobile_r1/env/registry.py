"""`make_backend(spec)`: a phone backend from a spec string, found in the core registry (`BACKENDS`).

    make_backend("sim")                                   # a name
    make_backend("adb:emulator-5554")                     # NAME:ARGUMENT
    make_backend("androidworld:http://127.0.0.1:5000")
    make_backend("mypkg.phone:Backend")                   # a third party's, by its module path (as Gymnasium's make)
    make_backend("mypkg.phone:Backend:ARG")               # ... with an argument

The names are those registered with `register_backend` (by the module that defines the backend: the built-in `sim`,
`adb` and `androidworld` are imported on first use, so `import mobile_r1.env` stays light) and those installed
packages declare under the entry-point group `mobile_r1.backends` (`phone = "mypkg.phone:factory"`). A factory, found
by name or by path, is called as `factory(argument, **options)`: `argument` is the text after the first colon (after
`:Name` for a path), None when there is none; the options are the observation options `render` (draw screenshots),
`scale` (their scale) and `xml` (keep the UI tree's XML), which every factory takes, and any of its own
(`--env-option KEY=VALUE`). A `Backend` subclass whose first parameter takes the argument is a factory as it stands
(`AndroidWorldBackend(url, render=..., scale=..., xml=...)`).

One word, one meaning, everywhere under `env/`: a backend is a `Backend` (`env.protocol`), a source of phones with
tasks on them. A spec names one, a factory builds one (the built-in factories put the safety gate in front when asked,
so what `make_backend` returns may be a `GatedBackend` around the class), and each `backend.py` (in `sim/`, `adb/`,
`androidworld/`) holds its folder's `Backend` and the `TaskEnv` that backend opens.
"""

from __future__ import annotations

from typing import Any, Callable

from mobile_r1.core.errors import ConfigError
from mobile_r1.core.registry import Registry, is_import_path
from mobile_r1.env.protocol import Backend

BackendFactory = Callable[..., Backend]
BACKENDS: Registry[BackendFactory] = Registry(
    "environment", builtin={"sim": "mobile_r1.env.sim", "androidworld": "mobile_r1.env.androidworld",
                            "adb": "mobile_r1.env.adb"},
    entry_points="mobile_r1.backends")
EXAMPLES = "sim, adb:SERIAL, androidworld:http://127.0.0.1:5000, or a third party's as package.module:Name[:ARG]"


def register_backend(name: str, factory: BackendFactory, *, replace: bool = False) -> None:
    """Make `make_backend("NAME")` / `make_backend("NAME:ARG")` call `factory(arg, **options)`."""
    BACKENDS.register(name, factory, replace=replace)


def backend_names() -> list[str]:
    """The backends a name finds: registered, built in, and installed plug-ins."""
    return BACKENDS.names()


def split_spec(spec: str) -> tuple[str, str | None]:
    """The registry key and the argument of a spec: ("adb", "emulator-5554") for "adb:emulator-5554", ("sim", None)
    for "sim", ("mypkg.phone:Backend", "ARG") for "mypkg.phone:Backend:ARG"."""
    spec = spec.strip()
    name, sep, rest = spec.partition(":")
    attribute, more, argument = rest.partition(":")
    if sep and is_import_path(f"{name}:{attribute}"):
        return f"{name}:{attribute}", (argument if more else None)
    return name.lower(), (rest if sep else None)


def make_backend(spec: str = "sim", **options: Any) -> Backend:
    """The backend a spec names, built with `options` (render, scale, xml, and the backend's own)."""
    key, argument = split_spec(spec)
    if not is_import_path(key) and key not in BACKENDS:
        raise ConfigError(f"unknown environment {spec!r}; known: {', '.join(backend_names())} (e.g. {EXAMPLES})")
    factory = BACKENDS.get(key)
    if not callable(factory):
        raise ConfigError(f"environment {spec!r}: {key} is a {type(factory).__name__}, not a backend class or factory")
    try:
        backend = factory(argument, **options)
    except TypeError as exc:
        raise ConfigError(f"bad options for environment {spec!r}: {exc}") from None
    if not isinstance(backend, Backend):
        raise ConfigError(f"environment {spec!r}: {key} gave a {type(backend).__name__}, not a "
                          "mobile_r1.env.Backend")
    return backend


__all__ = ["make_backend", "register_backend", "backend_names", "split_spec", "BackendFactory", "BACKENDS"]
