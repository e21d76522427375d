"""Exporters: one training sample per step, rendered through a dialect, for LLaMA-Factory and TRL.

    from mobile_r1.core.dialects import get_dialect
    export_sharegpt(episodes, get_dialect("inquire"), "sft.jsonl", image_root="data/images")
    export_trl(episodes, get_dialect("mobile-r1"), "trl.jsonl", style="prompt-completion")

Each step becomes a prompt (`dialect.build_messages` with the steps before it as history) and a target
(`dialect.render(action, thought, description)`). Coordinates are moved into the frame the model sees first:
a "screen" episode uses its `model_size` (or Qwen2.5-VL `smart_resize` of the screen when it has none); a
"model" episode is already there. Screenshot paths are made absolute against `image_root` when relative.

- LLaMA-Factory ShareGPT (its `data/README.md`, "sharegpt" formatting with OpenAI-style tags):
  `{"messages": [{"role": "system" | "user" | "assistant", "content": str}], "images": [path, ...]}`, one
  `<image>` token in the text per entry of `images`, in order. `llamafactory_dataset_info` gives the entry
  for `dataset_info.json`.
- TRL conversational rows: `{"prompt": [messages], "completion": [{"role": "assistant", "content": str}],
  "images": [...]}` (style "prompt-completion") or `{"messages": [...], "images": [...]}` (style "messages");
  image placeholders stay `{"type": "image"}` items of the content lists, as TRL's vision trainers expect.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Iterator, Literal, Sequence

from mobile_r1.core.errors import ActionError, ConfigError, DataError
from mobile_r1.core.geometry import Frame
from mobile_r1.core.records import Episode, Step

IMAGE_TOKEN = "<image>"
Message = dict[str, Any]


@dataclass(frozen=True, slots=True)
class StepSample:
    """One step as a training sample: the prompt messages, the target text and the screenshots, in order."""

    prompt: list[Message]
    completion: str
    images: list[str]
    episode_id: str
    step: int


def model_frame_of(episode: Episode, screen_size: tuple[int, int] | None) -> tuple[Frame | None, Frame | None]:
    """(screen frame, model frame) of an episode's steps; the screen frame is None for "model" episodes."""
    model = Frame(*episode.model_size) if episode.model_size else None
    if episode.frame == "model":
        return None, model
    size = episode.screen_size or screen_size
    if size is None:
        return None, model
    screen = Frame.screen(*size)
    return screen, model or Frame.qwen(*size)


def _to_model(step: Step, screen: Frame | None, model: Frame | None) -> Step:
    if screen is None or model is None:
        return step
    return replace(step, action=step.action.map_points(lambda p: screen.map(p, model)))


def _image_path(path: str | None, image_root: Path | None, where: str) -> str:
    if not path:
        raise DataError(f"{where}: the step has no screenshot; export with observation_mode='text' or add screenshots")
    p = Path(path)
    if not p.is_absolute() and image_root is not None:
        p = image_root / p
    return str(p)


def step_samples(
    episodes: Iterable[Episode],
    dialect: Any,
    *,
    observation_mode: Literal["image", "text"] = "image",
    history_window: int | None = None,
    image_root: str | Path | None = None,
) -> Iterator[StepSample]:
    """Every step of every episode as a `StepSample` rendered by `dialect` (see the module docstring)."""
    root = Path(image_root) if image_root is not None else None
    for episode in episodes:
        first_obs = next((s.observation for s in episode.steps if s.observation is not None), None)
        screen, model = model_frame_of(episode, first_obs.screen_size if first_obs else None)
        steps = [_to_model(s, screen, model) for s in episode.steps]
        for index, step in enumerate(steps):
            where = f"episode {episode.id!r} step {index}"
            history: Sequence[Step] = steps[:index]
            try:
                prompt = dialect.build_messages(
                    episode.instruction,
                    step.observation,
                    history,
                    observation_mode=observation_mode,
                    model_frame=model,
                    history_window=history_window,
                )
                completion = dialect.render(step.action, step.thought, step.description)
            except (ActionError, ConfigError) as exc:
                raise DataError(f"{where}: {exc}") from None
            images: list[str] = []
            if observation_mode == "image":
                for obs in dialect.image_observations(step.observation, history, history_window=history_window):
                    images.append(_image_path(obs.screenshot_path, root, where))
            yield StepSample(prompt, completion, images, episode.id, index)


def _text_content(content: Any) -> str:
    """Flatten a message content (a string, or a list of text/image items) into text with `<image>` tokens."""
    if isinstance(content, str):
        return content
    parts = []
    for item in content:
        kind = item.get("type")
        if kind == "text":
            parts.append(item.get("text", ""))
        elif kind == "image":
            parts.append(IMAGE_TOKEN)
        else:
            raise DataError(f"cannot export a message item of type {kind!r}; only text and image are supported")
    return "".join(parts)


def sharegpt_record(sample: StepSample) -> dict[str, Any]:
    """The LLaMA-Factory ShareGPT record of a sample (`messages` + `images`, `<image>` tokens in the text)."""
    messages = [{"role": m["role"], "content": _text_content(m["content"])} for m in sample.prompt]
    messages.append({"role": "assistant", "content": sample.completion})
    tokens = sum(m["content"].count(IMAGE_TOKEN) for m in messages)
    if tokens != len(sample.images):
        raise DataError(
            f"episode {sample.episode_id!r} step {sample.step}: {tokens} {IMAGE_TOKEN} tokens but {len(sample.images)} images"
        )
    return {"messages": messages, "images": list(sample.images)}


def trl_record(sample: StepSample, style: Literal["prompt-completion", "messages"] = "prompt-completion") -> dict[str, Any]:
    """A TRL conversational row of a sample."""
    completion = [{"role": "assistant", "content": sample.completion}]
    if style == "prompt-completion":
        row: dict[str, Any] = {"prompt": sample.prompt, "completion": completion}
    elif style == "messages":
        row = {"messages": [*sample.prompt, *completion]}
    else:
        raise ConfigError(f"TRL style must be 'prompt-completion' or 'messages', got {style!r}")
    if sample.images:
        row["images"] = list(sample.images)
    return row


def _write(path: str | Path, records: Iterable[dict[str, Any]]) -> int:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with open(path, "w", encoding="utf-8") as stream:
        for record in records:
            stream.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
    return count


def export_sharegpt(
    episodes: Iterable[Episode],
    dialect: Any,
    path: str | Path,
    *,
    observation_mode: Literal["image", "text"] = "image",
    history_window: int | None = None,
    image_root: str | Path | None = None,
) -> int:
    """Write LLaMA-Factory ShareGPT JSONL, one record per step; returns the number of records."""
    samples = step_samples(
        episodes, dialect, observation_mode=observation_mode, history_window=history_window, image_root=image_root
    )
    return _write(path, (sharegpt_record(s) for s in samples))


def export_trl(
    episodes: Iterable[Episode],
    dialect: Any,
    path: str | Path,
    *,
    style: Literal["prompt-completion", "messages"] = "prompt-completion",
    observation_mode: Literal["image", "text"] = "image",
    history_window: int | None = None,
    image_root: str | Path | None = None,
) -> int:
    """Write TRL conversational JSONL, one row per step; returns the number of rows."""
    samples = step_samples(
        episodes, dialect, observation_mode=observation_mode, history_window=history_window, image_root=image_root
    )
    return _write(path, (trl_record(s, style) for s in samples))


def llamafactory_dataset_info(file_name: str) -> dict[str, Any]:
    """The `dataset_info.json` entry that makes LLaMA-Factory read a file written by `export_sharegpt`."""
    return {
        "file_name": file_name,
        "formatting": "sharegpt",
        "columns": {"messages": "messages", "images": "images"},
        "tags": {
            "role_tag": "role",
            "content_tag": "content",
            "user_tag": "user",
            "assistant_tag": "assistant",
            "system_tag": "system",
        },
    }
