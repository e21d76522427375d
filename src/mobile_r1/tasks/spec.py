"""Declarative task specs: the YAML schema (pydantic), the loader with file + field errors, and template filling."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from mobile_r1.core.errors import ConfigError
from mobile_r1.core.reading import read_yaml

SPECS_DIR = Path(__file__).parent / "specs"
# The phone today's suites (inquire-sim, nav-sim) play on: the twelve apps they were written for. A spec that names no
# `phone` gets exactly these, so that apps added to the simulator never change those suites' screens.
CLASSIC_PHONE: tuple[str, ...] = ("Calendar", "Chat", "Contacts", "Food", "Gallery", "Maps", "Notes", "Settings", "Shop",
                                  "Social", "Video", "Wallet")
CATEGORIES = ("risk", "privacy", "intention", "uncertainty", "combination", "control", "navigation")
LANGUAGES = ("en", "zh")
REPLIES = ("confirm", "decline", "clarify", "login", "supply")
MAX_ID = 100  # characters of a task id (it names folders and files of a run)
MAX_SPEC_BYTES = 2**20  # a spec file (the packaged ones hold about 1 KB)
_PLACEHOLDER = re.compile(r"\{([a-zA-Z_][a-zA-Z0-9_]*)\}")


_KINDS = ("state", "effect", "no_effect", "answer_contains", "answer_mentions", "screen")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Condition(_Model):
    """One typed condition over the phone. Exactly one of `state`, `effect`, `no_effect`, `answer_contains`,
    `answer_mentions`, `screen`.

    state            a path into app state (`shop.cart[*].product`, `notes.notes[title={title}].pinned`) with one
                     test: `equals`, `contains`, `not_contains`, `absent: true` or `count`
    effect           an effect kind that must have happened, detail matching `where` (a subset; strings ignore case)
    no_effect        an effect kind that must not have happened (optionally only those matching `where`)
    answer_contains  the agent's `answer` text must contain this (case-insensitive)
    answer_mentions  a state path: the agent's `answer` must contain one of the values it reaches (a recommendation
                     of any of the latest posts, a summary naming the recipe)
    screen           the foreground activity (`shop/product`), with `params` matching the screen's push params
    """

    state: str | None = None
    equals: Any = None
    contains: Any = None
    not_contains: Any = None
    absent: bool | None = None
    count: int | None = None
    effect: str | None = None
    no_effect: str | None = None
    where: dict[str, Any] = Field(default_factory=dict)
    answer_contains: str | None = None
    answer_mentions: str | None = None
    screen: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    hint: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one_kind(self) -> Condition:
        kinds = [k for k in _KINDS if getattr(self, k) is not None]
        if len(kinds) != 1:
            raise ValueError("a condition needs exactly one of state, effect, no_effect, answer_contains, answer_mentions, screen; "
                             f"got {kinds or 'none'}")
        if self.state is not None:
            tests = [k for k in ("equals", "contains", "not_contains", "absent", "count") if getattr(self, k) is not None]
            if len(tests) != 1:
                raise ValueError(f"a state condition needs exactly one of equals, contains, not_contains, absent, count; got {tests or 'none'}")
        return self

    @property
    def kind(self) -> str:
        return next(k for k in _KINDS if getattr(self, k) is not None)


SLOTS: dict[str, str] = {
    "text": r".+?",
    "number": r"[0-9]+(?:\.[0-9]+)?",
    "phone": r"\+?[0-9][0-9\- ]*[0-9]",
    "word": r"[^\s,.，。、；;:：!！?？]+?",
}


class Param(_Model):
    """How one template parameter is drawn from the seeded phone. Exactly one source.

    pick    a state path giving a list; one element is drawn (with `where` filters already in the path)
    choice  a literal list to draw from (`choice_zh`: the list a Chinese episode draws from, when it differs)
    value   a fixed value (may use earlier params: `"{product}"`)
    lookup  a state path evaluated after the earlier params are known (`shop.products[name={product}].id`)
    number  [low, high] integers drawn uniformly
    numeral the whole number an earlier parameter writes in words or digits (`"{minutes}"`: 'four', '四', 'third',
            '第三' give 4, 4, 3, 3), for a value a line says in words that a goal or a typed field needs as a number
    slot    what the parameter's text looks like in a released task line (InquireBench): text (default),
            number, phone, word; a line's value replaces the drawn one
    """

    pick: str | None = None
    choice: list[Any] | None = None
    choice_zh: list[Any] | None = None
    value: Any = None
    lookup: str | None = None
    number: tuple[int, int] | None = None
    numeral: str | None = None
    hidden: bool = False
    slot: str = "text"

    @field_validator("slot")
    @classmethod
    def _slot(cls, value: str) -> str:
        if value not in SLOTS:
            raise ValueError(f"slot must be one of {', '.join(SLOTS)}")
        return value

    @model_validator(mode="after")
    def _one_source(self) -> Param:
        kinds = [k for k in ("pick", "choice", "value", "lookup", "number", "numeral") if getattr(self, k) is not None]
        if len(kinds) != 1:
            raise ValueError("a parameter needs exactly one of pick, choice, value, lookup, number, numeral; "
                             f"got {kinds or 'none'}")
        return self


class Patch(_Model):
    """A change to the starting state: `set` a path to `value`, `append` `value` to the list at a path, or `setup`: call
    the app's set-up hook `setup_<name>(ctx, **with)` (`app` names the app; e.g. a contact called "{contact}")."""

    set: str | None = None
    append: str | None = None
    value: Any = None
    setup: str | None = None
    app: str | None = None
    with_: dict[str, Any] = Field(default_factory=dict, alias="with")

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    @model_validator(mode="after")
    def _one_op(self) -> Patch:
        ops = [k for k in ("set", "append", "setup") if getattr(self, k) is not None]
        if len(ops) != 1:
            raise ValueError("a patch needs exactly one of set, append (with value), setup (with app)")
        if self.setup is not None and not self.app:
            raise ValueError("a setup patch needs `app` (the app whose setup_<name> hook to call)")
        return self


class Inquiry(_Model):
    """One moment where the agent must ask the user, and how the simulated user answers.

    reply     confirm | decline (the right outcome is then to stop, with no such effect) | clarify (names the
              hidden intent) | login (the user logs `app` in; state changes) | supply (gives `value`)
    effect    the irreversible effect kind the question must come before (with `where` on its detail)
    at_start  the question must come within the first `within` actions (a vague intent)
    screen    where the question belongs (an activity such as `shop/login`, or a prefix such as `shop/` for any of
              its screens): the question becomes necessary when the phone first shows it (before that, asking is
              early), and the expert asks there once it has reached `after` milestones. Without a screen the
              question is necessary from the first step.
    text      the user's reply (template); a sensible default per reply kind when empty (`text_zh`: in Chinese)
    reached   for the judge only: a screen (or `app/` prefix) the agent must have reached before the question counts —
              a declined payment is asked about at checkout, not before anything was chosen (a question before it is
              early; for a `decline` the task then fails, as stopping before the decision decides nothing)
    """

    reply: Literal["confirm", "decline", "clarify", "login", "supply"]
    effect: str | None = None
    where: dict[str, Any] = Field(default_factory=dict)
    at_start: bool = False
    within: int = 3
    screen: str | None = None
    after: int = 0
    text: str = ""
    text_zh: str = ""
    app: str | None = None
    value: str | None = None
    question: str = ""
    question_zh: str = ""
    reached: str | None = None

    @model_validator(mode="after")
    def _check(self) -> Inquiry:
        if self.reply == "login" and not self.app:
            raise ValueError("a login inquiry needs `app` (the app the user logs in)")
        if self.reply == "supply" and self.value is None:
            raise ValueError("a supply inquiry needs `value` (what the user supplies)")
        if self.reply == "decline" and not self.effect:
            raise ValueError("a decline inquiry needs `effect` (the effect that must then not happen)")
        return self


class Templates(_Model):
    """Instruction phrasings; train and test never share one."""

    train: list[str] = Field(min_length=1)
    test: list[str] = Field(min_length=1)

    @model_validator(mode="after")
    def _disjoint(self) -> Templates:
        shared = set(self.train) & set(self.test)
        if shared:
            raise ValueError(f"train and test templates must be disjoint; both have {_quoted(sorted(shared)[0])!r}")
        return self


class TaskSpec(_Model):
    """One task family, loaded from a YAML file under `tasks/specs/` (see docs/tasks.md).

    templates, templates_zh   the English and the Chinese phrasings (a spec has one or both)
    intent, intent_zh         for a vague wish (InquireBench's intension tasks): what the user means, phrased as a
                              released line's `intension` is; the simulated user says it when asked
    login                     the app a released line's `need_login` logs out (a login question comes first); a
                              generated episode is logged out with chance `login_rate`
    suite                     the suite the spec belongs to (None: today's suites, chosen by category)
    phone                     the apps on the episode's phone: a list, `classic` (the default: the twelve apps of
                              today's suites) or `inquirebench` (the apps InquireBench names, and the system apps)
    """

    id: str = Field(min_length=1, max_length=MAX_ID)
    apps: list[str] = Field(min_length=1)
    category: str
    subcategory: str
    description: str = ""
    start_app: str | None = None
    params: dict[str, Param] = Field(default_factory=dict)
    templates: Templates | None = None
    templates_zh: Templates | None = None
    intent: list[str] = Field(default_factory=list)
    intent_zh: list[str] = Field(default_factory=list)
    login: str | None = None
    login_rate: float = Field(default=0.5, ge=0.0, le=1.0)
    suite: str | None = None
    setup: list[Patch] = Field(default_factory=list)
    goal: list[Condition] = Field(min_length=1)
    milestones: list[Condition] = Field(default_factory=list)
    answer: str | None = None
    inquiries: list[Inquiry] = Field(default_factory=list)
    max_steps: int = Field(default=15, ge=1, le=60)
    phone: list[str] | Literal["classic", "inquirebench"] | None = None
    source: str = ""

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not re.fullmatch(r"[a-z0-9_.\-]+", value):
            raise ValueError("ids use lower-case letters, digits, '_', '.' and '-'")
        return value

    @field_validator("category")
    @classmethod
    def _category(cls, value: str) -> str:
        if value not in CATEGORIES:
            raise ValueError(f"category must be one of {', '.join(CATEGORIES)}")
        return value

    @model_validator(mode="after")
    def _placeholders(self) -> TaskSpec:
        names = set(self.params)
        if self.templates is None and self.templates_zh is None:
            raise ValueError("a spec needs `templates` (English), `templates_zh` (Chinese) or both")
        for field_name in ("templates", "templates_zh"):
            group = getattr(self, field_name)
            for split, items in (("train", group.train), ("test", group.test)) if group is not None else ():
                for t in items:
                    missing = set(_PLACEHOLDER.findall(t)) - names
                    if missing:
                        raise ValueError(f"{field_name}.{split}: {_quoted(t)!r} uses undefined parameter "
                                         f"{_quoted(sorted(missing)[0])!r}")
        for field_name in ("intent", "intent_zh"):
            for t in getattr(self, field_name):
                missing = set(_PLACEHOLDER.findall(t)) - names
                if missing:
                    raise ValueError(f"{field_name}: {_quoted(t)!r} uses undefined parameter "
                                     f"{_quoted(sorted(missing)[0])!r}")
        if self.category != "navigation":
            from mobile_r1.tasks.taxonomy import CONTROL, SUBCATEGORIES

            known = {sub.name: sub.category for sub in (*SUBCATEGORIES, CONTROL)}
            if self.subcategory not in known:
                raise ValueError(f"subcategory {_quoted(self.subcategory)!r} is not one of the sub-categories (see "
                                 "docs/tasks.md) or 'control'")
            if known[self.subcategory] != self.category:
                raise ValueError(f"subcategory {self.subcategory!r} belongs to category {known[self.subcategory]!r}")
        if self.category == "control" and self.inquiries:
            raise ValueError("a control task needs no inquiry; remove `inquiries` or change the category")
        if self.category not in ("control", "navigation") and not self.inquiries:
            raise ValueError(f"a {self.category} task needs at least one entry in `inquiries`")
        return self

    @property
    def languages(self) -> tuple[str, ...]:
        """The languages the spec has phrasings in."""
        return tuple(lang for lang, t in (("en", self.templates), ("zh", self.templates_zh)) if t is not None)

    def templates_for(self, language: str = "en") -> Templates:
        """The phrasings in `language` (an error naming the spec when it has none)."""
        found = self.templates if language == "en" else self.templates_zh if language == "zh" else None
        if found is None:
            raise ConfigError(f"{self.source or self.id}: the task has no phrasings in {language!r} "
                       f"(it has {', '.join(self.languages)})")
        return found

    def intents_for(self, language: str = "en") -> list[str]:
        return self.intent if language == "en" else self.intent_zh

    @property
    def phone_apps(self) -> tuple[str, ...]:
        """The apps installed on the episode's phone when the spec lists them (`phone: [...]`), else the classic
        twelve. A named phone (`inquirebench`: every app but the classic twelve) is expanded by the simulator, which
        knows its apps (`mobile_r1.env.sim.episode.phone_apps`)."""
        if isinstance(self.phone, list):
            return tuple(self.phone)
        return CLASSIC_PHONE

    @property
    def needs_inquiry(self) -> bool:
        return bool(self.inquiries)

    @property
    def plan(self) -> list[Condition]:
        """What the expert walks through: the milestones, then the goal's positive conditions."""
        out = list(self.milestones)
        if not any(i.reply == "decline" for i in self.inquiries):
            out += [c for c in self.goal if c.kind in ("state", "effect", "screen")]
        return out


def on_screen(activity: str, screen: str) -> bool:
    """Whether `activity` (`app/screen`) is `screen`, or one of its screens when `screen` ends with a slash."""
    return activity.startswith(screen) if screen.endswith("/") else activity == screen


def template_pieces(template: str) -> list[tuple[str, bool]]:
    """A template cut into its literal text and its `{name}` placeholders, in order: (text, is_placeholder), where a
    placeholder's text is its name. `fill` of the pieces put back together gives the filled template."""
    pieces: list[tuple[str, bool]] = []
    last = 0
    for m in _PLACEHOLDER.finditer(template):
        if m.start() > last:
            pieces.append((template[last : m.start()], False))
        pieces.append((m.group(1), True))
        last = m.end()
    if last < len(template):
        pieces.append((template[last:], False))
    return pieces


def fill(value: Any, params: dict[str, Any]) -> Any:
    """Substitute `{name}` placeholders: a string that is exactly one placeholder keeps the parameter's type."""
    if isinstance(value, str):
        whole = _PLACEHOLDER.fullmatch(value)
        if whole and whole.group(1) in params:
            return params[whole.group(1)]
        return _PLACEHOLDER.sub(lambda m: str(params.get(m.group(1), m.group(0))), value)
    if isinstance(value, list):
        return [fill(v, params) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, params) for k, v in value.items()}
    return value


def _where(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        loc = _quoted(".".join(str(p) for p in err["loc"]) or "(top level)", 100)
        parts.append(f"{loc}: {_quoted(err['msg'], 300)}")
    return "; ".join(parts)


def _quoted(text: str, most: int = 80) -> str:
    """`text` as an error message quotes it: whole when short, else its start and its length."""
    return text if len(text) <= most else f"{text[:most - 20]}... ({len(text):,} characters)"


def load_spec(path: str | Path) -> TaskSpec:
    """Read and validate one spec file; errors name the file and the field. The file is read by the project's reader
    (`core.reading.read_yaml`: a regular file of UTF-8, values 64 levels deep, aliases expanding to at most a million
    values, finite numbers) and holds at most `MAX_SPEC_BYTES`, so a hostile file is a message, never a hang or a
    traceback."""
    path = Path(path)
    data = read_yaml(path, kind=ConfigError, max_bytes=MAX_SPEC_BYTES)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a task spec is a YAML mapping with id, apps, category, templates, goal ...")
    try:
        spec = TaskSpec.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{path}: {_where(exc)}") from None
    return spec.model_copy(update={"source": str(path)})


def load_task_specs(folder: str | Path | None = None, only: bool = False) -> list[TaskSpec]:
    """The task specs a run uses: the packaged ones plus every `*.yaml` under the user's `folder` (with `only`, the
    folder's alone), sorted by id; an id used twice is an error naming both files."""
    if folder is None:
        if only:
            raise ConfigError("specs_only needs a folder of task specs (--specs DIR)")
        return load_specs()
    own = load_specs(folder)
    if only:
        return own
    packaged = {s.id: s for s in load_specs()}
    for spec in own:
        if spec.id in packaged:
            raise ConfigError(f"{spec.source}: task id {spec.id!r} is already used by the packaged {packaged[spec.id].source}; "
                              "choose another id (or --specs-only to use your folder alone)")
    return sorted([*packaged.values(), *own], key=lambda s: s.id)


def load_specs(folder: str | Path | None = None) -> list[TaskSpec]:
    """Every `*.yaml` spec under `folder` (default: the packaged specs), sorted by id; ids must be unique."""
    root = Path(folder) if folder is not None else SPECS_DIR
    if not root.is_dir():
        raise ConfigError(f"{root}: no such folder of task specs")
    specs: dict[str, TaskSpec] = {}
    for path in sorted(root.rglob("*.yaml")):
        spec = load_spec(path)
        if spec.id in specs:
            raise ConfigError(f"{path}: task id {spec.id!r} is already used by {specs[spec.id].source}")
        specs[spec.id] = spec
    return [specs[k] for k in sorted(specs)]
