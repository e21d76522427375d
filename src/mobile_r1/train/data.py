"""Episodes -> per-step training examples: chat messages in a dialect, screenshots, targets and labels in the model frame."""

from __future__ import annotations

import io
import json
import random
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import torch
from PIL import Image

from mobile_r1.core.actions import Action
from mobile_r1.core.dialects import Dialect, get_dialect
from mobile_r1.core.errors import ActionError, ConfigError, DataError
from mobile_r1.core.formats import images_dir, load_any
from mobile_r1.core.formats.steps import FrameSettings, model_steps
from mobile_r1.core.geometry import MIN_PIXELS, Frame
from mobile_r1.core.records import Episode, Observation, Step
from mobile_r1.models.policy import Policy, end_of_turn
from mobile_r1.tasks.spec import fill, template_pieces
from mobile_r1.agents.base import ModelView
from mobile_r1.models.generation import PromptInput
from mobile_r1.train.config import TrainConfig


@dataclass
class PromptSettings:
    """How a step becomes a prompt: dialect, screenshots or accessibility text, history, image size."""

    dialect: str = "inquire"
    observation_mode: Literal["image", "text"] = "text"
    history_window: int | None = 4
    prescale: float = 1.0  # scale screenshots by this first (InquireMobile uses 0.3)
    min_pixels: int = MIN_PIXELS
    max_pixels: int = 1280 * 28 * 28
    image_dir: str | None = None  # where `screenshot_path`s are relative to
    # The thought the model is trained to write (see `training_thought`): "expert" as recorded; "grounded" adds the
    # target's screen line to point actions; "brief" is the step's one-line description, point actions written
    # as their target's screen line; "restated" writes the task in one fixed phrasing first, then the brief thought.
    # Grounding needs a dialect that lists elements with points (compact).
    thought: Literal["expert", "grounded", "brief", "restated"] = "expert"
    # How brief and restated thoughts name a point action's target: "line" as the screen lists it, "words" by its
    # label's words up to the first one with a digit (see `target_words`).
    target_name: Literal["line", "words"] = "line"


@dataclass
class StepExample:
    """One labelled step, ready for a model: prompt messages, images, the target text and the reward label.

    `label` has its coordinates in the model frame (the image the model saw, `model_size`); `bbox` is in
    screen pixels (`screen_size`), as the rewards expect.
    """

    episode_id: str
    step_index: int
    messages: list[dict[str, Any]]
    images: list[Image.Image]
    target: str
    label: Action
    bbox: tuple[int, int, int, int] | None
    screen_size: tuple[int, int]
    model_size: tuple[int, int]
    meta: dict[str, Any] = field(default_factory=dict)


def open_screenshot(observation: Observation, image_dir: str | None = None) -> Image.Image:
    """The observation's screenshot as a PIL image: in memory (PIL, or bytes from a data file), else its file.

    A relative `screenshot_path` is joined to `image_dir`; loaders give absolute paths, already checked to lie
    inside the dataset's folder.
    """
    image = observation.screenshot
    if image is not None and hasattr(image, "png") and not hasattr(image, "convert"):  # EncodedImage from a data file
        source: io.BytesIO | Path = io.BytesIO(image.png())
        name = "an embedded screenshot"
    elif image is not None:
        return image
    else:
        if not observation.screenshot_path:
            raise DataError("observation_mode 'image' needs screenshots, but a step has none; use observation_mode 'text'")
        source = Path(image_dir or ".") / observation.screenshot_path
        name = f"screenshot {source}"
        if not source.is_file():
            raise DataError(f"{name} not found; set data.image_dir to the episodes' image folder")
    try:
        opened = Image.open(source)
        opened.load()
    except (OSError, ValueError) as exc:
        raise DataError(f"{name} cannot be read as an image ({exc})") from None
    return opened


def fit_to_frame(image: Image.Image, frame: Frame) -> Image.Image:
    """The image in RGB resized straight to the frame's size, so an image processor leaves it as is and the frame
    is exact (training and `mobile-r1 data export` both show the model this image)."""
    return image.convert("RGB").resize((int(frame.width), int(frame.height)), Image.BICUBIC)


def _load_image(observation: Observation, settings: PromptSettings, frame: Frame) -> Image.Image:
    return fit_to_frame(open_screenshot(observation, settings.image_dir), frame)


class ScreenshotWriter:
    """Writes screenshots resized to their model frame as PNG files into one folder (`mobile-r1 data export`).

    The same screenshot in the same frame is written once (InquireMobile prompts show the previous screen again).
    """

    def __init__(self, folder: Path, image_dir: str | None = None) -> None:
        self.folder = Path(folder)
        self.image_dir = image_dir
        self._names: dict[tuple[object, int, int], str] = {}

    def put(self, observation: Observation, frame: Frame) -> str:
        source: object = observation.screenshot_path if observation.screenshot is None else id(observation.screenshot)
        key = (source, int(frame.width), int(frame.height))
        name = self._names.get(key)
        if name is None:
            name = f"{len(self._names):06d}.png"
            image = fit_to_frame(open_screenshot(observation, self.image_dir), frame)
            image.save(self.folder / name, format="PNG")
            self._names[key] = name
        return name


_DIGIT_WORD = re.compile(r"\s*\S*\d")


def target_words(line: str) -> str:
    """A listed target's line with its label cut before the first word that holds a digit, marks and point kept:
    `"Dentist +1 555 884 3116" (336, 752)` -> `"Dentist" (336, 752)`. A label that starts with a digit, and a line
    with no quoted label, stay as they are.

    A price, a phone number or a date in a list entry's label is a run of digit tokens that recurs, digit by digit,
    in every other entry, and the tap needs only the words before it and the point. For the small preset trained
    from scratch it did not help: it named the wrong entry as often (docs/experiments/log.md, row 18).
    """
    if not line.startswith('"'):
        return line
    try:
        label, end = json.JSONDecoder().raw_decode(line)
    except ValueError:
        return line
    if not isinstance(label, str):
        return line
    cut = _DIGIT_WORD.search(label)
    if cut is None or not label[:cut.start()].strip():
        return line
    return json.dumps(label[:cut.start()].strip(), ensure_ascii=False) + line[end:]


def training_thought(dialect: Dialect, step: Step, label: Action, model_frame: Frame, style: str,
                     restated: str | None = None, target_name: Literal["line", "words"] = "line") -> str:
    """The thought of one SFT target.

    expert    the recorded thought
    grounded  the recorded thought + ` Target: "Buy now" (499, 1351)` for point actions: a small model names and
              locates the element before the tool call copies its point
    brief     the step's description (`Open Chat`, `Type 'hi' and submit`); a point action as its verb and target,
              `click "Buy now" (499, 1351)` (the description when the dialect cannot name the target)
    restated  `Task: <restated>` on a first line, then the brief thought: the task in one fixed phrasing (the
              episode's `meta["restated"]`, which generated expert data carries), so that every step, not only the
              few the task decides, trains the model to read the task

    `target_name` "words" names a brief or restated point action's target by `target_words`: `click "Dentist"
    (336, 752)` for `click "Dentist +1 555 884 3116" (336, 752)`.
    """
    if style == "restated":
        if not restated:
            raise DataError("thought style 'restated' needs episodes whose meta has 'restated' (the task in one fixed "
                            "phrasing), as `mobile-r1 data generate` writes them")
        return f"Task: {restated}\n{training_thought(dialect, step, label, model_frame, 'brief', None, target_name)}"
    if style == "expert":
        return step.thought
    named = None
    if label.coordinate is not None and step.observation is not None:
        named = dialect.target_text(step.observation, label.coordinate, model_frame)
    if style == "grounded":
        return f"{step.thought} Target: {named}".strip() if named else step.thought
    if style == "brief":
        if named:
            return f"{label.type.value} {target_words(named) if target_name == 'words' else named}"
        return step.description or step.thought
    raise ConfigError(f"unknown thought style {style!r}: expert, grounded, brief or restated")


_WORD = re.compile(r"\S*\w\S*")


def drop_instruction_words(episodes: list[Episode], p: float, seed: int) -> list[Episode]:
    """The episodes with each word of their instruction's phrasing left out with probability `p`.

    A task family has few training phrasings, and a model trained on them learns their exact word order; a test
    phrasing it has never seen then reads as another task. Leaving words out makes it read the task from whichever
    words are there. Only the phrasing's own words go (`meta["phrasing"]`, the template with its `{placeholders}`);
    the parameters' values (`meta["params"]`), which the actions type and click, always stay. Generated expert data
    carries both; other episodes are refused. One draw per episode, a function of `seed` and the episode's id, so a
    resumed run sees the same words.
    """
    if p == 0:
        return episodes
    out = []
    for episode in episodes:
        phrasing, params = episode.meta.get("phrasing"), episode.meta.get("params")
        if not isinstance(phrasing, str) or not isinstance(params, dict):
            raise DataError(f"episode {episode.id} has no meta['phrasing'] and meta['params'], which "
                            "data.instruction_dropout needs (generated expert data carries them); set it to 0")
        if fill(phrasing, params) != episode.instruction:
            raise DataError(f"episode {episode.id}: its meta['phrasing'] filled with meta['params'] is "
                            f"{fill(phrasing, params)!r}, not its instruction {episode.instruction!r}")
        rng = random.Random(f"{seed}:{episode.id}:instruction")
        pieces = ["{" + text + "}" if placeholder else _WORD.sub(lambda m: "" if rng.random() < p else m.group(0), text)
                  for text, placeholder in template_pieces(phrasing)]
        text = " ".join(fill("".join(pieces), params).split())
        out.append(replace(episode, instruction=text or episode.instruction))
    return out


def step_examples(episodes: list[Episode], settings: PromptSettings,
                  skipped: Counter[str] | None = None) -> list[StepExample]:
    """Every step the dialect can say as an example (history = the episode's earlier steps).

    Steps go through `core.formats.steps.model_steps`, as `mobile-r1 data export` does: labels and history in the
    Qwen frame of `settings` (pre-scale, pixel bounds); an `open` the dialect lacks becomes a click on the app's
    launcher icon when the screen shows it; other steps the dialect cannot say are left out and counted in `skipped`.
    """
    dialect = get_dialect(settings.dialect)
    frames = FrameSettings(settings.prescale, settings.min_pixels, settings.max_pixels)
    out: list[StepExample] = []
    for ms in model_steps(episodes, dialect, frames, skipped):
        episode, step, label, model = ms.episode, ms.step, ms.step.action, ms.frame
        messages = dialect.build_messages(
            episode.instruction,
            step.observation,
            ms.history,
            observation_mode=settings.observation_mode,
            model_frame=model,
            history_window=settings.history_window,
        )
        images: list[Image.Image] = []
        if settings.observation_mode == "image":
            shown = dialect.image_observations(step.observation, ms.history, history_window=settings.history_window)
            images = [_load_image(o, settings, frames.frame(o.screen_size)) for o in shown]
        thought = training_thought(dialect, step, label, model, settings.thought, episode.meta.get("restated"),
                                  settings.target_name)
        try:
            target = dialect.render(label, thought, step.description)
        except ActionError as exc:
            raise DataError(f"episode {episode.id}, step {ms.index}: {exc}; choose another data.dialect") from None
        out.append(
            StepExample(
                episode_id=episode.id,
                step_index=ms.index,
                messages=messages,
                images=images,
                target=target,
                label=label,
                bbox=step.bbox,
                screen_size=ms.screen_size,
                model_size=(int(model.width), int(model.height)),
            )
        )
    return out


def repeat_by_action(examples: list[StepExample], repeats: dict[str, int]) -> list[StepExample]:
    """Each example `repeats[its label's action type]` times (1 for types not listed), in order.

    Expert data is mostly clicks; the rare decisions a task turns on (which app to open, what to type, when to ask)
    get few gradient steps otherwise.
    """
    return [e for e in examples for _ in range(repeats.get(e.label.type.value, 1))]


def check_policy_fits(policy: Policy, settings: PromptSettings) -> None:
    """A text-only model cannot read screenshots: say so before training starts."""
    if settings.observation_mode == "image" and not policy.takes_images:
        raise ConfigError(
            f"model {policy.spec!r} takes no images; set data.observation_mode: text or use a VL model (e.g. tiny-vl)"
        )


def prompt_text(policy: Policy, messages: list[dict[str, Any]]) -> str:
    """The chat-template text of the prompt, ending with the assistant turn's opening."""
    if not policy.takes_images:  # text models' templates want string contents
        messages = [
            {**m, "content": m["content"] if isinstance(m["content"], str) else "".join(p.get("text", "") for p in m["content"])}
            for m in messages
        ]
    return policy.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)


def encode_prompt(policy: Policy, messages: list[dict[str, Any]], images: list[Image.Image]) -> PromptInput:
    """Token ids of the prompt (image placeholders expanded) and its image tensors."""
    text = prompt_text(policy, messages)
    if policy.takes_images and images:
        enc = policy.processor([text], images)
        vision = {k: enc[k] for k in ("pixel_values", "image_grid_thw")}
        return PromptInput(enc["input_ids"][0].tolist(), vision)
    ids = policy.tokenizer(text, add_special_tokens=False).input_ids
    return PromptInput(list(ids), None)


def encode_target(policy: Policy, target: str) -> list[int]:
    """Token ids of the assistant text followed by the end-of-turn token."""
    return list(policy.tokenizer(target + end_of_turn(policy), add_special_tokens=False).input_ids)


def stack_vision(items: list[dict[str, torch.Tensor] | None]) -> dict[str, torch.Tensor]:
    """Concatenate per-example image tensors for one batch."""
    present = [v for v in items if v]
    if not present:
        return {}
    return {k: torch.cat([v[k] for v in present]) for k in present[0]}


# ----- episode files, the view, the data order -------------------------------------------------------------------


def load_episode_files(paths: list[str]) -> list[Episode]:
    """Every episode of the files or folders `paths` (any format `core.formats.load_any` reads)."""
    episodes: list[Episode] = []
    for path in paths:
        if not Path(path).exists():
            raise DataError(f"data file {path} not found; check data.train / data.eval in the config")
        _, loaded = load_any(path)
        episodes.extend(loaded)
    return episodes


def split_data(config: TrainConfig) -> tuple[list[Episode], list[Episode]]:
    """Train and held-out episodes: `data.eval` when given, else a seeded `eval_fraction` of `data.train`."""
    if not config.data.train:
        raise ConfigError("data.train is empty; list episode files to train on")
    train = load_episode_files(config.data.train)
    if config.data.eval:
        return train, load_episode_files(config.data.eval)
    n_eval = int(round(len(train) * config.data.eval_fraction))
    if n_eval == 0:
        return train, []
    order = list(range(len(train)))
    random.Random(config.run.seed).shuffle(order)
    held = set(order[:n_eval])
    return [e for i, e in enumerate(train) if i not in held], [e for i, e in enumerate(train) if i in held]


def labelled_episodes(config: TrainConfig) -> tuple[PromptSettings, list[Episode], list[Episode]]:
    """What stages 1 and 2 learn from: how steps are prompted (screenshots found beside the first training file), the
    training episodes (`data.instruction_dropout` applied) and the held-out ones (`split_data`)."""
    train, held_out = split_data(config)
    train = drop_instruction_words(train, config.data.instruction_dropout, config.run.seed)
    return prompt_settings(config, str(images_dir(config.data.train[0]))), train, held_out


def labelled_examples(config: TrainConfig, settings: PromptSettings, train: list[Episode],
                      held_out: list[Episode]) -> tuple[list[StepExample], list[StepExample]]:
    """The labelled steps of the training episodes, and the first `data.eval_max_steps` of the held-out ones."""
    train_examples = step_examples(train, settings)
    if not train_examples:
        raise DataError("the training episodes hold no steps")
    return train_examples, step_examples(held_out, settings)[: config.data.eval_max_steps]


def model_view(config: TrainConfig) -> ModelView:
    """How the policy sees the phone: the data section's dialect, observation mode and history, the Qwen frame
    (the frame training examples are written in, so coordinates mean the same thing in every stage). Saved next
    to every final model, so `hf:` agents prompt it the same way by default."""
    d = config.data
    return ModelView.create(d.dialect, observation_mode=d.observation_mode, frame="qwen", prescale=d.prescale,
                            min_pixels=d.min_pixels, max_pixels=d.max_pixels, history_window=d.history_window)


def prompt_settings(config: TrainConfig, image_dir: str | None) -> PromptSettings:
    d = config.data
    return PromptSettings(
        dialect=d.dialect,
        observation_mode=d.observation_mode,
        history_window=d.history_window,
        prescale=d.prescale,
        min_pixels=d.min_pixels,
        max_pixels=d.max_pixels,
        image_dir=d.image_dir or image_dir,
        thought=d.thought,
        target_name=d.target_name,
    )


def epoch_order(epoch: int, n: int, seed: int, lengths: list[int] | None = None, batch_size: int = 1) -> list[int]:
    """The order examples are read in during `epoch`: a seeded permutation; with `lengths`, grouped by length.

    Grouping (as transformers' LengthGroupedSampler does) sorts each run of 16 batches of the permutation by length,
    longest first, so a batch pads little; which examples share a run stays random.
    """
    g = torch.Generator().manual_seed(seed * 100_003 + epoch)
    order = torch.randperm(n, generator=g).tolist()
    if lengths is None:
        return order
    run = 16 * batch_size
    return [i for start in range(0, n, run) for i in sorted(order[start : start + run], key=lambda k: -lengths[k])]


def batch_positions(step: int, batch_size: int, n: int, seed: int, lengths: list[int] | None = None) -> list[int]:
    """Example indices of optimizer step `step`: `epoch_order` of each epoch, read in order.

    The data position is a pure function of the step, so a resumed run reads exactly what the killed one would.
    """
    out: list[int] = []
    orders: dict[int, list[int]] = {}
    for pos in range(step * batch_size, (step + 1) * batch_size):
        epoch, offset = divmod(pos, n)
        if epoch not in orders:
            orders[epoch] = epoch_order(epoch, n, seed, lengths, batch_size)
        out.append(orders[epoch][offset])
    return out



def examples_for_rank(examples: list[StepExample], positions: list[int], rank: int, world: int) -> list[StepExample]:
    """This process's share of a batch."""
    return [examples[i] for i in positions[rank::world]]
