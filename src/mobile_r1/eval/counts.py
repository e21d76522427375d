"""What a run's episode records say beside the verdicts: episodes the phone failed, episodes cut off at the step
budget, and actions the safety gate refused. They explain a score the metrics alone do not.

    counts = run_counts(records)      # records: a run's episodes.jsonl lines (`eval.runner.load_run(..., infra=True)`)
    counts.notes()                    # ["1 of 2 episodes had a risky action refused by the safety gate: nobody ..."]

- infrastructure errors: episodes whose phone failed (a record with `infra_error`); left out of every metric.
- truncated: judged episodes that ended because they used the whole step budget (`truncated`), not because the
  agent finished: a low SR with many of them is an agent that wanders (or a budget too small), not one that fails.
- gate refusals: judged episodes in which the safety gate (`--confirm`, `env.safety`) refused at least one action.
  The agent's action never reached the phone, so the task could not be done as asked: with nobody at the terminal
  to approve it (`by: no-person`), an oracle that sends the message it was told to send fails its episode.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Iterable, Mapping


@dataclass(frozen=True, slots=True)
class RunCounts:
    """Counts over a run's episode records (each episode once: its last record)."""

    episodes: int = 0  # every episode, infrastructure failures included
    infra_errors: int = 0  # episodes whose phone failed (not judged)
    truncated: int = 0  # judged episodes that used the whole step budget
    gate_refused: int = 0  # judged episodes with at least one action the safety gate refused
    gate_refusals: int = 0  # refused actions, over all episodes
    unattended: int = 0  # of the refused actions, those refused because nobody was at the terminal

    @property
    def judged(self) -> int:
        return self.episodes - self.infra_errors

    def to_dict(self) -> dict[str, int]:
        return {**asdict(self), "judged": self.judged}

    def short(self) -> str:
        """The counts that are not zero in a few words (`2 truncated, 1 with a gate refusal`), or ""."""
        parts = [f"{self.truncated} truncated" if self.truncated else "",
                 f"{self.gate_refused} with a gate refusal" if self.gate_refused else "",
                 f"{self.infra_errors} infrastructure error{'s' * (self.infra_errors > 1)}" if self.infra_errors else ""]
        return ", ".join(p for p in parts if p)

    def notes(self) -> list[str]:
        """One sentence per count that is not zero, saying what it means for the figures and what to do."""
        out = []
        if self.gate_refused:
            nobody = (" with nobody at the terminal to approve them" if self.unattended == self.gate_refusals
                      else f" ({self.unattended} with nobody at the terminal)" if self.unattended else "")
            out.append(f"{self.gate_refused} of {self.judged} episodes had an action refused by the safety gate "
                       f"({self.gate_refusals} refused in all{nobody}): the action never reached the phone, so those "
                       "episodes could not be done as asked; answer the gate at a terminal (--env-option person=tty) "
                       "or switch it off on a phone you may change (--confirm none)")
        if self.truncated:
            out.append(f"{self.truncated} of {self.judged} episodes used the whole step budget without the agent "
                       "ending them (truncated)")
        if self.infra_errors:
            out.append(f"{self.infra_errors} of {self.episodes} episodes failed on the phone's side (infrastructure "
                       "errors, left out of every figure); run again with --resume to play them")
        return out


def _refusals(record: Mapping[str, Any]) -> tuple[int, int]:
    """(refused actions, of them refused for want of a person) in one episode record."""
    refused = unattended = 0
    steps = record.get("steps")
    for step in steps if isinstance(steps, list) else []:
        info = step.get("env_info") if isinstance(step, dict) else None
        gate = info.get("gate") if isinstance(info, dict) else None
        if isinstance(gate, dict) and gate.get("approved") is False:
            refused += 1
            unattended += gate.get("by") == "no-person"
    return refused, unattended


def run_counts(records: Iterable[Mapping[str, Any]]) -> RunCounts:
    """The counts of a run's episode records (one per episode; records of failed phones included)."""
    episodes = infra = truncated = refused_episodes = refused = unattended = 0
    for record in records:
        episodes += 1
        if record.get("infra_error") is not None:
            infra += 1
            continue
        truncated += record.get("truncated") is True
        r, u = _refusals(record)
        refused_episodes += r > 0
        refused, unattended = refused + r, unattended + u
    return RunCounts(episodes, infra, truncated, refused_episodes, refused, unattended)


__all__ = ["RunCounts", "run_counts"]
