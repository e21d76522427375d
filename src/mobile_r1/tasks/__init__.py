"""Tasks as data: declarative task specs (YAML), the inquiry taxonomy and the suites' splits. No phone state here:
the simulated phone's backend (`mobile_r1.env.sim`) sets tasks up, answers for the user, judges and demonstrates."""

from mobile_r1.tasks.spec import Condition, Inquiry, TaskSpec, load_spec, load_specs
from mobile_r1.tasks.suites import SPLITS, SUITES, SuiteItem, get_suite, plan_split, suite_specs

__all__ = ["TaskSpec", "Condition", "Inquiry", "load_spec", "load_specs", "SUITES", "SPLITS", "SuiteItem", "get_suite",
           "plan_split", "suite_specs"]
