"""Typed records shared by the simulator, data loaders, agents and trainers: UI elements, observations, steps, episodes.

On disk an episode set is a JSONL file (one `Episode.to_dict()` per line) plus an image folder; screenshots
are referenced by `Observation.screenshot_path`, relative to that folder.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mobile_r1.core.actions import Action
from mobile_r1.core.errors import DataError

Box = tuple[int, int, int, int]


@dataclass(slots=True)
class UIElement:
    """One node of the accessibility tree, as Android's `uiautomator dump` reports it (bounds in screen pixels)."""

    id: int
    class_name: str
    bounds: Box
    text: str = ""
    content_desc: str = ""
    resource_id: str = ""
    clickable: bool = False
    long_clickable: bool = False
    editable: bool = False
    scrollable: bool = False
    checkable: bool = False
    checked: bool = False
    focused: bool = False
    enabled: bool = True
    selected: bool = False
    parent: int | None = None

    @property
    def center(self) -> tuple[int, int]:
        x1, y1, x2, y2 = self.bounds
        return ((x1 + x2) // 2, (y1 + y2) // 2)

    @property
    def label(self) -> str:
        """The text a person would read for this element: its text, else its content description."""
        return self.text or self.content_desc

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "class": self.class_name,
            "bounds": list(self.bounds),
            "text": self.text,
            "content_desc": self.content_desc,
            "resource_id": self.resource_id,
            "clickable": self.clickable,
            "long_clickable": self.long_clickable,
            "editable": self.editable,
            "scrollable": self.scrollable,
            "checkable": self.checkable,
            "checked": self.checked,
            "focused": self.focused,
            "enabled": self.enabled,
            "selected": self.selected,
            "parent": self.parent,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> UIElement:
        try:
            bounds = tuple(int(v) for v in data["bounds"])
            if len(bounds) != 4:
                raise ValueError
            return cls(
                id=int(data["id"]),
                class_name=str(data.get("class", data.get("class_name", ""))),
                bounds=bounds,  # type: ignore[arg-type]
                text=str(data.get("text") or ""),
                content_desc=str(data.get("content_desc") or ""),
                resource_id=str(data.get("resource_id") or ""),
                **{k: bool(data.get(k, k == "enabled")) for k in _FLAGS},
                parent=data.get("parent"),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise DataError(f"bad UI element {data!r}: needs 'id' and 'bounds' [x1, y1, x2, y2] ({exc})") from None


_FLAGS = (
    "clickable",
    "long_clickable",
    "editable",
    "scrollable",
    "checkable",
    "checked",
    "focused",
    "enabled",
    "selected",
)


@dataclass(slots=True)
class Observation:
    """What an agent sees at one step. `screenshot` is an in-memory image (PIL) and is never serialised.

    `elements_missing` says why `elements` is empty when the phone cannot report its UI tree (a real AndroidWorld
    server sends only screenshots); None when `elements` is the screen's tree.
    """

    screen_size: tuple[int, int]
    elements: list[UIElement] = field(default_factory=list)
    screenshot: Any = None
    screenshot_path: str | None = None
    xml: str | None = None
    app: str | None = None
    activity: str | None = None
    state_key: str | None = None
    app_state: dict[str, Any] | None = None
    elements_missing: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "screen_size": list(self.screen_size),
            "elements": [e.to_dict() for e in self.elements],
        }
        for key in ("screenshot_path", "xml", "app", "activity", "state_key", "app_state", "elements_missing"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Observation:
        try:
            w, h = data["screen_size"]
            return cls(
                screen_size=(int(w), int(h)),
                elements=[UIElement.from_dict(e) for e in data.get("elements") or []],
                screenshot_path=data.get("screenshot_path"),
                xml=data.get("xml"),
                app=data.get("app"),
                activity=data.get("activity"),
                state_key=data.get("state_key"),
                app_state=data.get("app_state"),
                elements_missing=data.get("elements_missing"),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise DataError(f"bad observation: needs 'screen_size' [W, H] ({exc})") from None


@dataclass(slots=True)
class Step:
    """One step of an episode: what was seen, what the agent thought and did, and what came back.

    This is the Mobile-R1 step record: `thought` (current state, next action, purpose), `description`
    (the one-line step, Mobile-R1's `subtask`) and `action` (coordinates in the screen frame unless the
    episode says otherwise). `bbox` is the target element's box in original pixels, when known.
    """

    action: Action
    thought: str = ""
    description: str = ""
    observation: Observation | None = None
    bbox: Box | None = None
    user_reply: str | None = None
    model_text: str | None = None
    info: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "action": self.action.to_arguments(),
            "thought": self.thought,
            "description": self.description,
        }
        if self.observation is not None:
            out["observation"] = self.observation.to_dict()
        if self.bbox is not None:
            out["bbox"] = list(self.bbox)
        for key in ("user_reply", "model_text"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.info:
            out["info"] = self.info
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Step:
        if "action" not in data:
            raise DataError("step has no 'action'")
        bbox = data.get("bbox")
        return cls(
            action=Action.from_arguments(data["action"]),
            thought=str(data.get("thought") or ""),
            description=str(data.get("description") or ""),
            observation=Observation.from_dict(data["observation"]) if data.get("observation") else None,
            bbox=tuple(int(v) for v in bbox) if bbox is not None else None,  # type: ignore[arg-type]
            user_reply=data.get("user_reply"),
            model_text=data.get("model_text"),
            info=dict(data.get("info") or {}),
        )


@dataclass(slots=True)
class Episode:
    """One task attempt: the instruction, the steps, and what is known about the task.

    `frame` says which frame step coordinates are in: "screen" (original pixels, the default), or
    "model" with `model_size` giving the resized image the coordinates refer to.
    """

    id: str
    instruction: str
    steps: list[Step] = field(default_factory=list)
    apps: list[str] = field(default_factory=list)
    screen_size: tuple[int, int] | None = None
    frame: str = "screen"
    model_size: tuple[int, int] | None = None
    category: str | None = None
    subcategory: str | None = None
    intent: str | None = None
    language: str = "en"
    success: bool | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "instruction": self.instruction,
            "apps": list(self.apps),
            "language": self.language,
            "frame": self.frame,
            "steps": [s.to_dict() for s in self.steps],
        }
        for key in ("screen_size", "model_size"):
            value = getattr(self, key)
            if value is not None:
                out[key] = list(value)
        for key in ("category", "subcategory", "intent", "success"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.meta:
            out["meta"] = self.meta
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Episode:
        for key in ("id", "instruction"):
            if key not in data:
                raise DataError(f"episode has no '{key}'")
        steps = []
        for i, step in enumerate(data.get("steps") or []):
            try:
                steps.append(Step.from_dict(step))
            except (DataError, ValueError, TypeError) as exc:
                raise DataError(f"step {i}: {exc}") from None
        return cls(
            id=str(data["id"]),
            instruction=str(data["instruction"]),
            steps=steps,
            apps=list(data.get("apps") or []),
            screen_size=tuple(data["screen_size"]) if data.get("screen_size") else None,  # type: ignore[arg-type]
            frame=str(data.get("frame") or "screen"),
            model_size=tuple(data["model_size"]) if data.get("model_size") else None,  # type: ignore[arg-type]
            category=data.get("category"),
            subcategory=data.get("subcategory"),
            intent=data.get("intent"),
            language=str(data.get("language") or "en"),
            success=data.get("success"),
            meta=dict(data.get("meta") or {}),
        )
