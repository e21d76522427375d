"""The door to a phone: the environment protocol (`protocol`), the backends behind it (`sim`; more by name through
`make_backend`), expert data through any backend (`demos`), and the Gymnasium face (`gym`, registered here as
`mobile_r1/Phone-v0`)."""

from mobile_r1.env.protocol import (Backend, Capability, Demonstration, EpisodeRef, Move, PlannedStep, StepInfo, TaskEnv,
                                    expert_demos, reset_many, step_many)
from mobile_r1.env.gym import register as _register_gym
from mobile_r1.env.registry import backend_names, make_backend, register_backend

_register_gym()

__all__ = ["Backend", "TaskEnv", "EpisodeRef", "StepInfo", "Capability", "PlannedStep", "Demonstration", "Move",
           "step_many", "reset_many", "expert_demos", "make_backend", "register_backend", "backend_names"]
