"""Agent options checked before anything is written: no secret passed as an option, only keywords the agent takes,
and credentials taken out of URLs wherever options are stored or shown.

    validate_agent_options("openai:gpt-4o", {"base_url": url, "temperature": 0.2})   # ConfigError if not
    redact_url("https://user:sk-123@host/v1?api_key=sk-123")  # 'https://***@host/v1?api_key=***'
    redact_options({"base_url": url, ...})                    # what run.json may hold

A runner calls `validate_agent_options` before it creates a run folder and stores `redact_options(...)`, so a key
typed on the command line never reaches `run.json`, logs or reports. Keys belong in the environment
(`OPENAI_API_KEY`, or `api_key_env=NAME`).
"""

from __future__ import annotations

import inspect
import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from mobile_r1.agents.registry import agent_class
from mobile_r1.core.errors import ConfigError

REDACTED = "***"
# Words that make an option or query-parameter name a secret's (api_key, access_token, client_secret, password, ...);
# names are split on `-` and `_`, so `max_new_tokens` is not one.
_SECRET_WORDS = frozenset({"key", "apikey", "token", "secret", "password", "passwd", "pwd", "auth", "authorization",
                           "credential", "credentials", "bearer", "signature", "sig"})
# Values that look like keys wherever they appear in a URL path (sk-..., sk_live_..., long hex or base64 runs).
_KEY_LIKE = re.compile(r"^(sk|pk|rk|key|api)[-_][A-Za-z0-9_\-]{8,}$|^[A-Za-z0-9_\-]{40,}$")
ALLOWED_SECRET_NAMES = frozenset({"api_key_env"})  # names the variable that holds the key, not the key


def is_secret_name(name: str) -> bool:
    """Whether an option or query parameter called `name` holds a secret (`api_key_env` names one: it does not)."""
    return name not in ALLOWED_SECRET_NAMES and any(w in _SECRET_WORDS for w in re.split(r"[-_.]", name.lower()))


def redact_url(url: str) -> str:
    """`url` without credentials: user info, secret-named query values and key-like path parts become `***`."""
    if not isinstance(url, str) or not url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return REDACTED
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{REDACTED}@{netloc.rsplit('@', 1)[1]}"
    path = "/".join(REDACTED if _KEY_LIKE.match(segment) else segment for segment in parts.path.split("/"))
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, REDACTED if is_secret_name(k) or _KEY_LIKE.match(v) else v) for k, v in pairs],
                          safe="*")
    return urlunsplit((parts.scheme, netloc, path, query, ""))


def redact_options(options: dict[str, Any]) -> dict[str, Any]:
    """A copy of agent options fit to store: URLs redacted, secret-named values replaced by `***`."""
    out: dict[str, Any] = {}
    for key, value in options.items():
        if is_secret_name(key):
            out[key] = REDACTED
        elif isinstance(value, str) and "://" in value:
            out[key] = redact_url(value)
        else:
            out[key] = value
    return out


def validate_agent_options(spec: str, options: dict[str, Any]) -> None:
    """Refuse, before anything is written, a secret given as an option and a keyword the agent does not take."""
    for key in options:
        if is_secret_name(key):
            raise ConfigError(
                f"--option {key}=...: keys and tokens are never passed as options (they would be stored with the run); "
                "put the key in an environment variable: OPENAI_API_KEY, or any NAME with --option api_key_env=NAME"
            )
    cls = agent_class(spec)  # the agent's class where the registry knows it (None: any options go through)
    if cls is None:
        return
    kind = spec.strip().partition(":")[0].lower()
    parameters = inspect.signature(cls.__init__).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return
    named = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    accepted = [name for name, p in list(parameters.items())[1:] if p.kind in named]  # [0] is self
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise ConfigError(f"the {kind} agent takes no option {unknown[0]!r}; its options: {', '.join(sorted(accepted))}")


__all__ = ["REDACTED", "is_secret_name", "redact_options", "redact_url", "validate_agent_options"]
