"""Playing episodes on a phone, the floor evaluation and training both stand on: one turn per agent reply.

`mobile_r1.play` sits between `serve` and `agents` in the layers contract: it knows agents' requests and replies
(`agents.base`) and phones (the environment protocol, `mobile_r1.env`), nothing above. `eval.runner` (online
evaluation) and `train.rollout` (stage-3 rollouts) both step their phones through `play.episode.EpisodePlay` and
`advance_many`, so an agent meets the same rules in both.
"""

from mobile_r1.play.episode import NO_ACTION, EpisodePlay, Turn, Unreadable, advance_many, self_corrections

__all__ = ["EpisodePlay", "Turn", "NO_ACTION", "Unreadable", "advance_many", "self_corrections"]
