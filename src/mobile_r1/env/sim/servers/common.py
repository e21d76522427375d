"""What both servers of the simulated phone check before they listen: the address and port, and the image scale."""

from __future__ import annotations

import math
import socket

from mobile_r1.core.errors import ConfigError

MAX_SCALE = 2.0  # 2160x4800 screenshots; a larger scale only costs memory (at 50, one screenshot is 19 GB)


def check_address(host: str, port: int) -> None:
    """ConfigError unless `host` is an address this machine can listen on (a literal IP or a name that resolves)
    and `port` is within 0..65535."""
    if not 0 <= port <= 65535:
        raise ConfigError(f"--port must be within 0..65535 (0 picks a free one), got {port}")
    try:
        socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError, ValueError) as exc:
        raise ConfigError(f"--host {host!r} is not an address to listen on ({exc}); e.g. 127.0.0.1, or 0.0.0.0 "
                          "to accept other machines") from None


def check_scale(option: str, value: float) -> None:
    """ConfigError unless 0 < value <= MAX_SCALE (and finite)."""
    if not (math.isfinite(value) and 0 < value <= MAX_SCALE):
        raise ConfigError(f"{option} must be a number in (0, {MAX_SCALE:g}] (1.0: the full 1080x2400 screen), "
                          f"got {value}")


def check_locale_option(value: str) -> None:
    """ConfigError unless `value` is a language the phone speaks (en, zh)."""
    if value not in ("en", "zh"):
        raise ConfigError(f"--locale: the phone speaks en or zh, not {value!r}")


def bind_error(host: str, port: int, exc: OSError) -> ConfigError:
    return ConfigError(f"cannot listen on {host}:{port} ({exc.strerror or exc}); choose another --port, or 0 for a "
                       "free one")


__all__ = ["check_address", "check_scale", "check_locale_option", "bind_error", "MAX_SCALE"]
