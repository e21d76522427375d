"""Tasks on the simulated phone: declarative specs, the simulated user, the rule judge, the search expert and suites."""

from mobile_r1.tasks.episode import TaskEpisode, draw_params, make_episode
from mobile_r1.tasks.expert import Expert, ExpertRun, run_expert
from mobile_r1.tasks.judge import Judgement, judge
from mobile_r1.tasks.spec import Condition, Inquiry, TaskSpec, load_spec, load_specs
from mobile_r1.tasks.user import SimulatedUser

__all__ = ["TaskSpec", "Condition", "Inquiry", "load_spec", "load_specs", "TaskEpisode", "make_episode", "draw_params",
           "SimulatedUser", "judge", "Judgement", "Expert", "ExpertRun", "run_expert"]
