"""The search field the catalogue apps share (shopping, local services, feeds, maps): a query typed and submitted is
remembered (the recent searches, each once, most recent first; every search in order) and opens the results screen,
whose sort chips and empty list they share too.

    search(ctx, "wireless earbuds")               # state: history, searches; screen: results(query=..., sort=0)
    open_search(ctx)                               # the search screen with its field focused
    sort_chips(CHIPS, SORTS, sort, lambda c, i: c.replace("results", query=query, sort=i))
"""

from __future__ import annotations

from typing import Callable, Sequence

from mobile_r1.sim.apps.base import Ctx
from mobile_r1.sim.ui.widgets import Row, Text, Widget

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


def sort_chips(chips: Sequence[tuple[str, str]], orders: Sequence[str], sort: int, pick: Callable[[Ctx, int], None],
               pad: int = 18) -> Widget:
    """The row of sort chips above a results list (id `sort`): chip i shows `chips[i]` (label, description), has id
    `sort_<orders[i]>` and calls `pick(ctx, i)` when tapped; the chosen one (`sort`; -1 chooses none) is bold,
    selected, in the primary colour. The media libraries and Settings' apps list use it too."""
    return Row(*[Text(label, desc=desc, bold=i == sort, color="primary" if i == sort else None, selected=i == sort,
                      align="center", pad=pad, weight=1.0, id=f"sort_{orders[i]}",
                      on_click=lambda c, i=i: pick(c, i))
                 for i, (label, desc) in enumerate(chips)], pad=12, gap=8, id="sort")


def no_results(ctx: Ctx, query: str) -> Widget:
    """What a results list shows when nothing matches `query` (each app translates the line)."""
    return Text(ctx.t("No results for '{query}'", query=query), pad=60)


__all__ = ["HISTORY", "no_results", "normalize_query", "open_search", "search", "sort_chips"]
