"""The search field the catalogue apps share (shopping, local services, feeds, maps): a query typed and submitted is
remembered (the recent searches, each once, most recent first; every search in order) and opens the results screen.

    search(ctx, "wireless earbuds")               # state: history, searches; screen: results(query=..., sort=0)
    open_search(ctx)                               # the search screen with its field focused
"""

from __future__ import annotations

from typing import Callable

from mobile_r1.sim.apps.base import Ctx

HISTORY = 10  # recent searches kept


def normalize_query(query: str) -> str:
    """The form results are keyed by: spaces collapsed, case folded ('iPhone 16 ' and 'iphone 16' are one query)."""
    return " ".join(query.split()).casefold()


def search(ctx: Ctx, text: str, normalize: Callable[[str], str] = normalize_query) -> None:
    """Search for `text` (spaces collapsed): record it in `state["history"]` (once, by `normalize`) and
    `state["searches"]`, and show `results` with `query` and `sort=0` (replacing the search or results screen)."""
    query = " ".join(text.split())
    if not query:
        ctx.toast("Type something to search")
        return
    s = ctx.state
    s["history"] = ([query] + [h for h in s["history"] if normalize(h) != normalize(query)])[:HISTORY]
    s["searches"].append(query)
    if ctx.screen in ("search", "results"):
        ctx.replace("results", query=query, sort=0)
    else:
        ctx.push("results", query=query, sort=0)


def open_search(ctx: Ctx) -> None:
    """Open the search screen with its `query` field focused."""
    ctx.push("search")
    ctx.frame["focus"] = "query"


__all__ = ["HISTORY", "normalize_query", "open_search", "search"]
