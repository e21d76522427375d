"""The person in the loop: the owner of a phone, at the terminal, who approves risky actions, answers the agent's
questions and can judge an episode.

    person = make_person("auto")        # a TtyPerson when standard input is a terminal, else NoPerson
    person.consent(request)             # Consent(approved, reply): may the agent do this (a payment, a deletion...)?
    person.answer(question, episode)    # the user's reply to `call_user`
    person.verdict(episode, summary)    # PersonVerdict, or None when nobody can judge

`NoPerson` stands in when nobody is there (no TTY, CI, worker processes): it refuses every action it is asked
about, never approves one, and answers `call_user` with the fixed reply `NO_PERSON_REPLY` (the agent learns that
nobody will answer and must decide without; an error would end the episode instead of letting the agent carry on
safely). It gives no verdict.
"""

from __future__ import annotations

import sys
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TextIO

from mobile_r1.core.errors import ConfigError
from mobile_r1.env.protocol import EpisodeRef

NO_PERSON_REPLY = "No person is available to answer. Do not wait for an answer: decide without asking, and do nothing risky."
PERSONS = ("auto", "tty", "none")


@dataclass(frozen=True, slots=True)
class ConsentRequest:
    """What the safety gate asks the person: the action in words, its class, and the evidence for the class."""

    episode: EpisodeRef
    step: int
    action: str
    action_class: str
    evidence: str = ""
    screen: str = ""


@dataclass(frozen=True, slots=True)
class Consent:
    """The person's decision; `reply` (when refused) goes back to the agent as the user's words."""

    approved: bool
    reply: str = ""
    by: str = "person"


@dataclass(frozen=True, slots=True)
class PersonVerdict:
    """A person's judgement of an episode."""

    success: bool
    asked_well: bool | None = None  # whether the agent asked at the right moments (None: not said)
    score: float | None = None
    reason: str = ""


@dataclass(slots=True)
class Exchange:
    """One thing the person was asked and what they said (kept for the record)."""

    kind: str  # consent | answer | verdict
    prompt: str
    reply: str
    extra: dict[str, str] = field(default_factory=dict)


class Person(ABC):
    """Someone (or no one) the phone's owner can be."""

    name = "person"
    present = True

    @abstractmethod
    def consent(self, request: ConsentRequest) -> Consent:
        """May the agent do this?"""

    @abstractmethod
    def answer(self, question: str, episode: EpisodeRef) -> str:
        """The user's reply to the agent's question."""

    def verdict(self, episode: EpisodeRef, summary: str) -> PersonVerdict | None:
        """The person's judgement of the episode (None: they give none)."""
        return None

    def tell(self, text: str) -> None:
        """Show the person something (nothing, where nobody is there)."""


class NoPerson(Person):
    """Nobody at the terminal: refuses every risky action, never approves, answers questions with NO_PERSON_REPLY."""

    name = "none"
    present = False

    def consent(self, request: ConsentRequest) -> Consent:
        return Consent(False, f"No person is at the terminal to approve this {request.action_class.replace('_', ' ')}; "
                              "it was not done. Do not try it again.", by="no-person")

    def answer(self, question: str, episode: EpisodeRef) -> str:
        return NO_PERSON_REPLY


class TtyPerson(Person):
    """The person at the terminal: prompts on `output` (standard error), reads answers from `input` (standard
    input). An empty answer to a consent question refuses: approving needs a 'y'."""

    name = "tty"

    def __init__(self, input: TextIO | None = None, output: TextIO | None = None) -> None:
        self.input = input or sys.stdin
        self.output = output or sys.stderr
        self.log: list[Exchange] = []

    def _ask(self, prompt: str) -> str:
        self.output.write(prompt)
        self.output.flush()
        line = self.input.readline()
        if not line:
            raise ConfigError("the terminal closed while the person was being asked; nobody can approve or answer")
        return line.strip()

    def tell(self, text: str) -> None:
        self.output.write(text + "\n")
        self.output.flush()

    def consent(self, request: ConsentRequest) -> Consent:
        lines = [f"\n[{request.episode.id} step {request.step}] the agent wants to: {request.action}",
                 f"  this looks like: {request.action_class.replace('_', ' ')}" + (f" ({request.evidence})" if request.evidence else "")]
        if request.screen:
            lines.append(f"  on screen: {request.screen[:300]}")
        self.tell("\n".join(lines))
        reply = self._ask("  allow it? [y/N, or type a reply to the agent]: ")
        self.log.append(Exchange("consent", request.action, reply))
        if reply.lower() in ("y", "yes", "ok", "allow", "是", "好", "允许"):
            return Consent(True)
        if reply.lower() in ("", "n", "no", "否", "不"):
            return Consent(False, f"No, I do not allow that ({request.action_class.replace('_', ' ')}). Do not do it.")
        return Consent(False, reply)

    def answer(self, question: str, episode: EpisodeRef) -> str:
        self.tell(f"\n[{episode.id}] the agent asks: {question}")
        reply = self._ask("  your answer: ")
        self.log.append(Exchange("answer", question, reply))
        return reply or "(no answer)"

    def verdict(self, episode: EpisodeRef, summary: str) -> PersonVerdict | None:
        self.tell(f"\n[{episode.id}] the episode has ended. Task: {episode.instruction}\n{summary}")
        success = self._yes_no("  did the agent complete the task? [y/n]: ")
        asked = self._yes_no("  did it ask you when it should have (and not otherwise)? [y/n]: ")
        score_text = self._ask("  score 0-4 (empty: none): ")
        score = None
        if score_text:
            try:
                score = float(score_text)
            except ValueError:
                score = None
            if score is not None and not 0 <= score <= 4:
                score = None
        reason = self._ask("  a note for the record (optional): ")
        self.log.append(Exchange("verdict", episode.id, f"success={success} asked={asked} score={score} {reason}"))
        return PersonVerdict(success, asked, score, reason or "judged by the person at the terminal")

    def _yes_no(self, prompt: str) -> bool:
        while True:
            reply = self._ask(prompt).lower()
            if reply in ("y", "yes", "是"):
                return True
            if reply in ("n", "no", "否"):
                return False


def make_person(kind: str = "auto") -> Person:
    """`tty` (the terminal; an error when standard input is not one), `none`, or `auto` (tty when there is one)."""
    kind = (kind or "auto").strip().lower()
    if kind not in PERSONS:
        raise ConfigError(f"person must be one of {', '.join(PERSONS)}; got {kind!r}")
    interactive = sys.stdin is not None and sys.stdin.isatty()
    if kind == "tty" and not interactive:
        raise ConfigError("person=tty needs a terminal on standard input; run in a terminal, or use person=none "
                          "(risky actions are then refused)")
    if kind == "none" or (kind == "auto" and not interactive):
        return NoPerson()
    return TtyPerson()


__all__ = ["Person", "NoPerson", "TtyPerson", "Consent", "ConsentRequest", "PersonVerdict", "make_person",
           "NO_PERSON_REPLY", "PERSONS"]
