"""Exporters: one training sample per labelled step, rendered through a dialect, for LLaMA-Factory and TRL.

    from mobile_r1.core.dialects import get_dialect
    report = export_dataset(episodes, get_dialect("inquire"), "out/sft.jsonl", to="sharegpt",
                            frames=FrameSettings(prescale=0.3), screenshots=ScreenshotWriter)
    report.samples, report.skipped, report.images_dir, report.dataset_info

What a sample holds (the same as training's examples, `mobile_r1.train.data.step_examples`; both walk the episodes
through `core.formats.steps.model_steps`):

- Coordinates live in the frame of the image the model sees: Qwen2.5-VL `smart_resize` of the screen after the
  pre-scale (`FrameSettings`: `prescale`, `min_pixels`, `max_pixels`), in the label, in the history and in the
  system prompt's resolution alike. The screenshots are written resized to exactly that frame, so an image
  processor leaves them as they are (LLaMA-Factory's own `image_max_pixels`, 768 x 768 by default, must not be
  below the frame's pixels: `ExportReport.max_frame_pixels` says how many).
- Screenshots go to `<stem>_images/` beside the output file; paths in the file are relative to the output file's
  folder (LLaMA-Factory joins them to its `dataset_dir`) or absolute (`image_paths="absolute"`).
- One sample per step. A dialect whose prompt carries earlier outputs as assistant turns (`uitars`) would have
  LLaMA-Factory train on them again in every later sample: ShareGPT export of such prompts needs `mask_history`
  (and `mask_history: true` in the LLaMA-Factory training config, which then trains on the last turn only); TRL
  "messages" rows are refused for them (use "prompt-completion", whose prompt is never a target).
- Actions the dialect lacks are converted or skipped and counted (`open` -> a click on the launcher icon; see
  `core.formats.steps`); `ExportReport.skipped` counts them by reason.
- The file is written to a temporary name and renamed only when complete: an error leaves no file, and an export
  that would write no sample stops with a DataError and writes nothing.

Formats written:

- LLaMA-Factory ShareGPT (its `data/README.md`, "sharegpt" formatting with OpenAI-style tags):
  `{"messages": [{"role": "system" | "user" | "assistant", "content": str}], "images": [path, ...]}`, one
  `<image>` token in the text per entry of `images`, in order; `dataset_info.json` beside the file gets the entry
  `<stem>` (`llamafactory_dataset_info`), other entries kept.
- TRL conversational rows: `{"prompt": [messages], "completion": [{"role": "assistant", "content": str}],
  "images": [...]}` (style "prompt-completion") or `{"messages": [...], "images": [...]}` (style "messages");
  image placeholders stay `{"type": "image"}` items of the content lists, as TRL's vision trainers expect.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from mobile_r1.core.dialects.base import Dialect
from mobile_r1.core.errors import ActionError, ConfigError, DataError
from mobile_r1.core.files import write_json
from mobile_r1.core.formats.steps import FrameSettings, model_steps
from mobile_r1.core.geometry import Frame
from mobile_r1.core.records import Episode, Observation

IMAGE_TOKEN = "<image>"
LLAMAFACTORY_IMAGE_MAX_PIXELS = 768 * 768  # LLaMA-Factory's default `image_max_pixels`
Message = dict[str, Any]


class ScreenshotSink(Protocol):
    """Writes a step's screenshot resized to a frame into a folder; returns the file's name there."""

    def put(self, observation: Observation, frame: Frame) -> str: ...


@dataclass(frozen=True, slots=True)
class StepSample:
    """One step as a training sample: the prompt messages, the target text and the screenshots, in order."""

    prompt: list[Message]
    completion: str
    images: list[str]
    episode_id: str
    step: int
    model_size: tuple[int, int] = (0, 0)


def _image_path(observation: Observation, where: str) -> str:
    if not observation.screenshot_path:
        raise DataError(f"{where}: the step has no screenshot file; export with observation_mode='text', or give "
                        "a screenshot writer (the `mobile-r1 data export` command does)")
    return str(observation.screenshot_path)


def step_samples(
    episodes: Iterable[Episode],
    dialect: Dialect,
    *,
    observation_mode: Literal["image", "text"] = "image",
    history_window: int | None = None,
    frames: FrameSettings | None = None,
    screenshots: ScreenshotSink | None = None,
    image_prefix: str = "",
    skipped: Counter[str] | None = None,
) -> Iterator[StepSample]:
    """Every step the dialect can say as a `StepSample` (see the module docstring).

    With `screenshots`, each shown screenshot is written resized to the model frame and named `image_prefix` +
    its name; without it, the observation's own `screenshot_path` is used as it is (the caller then shows the
    model that file resized to `StepSample.model_size`).
    """
    frames = frames or FrameSettings()
    for ms in model_steps(episodes, dialect, frames, skipped):
        where = f"episode {ms.episode.id!r} step {ms.index}"
        try:
            prompt = dialect.build_messages(
                ms.episode.instruction,
                ms.step.observation,
                ms.history,
                observation_mode=observation_mode,
                model_frame=ms.frame,
                history_window=history_window,
            )
            completion = dialect.render(ms.step.action, ms.step.thought, ms.step.description)
        except (ActionError, ConfigError) as exc:
            raise DataError(f"{where}: {exc}") from None
        images: list[str] = []
        if observation_mode == "image":
            for obs in dialect.image_observations(ms.step.observation, ms.history, history_window=history_window):
                if screenshots is not None:
                    images.append(image_prefix + screenshots.put(obs, frames.frame(obs.screen_size)))
                else:
                    images.append(_image_path(obs, where))
        size = (int(ms.frame.width), int(ms.frame.height))
        yield StepSample(prompt, completion, images, ms.episode.id, ms.index, size)


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


def has_assistant_history(sample: StepSample) -> bool:
    """Whether the prompt already holds assistant turns (earlier outputs shown as chat turns)."""
    return any(m["role"] == "assistant" for m in sample.prompt)


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


def llamafactory_dataset_info(file_name: str) -> dict[str, Any]:
    """The `dataset_info.json` entry that makes LLaMA-Factory read a file written by the ShareGPT exporter."""
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


@dataclass(slots=True)
class ExportReport:
    """What an export wrote and left out."""

    path: Path
    samples: int
    skipped: Counter[str] = field(default_factory=Counter)
    images_dir: Path | None = None
    images: int = 0
    dataset_info: Path | None = None
    frames: set[tuple[int, int]] = field(default_factory=set)
    mask_history: bool = False

    @property
    def max_frame_pixels(self) -> int:
        """The most pixels of any image written (LLaMA-Factory's `image_max_pixels` must be at least this)."""
        return max((w * h for w, h in self.frames), default=0)


def _replace_dir(staging: Path, final: Path) -> None:
    if final.exists():
        shutil.rmtree(final)
    os.replace(staging, final)


def _write_dataset_info(folder: Path, name: str, file_name: str) -> Path:
    path = folder / "dataset_info.json"
    entries: dict[str, Any] = {}
    if path.is_file():
        try:
            entries = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise DataError(f"{path}: not valid JSON ({exc.msg}); fix or remove it so the entry can be added") from None
        if not isinstance(entries, dict):
            raise DataError(f"{path}: must be a JSON object of dataset entries")
    entries[name] = llamafactory_dataset_info(file_name)
    write_json(path, entries)
    return path


def export_dataset(
    episodes: Iterable[Episode],
    dialect: Dialect,
    out: str | Path,
    *,
    to: Literal["sharegpt", "trl"] = "sharegpt",
    trl_style: Literal["prompt-completion", "messages"] = "prompt-completion",
    observation_mode: Literal["image", "text"] = "image",
    history_window: int | None = None,
    frames: FrameSettings | None = None,
    screenshots: Callable[[Path], ScreenshotSink] | None = None,
    image_paths: Literal["relative", "absolute"] = "relative",
    mask_history: bool = False,
) -> ExportReport:
    """Write one sample per step to `out` (see the module docstring); `screenshots(folder)` makes the image writer."""
    if to not in ("sharegpt", "trl"):
        raise ConfigError(f"export target must be sharegpt or trl, got {to!r}")
    if trl_style not in ("prompt-completion", "messages"):
        raise ConfigError(f"TRL style must be 'prompt-completion' or 'messages', got {trl_style!r}")
    if image_paths not in ("relative", "absolute"):
        raise ConfigError(f"image paths must be 'relative' or 'absolute', got {image_paths!r}")
    if observation_mode not in ("image", "text"):
        raise ConfigError(f"observation mode must be image or text, got {observation_mode!r}")
    out = Path(out)
    if out.is_dir():
        raise ConfigError(f"{out} is a folder; give the path of the .jsonl file to write")
    out.parent.mkdir(parents=True, exist_ok=True)
    tag = f"partial-{os.getpid()}"
    tmp = out.with_name(f".{out.name}.{tag}")
    images_dir = out.parent / f"{out.stem}_images"
    staging = out.parent / f".{out.stem}_images.{tag}"
    writes_images = observation_mode == "image" and screenshots is not None
    prefix = f"{images_dir.name}/" if image_paths == "relative" else f"{images_dir.resolve()}/"
    report = ExportReport(path=out, samples=0, mask_history=mask_history)
    try:
        sink = None
        if writes_images:
            staging.mkdir(parents=True)
            sink = screenshots(staging)  # type: ignore[misc]
        samples = step_samples(episodes, dialect, observation_mode=observation_mode, history_window=history_window,
                               frames=frames, screenshots=sink, image_prefix=prefix, skipped=report.skipped)
        with open(tmp, "w", encoding="utf-8") as stream:
            for sample in samples:
                if has_assistant_history(sample):
                    if to == "trl" and trl_style == "messages":
                        raise ConfigError(f"the {dialect.name} dialect shows earlier outputs as assistant turns, which "
                                          "a trainer reading 'messages' rows learns again in every sample; use "
                                          "--trl-style prompt-completion")
                    if to == "sharegpt" and not mask_history:
                        raise ConfigError(f"the {dialect.name} dialect shows earlier outputs as assistant turns, which "
                                          "LLaMA-Factory trains on in every later sample; pass --mask-history and set "
                                          "mask_history: true in the LLaMA-Factory training config (it then trains on "
                                          "the last turn only)")
                record = sharegpt_record(sample) if to == "sharegpt" else trl_record(sample, trl_style)
                stream.write(json.dumps(record, ensure_ascii=False) + "\n")
                report.samples += 1
                report.frames.add(sample.model_size)
        if report.samples == 0:
            reasons = "; ".join(f"{n} x {why}" for why, n in report.skipped.most_common()) or "the episodes hold no steps"
            raise DataError(f"nothing to export: no step can be written in the {dialect.name} dialect ({reasons}); "
                            "choose another --dialect or check the data")
        if writes_images:
            report.images = sum(1 for _ in staging.iterdir())
            _replace_dir(staging, images_dir)
            report.images_dir = images_dir
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
        raise
    if to == "sharegpt":
        report.dataset_info = _write_dataset_info(out.parent, out.stem, out.name)
    return report


def export_sharegpt(episodes: Iterable[Episode], dialect: Dialect, path: str | Path, **options: Any) -> int:
    """Write LLaMA-Factory ShareGPT JSONL, one record per step (`export_dataset` options); returns the count."""
    return export_dataset(episodes, dialect, path, to="sharegpt", **options).samples


def export_trl(episodes: Iterable[Episode], dialect: Dialect, path: str | Path, *,
               style: Literal["prompt-completion", "messages"] = "prompt-completion", **options: Any) -> int:
    """Write TRL conversational JSONL, one row per step (`export_dataset` options); returns the count."""
    return export_dataset(episodes, dialect, path, to="trl", trl_style=style, **options).samples
