"""Released task lines (InquireBench's `tasks_*.jsonl`) matched to the task templates that play them.

A line is an instance of a template: a spec's test phrasing in the line's language, whose `{placeholders}` are the
line's values ("Open WeChat and transfer {amount} yuan to {contact}. ..." matches "... transfer 66.66 yuan to A Run.
..."). For a vague wish (category `intension`), the instruction is free text and the line's `intension` is matched to
the spec's `intent` phrasings instead. A line must match exactly one template (the most specific one, if several do),
in its own category; a line that matches none is refused with its file and line, never played and misjudged.

    lines = read_lines("tasks_en.jsonl")                 # ReleasedLine per line (file, number, the record)
    found = match_lines(lines, specs)                    # LineMatch per line, or a ConfigError listing what failed
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from mobile_r1.core.errors import ConfigError
from mobile_r1.core.formats.inquire import InquireTask, load_inquire_tasks
from mobile_r1.tasks.spec import SLOTS, TaskSpec, template_pieces

PACKAGED = Path(__file__).parent / "inquirebench"
# InquireBench calls the intention category "intension"; our taxonomy spells it "intention".
CATEGORY_OF = {"intension": "intention"}
MAX_LINES = 10_000


@dataclass(frozen=True)
class ReleasedLine:
    """One line of a released task file: where it is, and the task it states."""

    path: str
    number: int  # 1-based line number
    task: InquireTask

    @property
    def where(self) -> str:
        return f"{self.path}:{self.number}"

    @property
    def id(self) -> str:
        """`<file stem>-<index>` (`tasks_zh-007`), as device runs of the same file name their episodes."""
        return self.task.id

    @property
    def category(self) -> str:
        return CATEGORY_OF.get(self.task.category, self.task.category)

    @property
    def language(self) -> str:
        return "zh" if self.task.language.lower().startswith("zh") else "en"


@dataclass(frozen=True)
class LineMatch:
    """A line and the template that plays it: the spec, the phrasing's index, and the values read off the line."""

    line: ReleasedLine
    spec: TaskSpec
    template: int
    values: dict[str, str] = field(default_factory=dict)


def read_lines(path: str | Path) -> list[ReleasedLine]:
    """The lines of a released task file, each with its 1-based line number (errors name the file and the line)."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"no task file {path}")
    tasks = load_inquire_tasks(path)
    if len(tasks) > MAX_LINES:
        raise ConfigError(f"{path}: {len(tasks)} tasks; a task file holds at most {MAX_LINES}")
    numbers = _line_numbers(path)
    return [ReleasedLine(str(path), numbers[i] if i < len(numbers) else i + 1, t) for i, t in enumerate(tasks)]


def _line_numbers(path: Path) -> list[int]:
    with path.open("rb") as handle:
        return [n for n, raw in enumerate(handle, 1) if raw.strip()]


def packaged_files() -> list[Path]:
    """The released English and Chinese task files shipped with the package (the `inquirebench-sim` test split)."""
    return [PACKAGED / "tasks_en.jsonl", PACKAGED / "tasks_zh.jsonl"]


# ----- matching ----------------------------------------------------------------------------------------------------
_QUOTES = str.maketrans({"\u201c": "'", "\u201d": "'", "\u2018": "'", "\u2019": "'", '"': "'", "\u300c": "'",
                         "\u300d": "'", "\u300e": "'", "\u300f": "'"})


def normalize(text: str) -> str:
    """One character for one: full-width letters, digits and punctuation as ASCII (NFKC where it keeps the length),
    every kind of quote as `'`. Matching ignores case and the amount of white space."""
    out = []
    for ch in text.translate(_QUOTES):
        folded = unicodedata.normalize("NFKC", ch)
        out.append(folded if len(folded) == 1 else ch)
    return "".join(out)


@lru_cache(maxsize=4096)
def _pattern(template: str, slots: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    kinds = dict(slots)
    pieces = template_pieces(normalize(template).strip())
    if pieces and not pieces[-1][1]:  # the closing full stop is optional, as lines write it or not
        pieces[-1] = (pieces[-1][0].rstrip(".。!！ "), False)
    parts: list[str] = []
    seen: set[str] = set()
    for text, is_slot in pieces:
        if not is_slot:
            parts.append(r"\s*".join(re.escape(chunk) for chunk in re.split(r"\s+", text)))
        elif text in seen:
            parts.append(rf"\s*(?P={text})\s*")
        else:
            seen.add(text)
            parts.append(rf"\s*(?P<{text}>{SLOTS[kinds.get(text, 'text')]})\s*")
    return re.compile("".join(parts) + r"\s*[.。!！]?\s*", re.IGNORECASE | re.DOTALL)


def _slots(spec: TaskSpec) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((name, p.slot) for name, p in spec.params.items()))


def _literal_length(template: str) -> int:
    return sum(len(text) for text, is_slot in template_pieces(template) if not is_slot)


def match_phrasing(text: str, templates: list[str], spec: TaskSpec) -> tuple[int, dict[str, str]] | None:
    """(index, values) of the first of `templates` that `text` is an instance of, or None. Matching reads the
    normalised text; a `text` slot's value keeps the line's own characters (a Chinese post its full-width commas),
    the other kinds (numbers, phone numbers, words) are read normalised."""
    folded = normalize(text)  # one character for one, so positions in it are positions in `text`
    lead = len(folded) - len(folded.lstrip())
    clean = folded.strip()
    own = text[lead:lead + len(clean)]
    kinds = dict(_slots(spec))
    for index, template in enumerate(templates):
        found = _pattern(template, _slots(spec)).fullmatch(clean)
        if found is not None:
            return index, {k: (own if kinds.get(k, "text") == "text" else clean)[found.start(k):found.end(k)].strip()
                           for k in found.groupdict()}
    return None


def match_line(line: ReleasedLine, specs: list[TaskSpec]) -> LineMatch | None:
    """The template that plays `line` (the most specific, when several do), or None."""
    candidates: list[tuple[int, LineMatch]] = []
    lang = line.language
    for spec in specs:
        if spec.category != line.category or lang not in spec.languages:
            continue
        phrasings = spec.templates_for(lang)
        hit = match_phrasing(line.task.instruction, phrasings.test, spec)
        if hit is None:
            continue
        index, values = hit
        specificity = _literal_length(phrasings.test[index])
        intents = spec.intents_for(lang)
        if intents:
            wish = match_phrasing(line.task.intent, intents, spec)
            if wish is None:
                continue
            values.update(wish[1])
            specificity += _literal_length(intents[wish[0]])
        elif line.task.intent.strip() != line.task.instruction.strip():
            continue  # the line states a wish this template does not know
        candidates.append((specificity, LineMatch(line, spec, index, values)))
    if not candidates:
        return None
    candidates.sort(key=lambda c: (-c[0], c[1].spec.id))
    return candidates[0][1]


def playable_lines(lines: list[ReleasedLine], specs: list[TaskSpec]) -> tuple[list[LineMatch], list[ReleasedLine]]:
    """The lines a template plays (with their matches) and the lines none does yet. The packaged suite's test split is
    the first list (a line no template plays is left out, never misjudged); a user's file is checked whole by
    `match_lines`."""
    played: list[LineMatch] = []
    unplayed: list[ReleasedLine] = []
    for line in lines:
        found = match_line(line, specs)
        if found is None:
            unplayed.append(line)
        else:
            played.append(found)
    return played, unplayed


def match_lines(lines: list[ReleasedLine], specs: list[TaskSpec]) -> list[LineMatch]:
    """Every line's template; a ConfigError names each line no template plays (up to ten), before anything runs."""
    out, unplayed = playable_lines(lines, specs)
    missing = [f"{line.where}: no task template plays {line.task.instruction[:80]!r}"
               f"{'...' if len(line.task.instruction) > 80 else ''} ({line.task.category}, {line.language})"
               for line in unplayed]
    if missing:
        more = f"\n... and {len(missing) - 10} more" if len(missing) > 10 else ""
        raise ConfigError("the simulated phone cannot play these task lines (they match no task template; see "
                          "`mobile-r1 sim tasks --suite inquirebench-sim` for the phrasings it knows):\n"
                          + "\n".join(missing[:10]) + more)
    return out


def line_record(line: ReleasedLine) -> dict[str, Any]:
    """The line as the release wrote it (for an episode's `meta`), with where it came from."""
    return {**line.task.to_dict(), "file": line.path, "line": line.number, "id": line.id}


__all__ = ["ReleasedLine", "LineMatch", "read_lines", "packaged_files", "match_line", "match_lines", "match_phrasing",
           "normalize", "line_record", "CATEGORY_OF"]
