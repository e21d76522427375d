"""Rescore judged runs: InquireMobile's released per-task judge files or our verdict/trajectory files -> SR and ISR.

InquireMobile's files are named `eval_<MODEL>_<lang>.jsonl`, one judge record per task:
`{"reason", "reward" (0..1, the 0-4 score / 4), "status" (success | failure), "inquiry" (success | failure)}`.
A status other than "success" (one released record says "failed") counts as not a success.
Our files hold one JSON per episode, either an `EpisodeVerdict` record or an episode record with a
`verdict` field holding one. Files are grouped per model (pooled over languages) and all together.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from mobile_r1.core.errors import DataError
from mobile_r1.core.reading import read_jsonl
from mobile_r1.eval.metrics import SCORE_MAX, EpisodeVerdict, Mean, Rate, mean_ci, wilson

JUDGE_KEYS = frozenset({"reward", "status", "inquiry"})
_RELEASED_NAME = re.compile(r"^eval_(?P<model>.+)_(?P<lang>[a-z]{2})$")


@dataclass(frozen=True, slots=True)
class Score:
    """SR, ISR and mean 0-4 score of a group of judged episodes."""

    name: str
    n: int
    sr: Rate
    isr: Rate
    mean_score: Mean
    files: tuple[str, ...] = ()

    @classmethod
    def of(cls, name: str, verdicts: list[EpisodeVerdict], files: Iterable[str] = ()) -> Score:
        n = len(verdicts)
        return cls(
            name=name,
            n=n,
            sr=wilson(sum(v.success for v in verdicts), n),
            isr=wilson(sum(v.inquiry_success for v in verdicts), n),
            mean_score=mean_ci((v.score for v in verdicts if v.score is not None), 0, SCORE_MAX),
            files=tuple(files),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "n": self.n,
            "sr": self.sr.value,
            "sr_ci": [self.sr.low, self.sr.high],
            "isr": self.isr.value,
            "isr_ci": [self.isr.low, self.isr.high],
            "mean_score": self.mean_score.value if self.mean_score.n else None,
            "files": list(self.files),
        }


@dataclass(frozen=True, slots=True)
class JudgedFile:
    """One file's verdicts, with the model and language read from its name when it follows `eval_<MODEL>_<lang>`."""

    path: Path
    model: str
    language: str | None
    verdicts: list[EpisodeVerdict]


@dataclass(frozen=True, slots=True)
class RescoreReport:
    """Scores per file, per model (languages pooled) and over every file."""

    files: list[Score] = field(default_factory=list)
    models: list[Score] = field(default_factory=list)
    pooled: Score | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": [s.to_dict() for s in self.files],
            "models": [s.to_dict() for s in self.models],
            "pooled": self.pooled.to_dict() if self.pooled else None,
        }


def verdict_from_judge(record: dict[str, Any], episode_id: str, language: str | None = None) -> EpisodeVerdict:
    """Turn one InquireMobile judge record into a verdict: inquiry success -> "asked", failure -> "missed".

    `reward` must be a number from 0 to 4 (the released files store the 0-4 score / 4, so a value up to 1 is scaled
    by 4) or null; `status` and `inquiry` must be text. Anything else (Infinity, -5, "high") is refused, naming the
    field, rather than clamped or dropped.
    """
    reward = record.get("reward")
    score = None
    if reward is not None:
        if isinstance(reward, bool) or not isinstance(reward, (int, float)) or not 0 <= reward <= 4:
            raise DataError(f"field 'reward': must be the judge's score, a number from 0 to 4 (or 0 to 1 as the "
                            f"released files store score / 4), or null; got {_show(reward)}")
        score = float(reward) * 4 if reward <= 1 else float(reward)
    for key in ("status", "inquiry"):
        if not isinstance(record.get(key), (str, type(None))):
            raise DataError(f"field '{key}': must be text (success or failure), got {_show(record.get(key))}")
    status = str(record.get("status") or "").strip().lower()
    inquiry = str(record.get("inquiry") or "").strip().lower()
    return EpisodeVerdict(
        episode_id=episode_id,
        success=status == "success",
        inquiry="asked" if inquiry == "success" else "missed",
        score=score,
        reason=str(record.get("reason") or ""),
        language=language,
    )


def load_judged_file(path: Path) -> JudgedFile:
    """Read one judge-record or verdict file (JSON lines); raises DataError naming the line on bad records."""
    path = Path(path)
    match = _RELEASED_NAME.match(path.stem)
    model = match["model"] if match else path.stem
    language = match["lang"] if match else None
    verdicts: list[EpisodeVerdict] = []
    for where, record in read_jsonl(path):
        number = where.line
        if not isinstance(record, dict):
            raise where.problem("expected a JSON object per line")
        episode_id = f"{path.stem}:{number}"
        try:
            if isinstance(record.get("verdict"), dict):
                data = {"episode_id": record.get("id", episode_id), **record["verdict"]}
                verdicts.append(EpisodeVerdict.from_dict(data))
            elif "episode_id" in record and "inquiry" in record and "success" in record:
                verdicts.append(EpisodeVerdict.from_dict(record))
            elif JUDGE_KEYS <= record.keys():
                verdicts.append(verdict_from_judge(record, episode_id, language))
            else:
                raise DataError(
                    "neither a judge record (reward, status, inquiry) nor a verdict (episode_id, success, inquiry)"
                )
        except DataError as exc:
            raise where.problem(str(exc)) from None
    if not verdicts:
        raise DataError(f"{path}: holds no judge record or verdict; nothing to rescore")
    return JudgedFile(path=path, model=model, language=language, verdicts=verdicts)


def _show(value: object) -> str:
    text = json.dumps(value) if isinstance(value, (str, int, float, list, dict)) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def expand_paths(paths: Iterable[Path]) -> list[Path]:
    """Files as given; folders replaced by their `*.jsonl` files, sorted."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(p.glob("*.jsonl"))
            if not found:
                raise DataError(f"{p} holds no .jsonl files")
            out.extend(found)
        elif p.exists():
            out.append(p)
        else:
            raise DataError(f"{p} does not exist; pass judge files (eval_<MODEL>_<lang>.jsonl) or folders of them")
    return out


def rescore(paths: Iterable[Path]) -> RescoreReport:
    """SR/ISR per file, per model (pooled over its languages, in first-seen order) and over all files."""
    files = [load_judged_file(p) for p in expand_paths(paths)]
    if not files:
        raise DataError("no files to rescore")
    per_model: dict[str, list[JudgedFile]] = {}
    for f in files:
        per_model.setdefault(f.model, []).append(f)
    return RescoreReport(
        files=[Score.of(f.path.name, f.verdicts, [str(f.path)]) for f in files],
        models=[
            Score.of(model, [v for f in group for v in f.verdicts], [str(f.path) for f in group])
            for model, group in per_model.items()
        ],
        pooled=Score.of("all", [v for f in files for v in f.verdicts], [str(f.path) for f in files]),
    )
