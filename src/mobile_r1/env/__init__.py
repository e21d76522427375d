"""Environments an agent acts in: the protocol and the built-in simulated phone backend."""

from mobile_r1.env.base import Env, TaskSetup
from mobile_r1.env.sim_env import EnvPool, SimEnv, Snapshot

__all__ = ["Env", "TaskSetup", "SimEnv", "EnvPool", "Snapshot"]
