"""State paths and condition checks: read `shop.products[name=X].id` from a phone and test typed conditions."""

from __future__ import annotations

import re
from typing import Any

from mobile_r1.core.errors import ConfigError
from mobile_r1.sim.apps import Effect
from mobile_r1.sim.system import Phone
from mobile_r1.tasks.spec import Condition, fill

_SEGMENT = re.compile(r"^([^\[\]]+)((?:\[[^\]]*\])*)$")
_FILTER = re.compile(r"\[([^\]]*)\]")


def _norm(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip().lower()
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return round(float(value), 2)
    return value


def same(a: Any, b: Any) -> bool:
    """Loose equality for conditions: strings ignore case and outer spaces, numbers compare to the cent."""
    if isinstance(a, bool) or isinstance(b, bool):
        return str(a).strip().lower() == str(b).strip().lower()
    if isinstance(a, (int, float)) and isinstance(b, str):
        try:
            b = float(b)
        except ValueError:
            return False
    if isinstance(b, (int, float)) and isinstance(a, str):
        try:
            a = float(a)
        except ValueError:
            return False
    return _norm(a) == _norm(b)


def root_of(phone: Phone, name: str) -> Any:
    """The value a path starts from: an app's state, or `permissions`."""
    if name == "permissions":
        return phone.state.permissions
    if name == "media":
        return phone.media
    if name == "removed":
        return phone.state.removed
    try:
        return phone.app_state(name)
    except ConfigError:
        raise ConfigError(f"state path starts with '{name}', which is not an installed app") from None


def split_path(path: str) -> list[str]:
    """Split a path at the dots outside brackets (`a[name=St. Mary].b` has two parts)."""
    parts, depth, cur = [], 0, ""
    for ch in path:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "." and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return parts


def resolve(phone: Phone, path: str) -> list[Any]:
    """Every value a path reaches. `a.b` walks keys, `[*]` every list item, `[k=v]` the items whose k is v (filters
    chain: `[k=v][j=w]` keeps the items with both)."""
    parts = split_path(path)
    head = _SEGMENT.match(parts[0])
    if head is None:
        raise ConfigError(f"bad state path {path!r}")
    values: list[Any] = [root_of(phone, head.group(1))]
    values = _filters(values, head.group(2), path)
    for part in parts[1:]:
        m = _SEGMENT.match(part)
        if m is None:
            raise ConfigError(f"bad state path {path!r} at {part!r}")
        nxt = []
        for v in values:
            if isinstance(v, dict):
                name = m.group(1)
                if name not in v:
                    name = next((k for k in v if str(k).lower() == name.lower()), name)
                if name in v:
                    nxt.append(v[name])
        values = _filters(nxt, m.group(2), path)
    return values


def _filters(values: list[Any], text: str, path: str) -> list[Any]:
    for f in _FILTER.findall(text):
        out = []
        for v in values:
            if isinstance(v, dict) and "=" in f:  # a second filter on the items one already chose: `[a=1][b=2]`
                key, want = f.split("=", 1)
                if same(v.get(key.strip()), want.strip()):
                    out.append(v)
                continue
            if not isinstance(v, list):
                continue
            if f == "*":
                out.extend(v)
            elif "=" in f:
                key, want = f.split("=", 1)
                out.extend(i for i in v if isinstance(i, dict) and same(i.get(key.strip()), want.strip()))
            elif f.lstrip("-").isdigit():
                idx = int(f)
                if -len(v) <= idx < len(v):
                    out.append(v[idx])
            else:
                raise ConfigError(f"bad filter [{f}] in state path {path!r}: use [*], [key=value] or [index]")
        values = out
    return values


def _leaves(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        out.extend(v if isinstance(v, list) else [v])
    return out


def match_detail(detail: dict[str, Any], where: dict[str, Any]) -> bool:
    """Whether an effect's detail has every `where` key with a matching value (lists: contains)."""
    for key, want in where.items():
        have = detail.get(key)
        if isinstance(have, list):
            if not any(same(h, want) for h in have):
                return False
        elif not same(have, want):
            return False
    return True


def matching_effects(phone: Phone, kind: str, where: dict[str, Any]) -> list[Effect]:
    return [e for e in phone.state.effects if e.kind == kind and match_detail(e.detail, where)]


def check(phone: Phone, cond: Condition, params: dict[str, Any], seen_screens: set[str] | None = None) -> bool:
    """Whether one condition holds on the phone now (`seen_screens`: activities visited, for screen conditions)."""
    kind = cond.kind
    if kind == "state":
        values = resolve(phone, fill(cond.state, params))
        leaves = _leaves(values)
        if cond.absent is not None:
            return (not leaves) == cond.absent
        if cond.count is not None:
            return len(leaves) == cond.count
        if cond.equals is not None:
            want = fill(cond.equals, params)
            return bool(values) and all(same(v, want) for v in values)
        if cond.contains is not None:
            want = fill(cond.contains, params)
            return any(same(v, want) or (isinstance(v, str) and isinstance(want, str) and _norm(want) in _norm(v))
                       for v in leaves)
        want = fill(cond.not_contains, params)
        return not any(same(v, want) for v in leaves)
    if kind == "effect":
        return bool(matching_effects(phone, cond.effect, fill(cond.where, params)))  # type: ignore[arg-type]
    if kind == "no_effect":
        return not matching_effects(phone, cond.no_effect, fill(cond.where, params))  # type: ignore[arg-type]
    if kind == "answer_contains":
        want = str(fill(cond.answer_contains, params)).lower()
        return any(want in a.lower() for a in phone.state.answers)
    if kind == "answer_mentions":
        names = [str(v).strip().lower() for v in resolve(phone, fill(cond.answer_mentions, params)) if str(v).strip()]
        return any(name in a.lower() for a in phone.state.answers for name in names)
    want_screen = fill(cond.screen, params)
    if seen_screens is not None and not cond.params:
        return want_screen in seen_screens or phone.activity() == want_screen
    if phone.activity() != want_screen:
        return False
    frame = phone.top_frame() or {}
    got = frame.get("params", {})
    return all(same(got.get(k), fill(v, params)) for k, v in cond.params.items())


def set_path(phone: Phone, path: str, value: Any, append: bool = False) -> None:
    """Set (or append to) the value at a path; the last segment names a key of the dicts the rest reaches."""
    parts = split_path(path)
    parent, key = ".".join(parts[:-1]), parts[-1]
    targets = resolve(phone, parent) if parent else []
    if not parent or not targets:
        raise ConfigError(f"cannot patch {path!r}: nothing at {parent or path!r}")
    for t in targets:
        if not isinstance(t, dict):
            raise ConfigError(f"cannot patch {path!r}: {parent!r} is not a mapping")
        if append:
            lst = t.setdefault(key, [])
            if not isinstance(lst, list):
                raise ConfigError(f"cannot append to {path!r}: it is not a list")
            lst.append(value)
        else:
            t[key] = value
