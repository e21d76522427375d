"""The built-in simulated phone behind the door: its backend (`SimBackend`, `SimTaskEnv`), the raw phone environment
(`SimEnv`, from `mobile_r1.sim.driver`), and everything that reads its state: task set-up (`episode`), the simulated
user, the rule judge, the expert and the task checks; its suites for devices that are our simulated phone
(`task_source`, registered as the task source "sim"), and the servers that expose it (`servers`)."""

from mobile_r1.env.sim.backend import SimBackend, SimTaskEnv, episode_ref
from mobile_r1.env.sim.episode import TaskEpisode, build_split, make_episode
from mobile_r1.env.sim.task_source import SimTaskSource
from mobile_r1.sim.driver import SimEnv, Snapshot

__all__ = ["SimBackend", "SimTaskEnv", "SimTaskSource", "SimEnv", "Snapshot", "TaskEpisode", "build_split",
           "make_episode", "episode_ref"]
