"""Offline step evaluation: an agent predicts each labelled step from its screen and the labelled history; a matcher scores it.

    result = evaluate_offline(agent, episodes, get_matcher("qwen-ac"))
    result.report          # Type, Grounding, Step SR, per-type breakdown, inquiry P/R/F1 (core.matching.MetricsReport)
    result.steps           # one StepResult per labelled step

The history given to the agent is the labelled one (the usual offline protocol of AndroidControl / Mobile-R1 step
evaluation), so one wrong prediction does not spoil the steps after it. Episodes whose coordinates are in a model
frame (InquireMobile SFT records) are scored in that frame: the model image is the screen.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from PIL import Image

from mobile_r1.agents import Agent, AgentOutput, AgentRequest
from mobile_r1.core.errors import DataError
from mobile_r1.core.matching import Matcher, MetricsReport, StepMatch, StepMetrics
from mobile_r1.core.records import Episode, Observation, Step


@dataclass(slots=True)
class StepResult:
    """One labelled step: what the agent said, what it should have done, and how they matched."""

    episode_id: str
    step: int
    label: dict[str, Any]
    pred: dict[str, Any] | None
    model_text: str
    match: StepMatch
    bbox: list[float] | None
    screen_size: tuple[int, int]

    def to_dict(self) -> dict[str, Any]:
        return {"episode_id": self.episode_id, "step": self.step, "label": self.label, "pred": self.pred,
                "model_text": self.model_text, **self.match.to_dict(), "bbox": self.bbox,
                "screen_size": list(self.screen_size)}


@dataclass(slots=True)
class OfflineResult:
    """The report (naming its matcher) and the per-step results."""

    report: MetricsReport
    steps: list[StepResult]


def _screen_size(episode: Episode, step: Step, image_root: Path | None) -> tuple[int, int] | None:
    if episode.frame == "model" and episode.model_size:
        return (int(episode.model_size[0]), int(episode.model_size[1]))
    if episode.frame == "model" and step.observation is not None and step.observation.screenshot_path:
        path = Path(step.observation.screenshot_path)
        path = path if path.exists() or image_root is None else image_root / path
        if path.exists():  # coordinates refer to the image the model saw
            with Image.open(path) as image:
                return image.size
    if step.observation is not None and episode.frame != "model":
        return step.observation.screen_size
    return episode.screen_size


def _observation(episode: Episode, step: Step, size: tuple[int, int], image_root: Path | None) -> Observation:
    obs = replace(step.observation) if step.observation is not None else Observation(screen_size=size)
    obs.screen_size = size
    if obs.screenshot is None and obs.screenshot_path:
        path = Path(obs.screenshot_path)
        if not path.is_absolute() and image_root is not None and not path.exists():
            path = image_root / path
        if path.exists():
            with Image.open(path) as image:
                obs.screenshot = image.convert("RGB")
                if episode.frame == "model" and obs.screenshot.size != size:
                    obs.screenshot = obs.screenshot.resize(size)
    return obs


def labelled_requests(episodes: Iterable[Episode], image_root: Path | None = None, limit: int | None = None,
                      screen_size: tuple[int, int] | None = None) -> Iterable[tuple[AgentRequest, Step, tuple[int, int]]]:
    """(request, labelled step, screen size) for every labelled step, at most `limit` of them.

    `screen_size` is used for records that give no size (InquireMobile SFT records without their images).
    """
    count = 0
    for episode in episodes:
        history: list[Step] = []
        for index, step in enumerate(episode.steps):
            if limit is not None and count >= limit:
                return
            size = _screen_size(episode, step, image_root) or screen_size
            if size is None:
                raise DataError(f"episode {episode.id!r} step {index}: no screen size in the record and its image is "
                                "missing; pass --screen-size W,H (the size of the image the coordinates refer to)")
            obs = _observation(episode, step, size, image_root)
            yield AgentRequest(episode.instruction, obs, list(history), episode_id=episode.id), step, size
            history.append(replace(step, observation=obs))
            count += 1


def evaluate_offline(
    agent: Agent,
    episodes: Sequence[Episode],
    matcher: Matcher,
    *,
    image_root: Path | None = None,
    limit: int | None = None,
    batch_size: int = 8,
    screen_size: tuple[int, int] | None = None,
    progress: Callable[[int], None] | None = None,
) -> OfflineResult:
    """Predict and score every labelled step (`batch_size` requests per `act_batch` call)."""
    metrics = StepMetrics(matcher.name)
    results: list[StepResult] = []
    items = list(labelled_requests(episodes, image_root, limit, screen_size))
    if not items:
        raise DataError("no labelled steps to evaluate; check --data and --limit")
    for start in range(0, len(items), batch_size):
        chunk = items[start : start + batch_size]
        outputs: list[AgentOutput] = agent.act_batch([r for r, _, _ in chunk])
        for (request, step, size), output in zip(chunk, outputs):
            match = matcher.match(output.action, step.action, step.bbox, size)
            metrics.add(match, output.action, step.action)
            results.append(StepResult(
                episode_id=request.episode_id or "", step=len(request.history), label=step.action.to_arguments(),
                pred=output.action.to_arguments() if output.action is not None else None, model_text=output.text,
                match=match, bbox=list(step.bbox) if step.bbox is not None else None, screen_size=size))
        if progress:
            progress(len(chunk))
    return OfflineResult(metrics.report(), results)


def write_step_results(path: Path, result: OfflineResult) -> None:
    """Per-step results as JSON lines, then one {"summary": ...} line."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for s in result.steps:
            f.write(json.dumps(s.to_dict(), ensure_ascii=False) + "\n")
        f.write(json.dumps({"summary": result.report.to_dict()}, ensure_ascii=False) + "\n")


__all__ = ["StepResult", "OfflineResult", "evaluate_offline", "labelled_requests", "write_step_results"]
