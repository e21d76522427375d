"""Notes: a list of notes to search, read, write, pin and delete (a reference app for the App API)."""

from __future__ import annotations

import random
from typing import Any

from mobile_r1.sim.apps import App, Ctx, new_id, register
from mobile_r1.sim.ui.widgets import AppBar, Button, Column, Icon, Input, ListItem, Row, Scroll, Text, Widget

TITLES = ["Groceries", "Meeting notes", "Trip packing list", "Book ideas", "Workout plan", "Gift ideas",
          "Recipes to try", "Passwords hint", "Weekend plans", "Movie watchlist", "Project tasks", "Birthday party"]
BODIES = ["milk, eggs, bread, apples", "discuss budget and timeline with the team", "passport, charger, sunscreen",
          "a mystery set in a lighthouse", "run 5 km on Monday, swim on Wednesday", "scarf for mum, book for dad",
          "lemon pasta, green curry", "the usual one with the year", "hike on Saturday, brunch on Sunday",
          "Inception, Arrival, Up", "finish the report, email the client", "cake, balloons, invitations"]


def _find(ctx: Ctx, note_id: int) -> dict[str, Any] | None:
    return next((n for n in ctx.state["notes"] if n["id"] == note_id), None)


def _delete(ctx: Ctx, note_id: int) -> None:
    note = _find(ctx, note_id)
    if note is None:
        return
    ctx.state["notes"].remove(note)
    ctx.effect("delete", item="note", id=note_id, title=note["title"])
    ctx.toast("Note deleted")
    if ctx.screen != "home":
        ctx.reset_to("home")


def _toggle_pin(ctx: Ctx, note_id: int) -> None:
    note = _find(ctx, note_id)
    if note is not None:
        note["pinned"] = not note["pinned"]
        ctx.toast("Pinned" if note["pinned"] else "Unpinned")


def _save(ctx: Ctx, *_: Any) -> None:
    title = ctx.fields.get("title", "").strip()
    body = ctx.fields.get("body", "").strip()
    if not title and not body:
        ctx.toast("Empty note discarded")
        ctx.pop()
        return
    note_id = ctx.params.get("id")
    note = _find(ctx, note_id) if note_id is not None else None
    if note is None:
        note = {"id": new_id(ctx.state["notes"]), "title": title or body[:20], "body": body, "pinned": False}
        ctx.state["notes"].append(note)
        ctx.toast("Note saved")
        ctx.replace("note", id=note["id"])
    else:
        note["title"], note["body"] = title or note["title"], body
        ctx.toast("Note updated")
        ctx.pop()


@register
class Notes(App):
    name = "Notes"
    names = {"zh": "备忘录"}
    package = "com.sim.notes"
    aliases = ("note", "memo", "notepad", "keep")
    color = "#f4b400"
    icon = "note"

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        picks = rng.sample(range(len(TITLES)), 7)
        notes = [{"id": i + 1, "title": TITLES[p], "body": BODIES[p], "pinned": False} for i, p in enumerate(picks)]
        notes[0]["pinned"] = True
        return {"notes": notes}

    def _row(self, note: dict[str, Any]) -> Widget:
        nid = note["id"]
        return ListItem(
            note["title"], note["body"], id="note",
            leading=Icon("star_filled" if note["pinned"] else "note", desc="Pinned" if note["pinned"] else "Note",
                         size=72, color="primary"),
            on_click=lambda c: c.push("note", id=nid),
            on_long_press=lambda c: c.menu([("Unpin" if note["pinned"] else "Pin", lambda c2: _toggle_pin(c2, nid)),
                                            ("Delete", lambda c2: c2.confirm("Delete note?", "This cannot be undone.",
                                                                             lambda c3: _delete(c3, nid), yes="Delete"))],
                                           title=note["title"]))

    def screen_home(self, ctx: Ctx) -> Widget:
        notes = sorted(ctx.state["notes"], key=lambda n: (not n["pinned"], -n["id"]))
        rows = [self._row(n) for n in notes] or [Text("No notes yet", pad=60, color="primary")]
        return Column(
            AppBar("Notes", back=False, actions=[Icon("search", desc="Search notes", size=80, id="search",
                                                      on_click=lambda c: c.push("search"))]),
            Scroll(*rows, id="notes_list"),
            Row(Button("New note", icon="plus", on_click=lambda c: c.push("edit"), id="new_note"), pad=36),
        )

    def screen_note(self, ctx: Ctx) -> Widget:
        note = _find(ctx, ctx.params.get("id", -1)) or (ctx.state["notes"][0] if ctx.state["notes"] else None)
        if note is None:
            return Column(AppBar("Note"), Text("This note no longer exists", pad=60))
        nid = note["id"]
        return Column(
            AppBar("Note", actions=[
                Icon("edit", desc="Edit", size=80, id="edit", on_click=lambda c: c.push("edit", id=nid)),
                Icon("trash", desc="Delete", size=80, id="delete",
                     on_click=lambda c: c.confirm("Delete note?", "This cannot be undone.", lambda c2: _delete(c2, nid),
                                                  yes="Delete"))]),
            Scroll(Column(Text(note["title"], size="big", bold=True, id="note_title"),
                          Text(note["body"], size="body", id="note_body"), pad=48, gap=32), id="note_scroll"),
        )

    def screen_edit(self, ctx: Ctx) -> Widget:
        note = _find(ctx, ctx.params.get("id", -1))
        return Column(
            AppBar("Edit note" if note else "New note",
                   actions=[Button("Save", on_click=_save, style="text", id="save")]),
            Column(Input("title", hint="Title", value=note["title"] if note else ""),
                   Input("body", hint="Write something", value=note["body"] if note else "", lines=6),
                   pad=36, gap=32),
        )

    def screen_search(self, ctx: Ctx) -> Widget:
        query = ctx.fields.get("query", "").strip().lower()
        hits = [n for n in ctx.state["notes"] if query and (query in n["title"].lower() or query in n["body"].lower())]
        rows: list[Widget] = [self._row(n) for n in hits]
        if query and not hits:
            rows = [Text(f"No notes match '{query}'", pad=60)]
        return Column(
            AppBar("Search notes"),
            Row(Input("query", hint="Search notes", weight=1.0), pad=36),
            Scroll(*rows, id="results"),
        )
