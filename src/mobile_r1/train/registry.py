"""The training stages by name: the one place their names are listed, and the way to add one.

    STAGES.get("task-grpo")                 # imports mobile_r1.train.task_stage on first use: its TaskGRPORunner
    STAGES.get("mypkg.stages:Distill")      # a third-party stage, named by its module path (no registration)
    @register_stage                         # a stage in a file of its own registers itself under its `name`
    class Distill(StageRunner): name = "distill"; ...

The registry is `core.registry.Registry` (the style of the agents' and the backends'): built-in stages are imported on
the first lookup of their name, installed packages add stages under the entry-point group `mobile_r1.stages`. The run
loop (`train.run`), the config (`train.config`), the curriculum and `mobile-r1 train` know stages only through it.
This module imports nothing heavy, so the config and the CLI can read it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from mobile_r1.core.registry import Registry, is_import_path

if TYPE_CHECKING:
    from mobile_r1.train.stage import StageRunner

# The built-in stages in curriculum order, and the module that registers each.
BUILTIN_STAGES: dict[str, str] = {
    "sft": "mobile_r1.train.sft",
    "action-grpo": "mobile_r1.train.action_grpo",
    "task-grpo": "mobile_r1.train.task_stage",
}

STAGES: Registry[type[StageRunner]] = Registry("stage", builtin=BUILTIN_STAGES, entry_points="mobile_r1.stages")

S = TypeVar("S", bound="type[StageRunner]")


def register_stage(cls: S) -> S:
    """Class decorator: register a `StageRunner` subclass under its `name` (so `--stage NAME` finds it)."""
    STAGES.register(cls.name, cls, replace=True)
    return cls


def stage_class(name: str) -> type[StageRunner]:
    """The stage `name` names: a registered or built-in name, an installed plug-in, or `package.module:Name`."""
    return STAGES.get(name)


def default_curriculum() -> list[str]:
    """The stages a curriculum runs when its config lists none: the built-in ones, in order."""
    return list(BUILTIN_STAGES)


def check_stage_name(name: str) -> str:
    """A stage name as a config may hold it (a known name or a module path); ValueError otherwise. The stage's module
    is not imported here: that happens when the stage runs."""
    if not (name in STAGES or is_import_path(name)):
        raise ValueError(f"unknown stage {name!r}; known: {', '.join(STAGES.names())} (or a third-party one as "
                         "package.module:Name)")
    return name


__all__ = ["BUILTIN_STAGES", "STAGES", "check_stage_name", "default_curriculum", "register_stage", "stage_class"]
