"""AndroidEnv accessibility forests (`AndroidAccessibilityForest` protobuf, as AndroidControl stores them) -> UI elements.

The schema is google-deepmind/android_env `android_env/proto/a11y/`: `android_accessibility_forest.proto`
(`windows` = 1), `android_accessibility_window_info.proto` (`bounds_in_screen` 1, `id` 3, `layer` 4, `title` 5,
`window_type` 6, `tree` 11), `android_accessibility_tree.proto` (`nodes` = 1) and
`android_accessibility_node_info.proto` (`unique_id` 1, `bounds_in_screen` 2, `class_name` 3,
`content_description` 4, `hint_text` 5, `package_name` 6, `text` 7, `view_id_resource_name` 10, `window_id` 11,
`is_checkable` 12 ... `is_visible_to_user` 23, `child_ids` 25, `depth` 27), `rect.proto` (`left`, `top`, `right`,
`bottom`). Only those fields are declared here (fields not declared are skipped when parsing, as protobuf does), in a
private descriptor pool, so that android_env need not be installed and its classes are never clashed with.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from mobile_r1.core.errors import DataError
from mobile_r1.core.records import UIElement

_PACKAGE = "mobile_r1_a11y"

_NODE_FIELDS: tuple[tuple[str, int, str], ...] = (
    ("unique_id", 1, "int32"),
    ("bounds_in_screen", 2, ".ProtoRect"),
    ("class_name", 3, "string"),
    ("content_description", 4, "string"),
    ("hint_text", 5, "string"),
    ("package_name", 6, "string"),
    ("text", 7, "string"),
    ("view_id_resource_name", 10, "string"),
    ("window_id", 11, "int32"),
    ("is_checkable", 12, "bool"),
    ("is_checked", 13, "bool"),
    ("is_clickable", 14, "bool"),
    ("is_editable", 15, "bool"),
    ("is_enabled", 16, "bool"),
    ("is_focusable", 17, "bool"),
    ("is_focused", 18, "bool"),
    ("is_long_clickable", 19, "bool"),
    ("is_password", 20, "bool"),
    ("is_scrollable", 21, "bool"),
    ("is_selected", 22, "bool"),
    ("is_visible_to_user", 23, "bool"),
    ("child_ids", 25, "repeated int32"),
    ("depth", 27, "int32"),
)


@lru_cache(maxsize=1)
def forest_class() -> Any:
    """The message class of `AndroidAccessibilityForest` (built once from the field table above)."""
    try:
        from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    except ImportError:
        raise DataError("reading accessibility trees needs protobuf: pip install 'mobile-r1[data]'") from None
    F = descriptor_pb2.FieldDescriptorProto
    scalar = {"int32": F.TYPE_INT32, "string": F.TYPE_STRING, "bool": F.TYPE_BOOL}
    proto = descriptor_pb2.FileDescriptorProto(name=f"{_PACKAGE}/a11y.proto", package=_PACKAGE, syntax="proto3")

    def message(name: str, fields: tuple[tuple[str, int, str], ...]) -> None:
        msg = proto.message_type.add(name=name)
        for field_name, number, kind in fields:
            repeated = kind.startswith("repeated ")
            kind = kind.removeprefix("repeated ")
            label = F.LABEL_REPEATED if repeated else F.LABEL_OPTIONAL
            if kind.startswith("."):
                msg.field.add(name=field_name, number=number, label=label, type=F.TYPE_MESSAGE,
                              type_name=f".{_PACKAGE}{kind}")
            else:
                msg.field.add(name=field_name, number=number, label=label, type=scalar[kind])

    message("ProtoRect", (("left", 1, "int32"), ("top", 2, "int32"), ("right", 3, "int32"), ("bottom", 4, "int32")))
    message("AndroidAccessibilityNodeInfo", _NODE_FIELDS)
    message("AndroidAccessibilityTree", (("nodes", 1, "repeated .AndroidAccessibilityNodeInfo"),))
    message("AndroidAccessibilityWindowInfo", (
        ("bounds_in_screen", 1, ".ProtoRect"), ("id", 3, "int32"), ("layer", 4, "int32"), ("title", 5, "string"),
        ("window_type", 6, "int32"), ("tree", 11, ".AndroidAccessibilityTree"),
    ))
    message("AndroidAccessibilityForest", (("windows", 1, "repeated .AndroidAccessibilityWindowInfo"),))
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.AndroidAccessibilityForest"))


def forest_elements(data: bytes, place: str) -> list[UIElement]:
    """The visible nodes of a serialized forest as UI elements, windows back to front, each tree in node order.

    Element ids number the list; `parent` is the id of the node listing it among its `child_ids`.
    """
    if not data:
        return []
    from google.protobuf.message import DecodeError

    forest = forest_class()()
    try:
        forest.ParseFromString(data)
    except DecodeError as exc:
        raise DataError(f"{place}: not an AndroidAccessibilityForest ({exc})") from None
    elements: list[UIElement] = []
    for window in sorted(forest.windows, key=lambda w: w.layer):
        ids: dict[int, int] = {}
        parents: dict[int, int] = {}
        for node in window.tree.nodes:
            for child in node.child_ids:
                parents[int(child)] = int(node.unique_id)
        for node in window.tree.nodes:
            if not node.is_visible_to_user:
                continue
            r = node.bounds_in_screen
            ids[int(node.unique_id)] = len(elements)
            parent = ids.get(parents.get(int(node.unique_id), -1))
            elements.append(UIElement(
                id=len(elements),
                class_name=node.class_name,
                bounds=(int(r.left), int(r.top), int(r.right), int(r.bottom)),
                text=node.text or node.hint_text,
                content_desc=node.content_description,
                resource_id=node.view_id_resource_name,
                clickable=node.is_clickable,
                long_clickable=node.is_long_clickable,
                editable=node.is_editable,
                scrollable=node.is_scrollable,
                checkable=node.is_checkable,
                checked=node.is_checked,
                focused=node.is_focused,
                enabled=node.is_enabled,
                selected=node.is_selected,
                parent=parent,
            ))
    return elements


def smallest_box_at(elements: list[UIElement], point: tuple[float, float]) -> tuple[int, int, int, int] | None:
    """The bounds of the smallest element containing `point` (clickable ones first), or None."""
    x, y = point
    inside = [e for e in elements if e.bounds[0] <= x <= e.bounds[2] and e.bounds[1] <= y <= e.bounds[3]
              and e.bounds[2] > e.bounds[0] and e.bounds[3] > e.bounds[1]]
    if not inside:
        return None
    best = min(inside, key=lambda e: (not (e.clickable or e.long_clickable or e.editable),
                                      (e.bounds[2] - e.bounds[0]) * (e.bounds[3] - e.bounds[1])))
    return best.bounds
