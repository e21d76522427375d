"""The phone as a TRL environment: `trl.GRPOTrainer(environment_factory=...)` trains on any backend of `mobile_r1.env`.

    from trl import GRPOConfig, GRPOTrainer
    from mobile_r1.train.trl_env import PhoneToolEnv, phone_dataset, use_tool_template

    policy = load_policy("tiny-lm")                       # any causal LM or VLM with its tokenizer / processor
    use_tool_template(policy.tokenizer)                   # a chat template that renders tool calls (our presets)
    trainer = GRPOTrainer(model=policy.model, processing_class=policy.tokenizer, args=GRPOConfig(...),
                          train_dataset=phone_dataset("nav-sim", "train", n=32),
                          environment_factory=PhoneToolEnv.factory(backend="sim"))
    trainer.train()

TRL's contract (trl >= 1.16, `GRPOTrainer(environment_factory=...)`, experimental there): the factory is called with no
argument, once per rollout in flight (instances are pooled and reused); each instance's public methods, with their type
hints and Google-style docstrings, are the tools the model may call; `reset(**row)` is called with the dataset row
before a rollout and its return value (text, or a list of content parts with images) is appended to the row's last
user message; `get_reward()` is called once the rollout is over and is the environment's reward column (named after
the class, weight 1).

Here the tools are the phone's actions, the project's one `Action` type: `click`, `long_press`, `swipe`, `type`,
`system_button`, `open`, `wait`, `terminate`, `call_user` and `answer`. Each plays one step of the episode the row
names and returns what the phone shows next: the screen's element list (observation="text", coordinates in screen
pixels, as `mobile_r1/Phone-v0` and `mobile-r1 eval --observation text` show it) or its screenshot (observation="image",
coordinates in that image's pixels), with the user's reply to `call_user` and any error. A point off the screen costs
a step of the budget and touches nothing; an action after the episode's end touches nothing; both raise, which TRL
counts as a failed tool call and shows the model as `{"error": ...}`. The reward is the judge's verdict on the
episode as it stands when the rollout ends: 1.0 for success else 0.0 (reward="success"), or the 0-4 trajectory score
/ 4 (reward="score"). Every rollout of a GRPO group opens the same episode from its start: the backend resets it
deterministically.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Literal, Mapping

from mobile_r1.core.actions import Action
from mobile_r1.core.dialects.observation import render_elements
from mobile_r1.core.errors import ActionError, ConfigError, EnvError
from mobile_r1.core.geometry import Frame
from mobile_r1.core.records import Observation
from mobile_r1.env.protocol import Backend, EpisodeRef, StepInfo, TaskEnv
from mobile_r1.env.registry import make_backend

ObservationKind = Literal["text", "image"]
RewardKind = Literal["success", "score"]
ContentPart = dict[str, Any]  # {"type": "text", "text": str} or {"type": "image", "image": PIL.Image}
ToolResult = str | list[ContentPart]

SYSTEM_PROMPT = (
    "You operate an Android phone to complete the user's task. Each turn, call exactly one of the tools: it acts on "
    "the phone and returns the screen that follows. Points are pixels of the screen as the latest observation gives "
    "it. Ask the user with call_user when the task needs their decision; call terminate when the task is done or "
    "cannot be done."
)

# Qwen2.5's ChatML tool-calling format (Hermes / Nous style, what Qwen-Agent and Qwen2.5-VL speak): the tools as JSON
# inside <tools></tools> in the system turn, an assistant's calls as <tool_call>{"name": ..., "arguments": ...}
# </tool_call>, a tool's answer as a user turn of <tool_response> blocks. A content is a string or a list of
# text / image parts (Qwen2-VL's image placeholders), so screenshots returned by a tool render as images.
TOOL_CHAT_TEMPLATE = (
    "{%- macro render(content) -%}"
    "{%- if content is string -%}{{- content -}}"
    "{%- elif content is not none -%}{%- for part in content -%}"
    "{%- if part['type'] == 'image' or 'image' in part -%}{{- '<|vision_start|><|image_pad|><|vision_end|>' -}}"
    "{%- elif part['type'] == 'text' -%}{{- part['text'] -}}{%- endif -%}"
    "{%- endfor -%}{%- endif -%}"
    "{%- endmacro -%}"
    "{%- if tools -%}"
    "{{- '<|im_start|>system\\n' -}}"
    "{%- if messages[0]['role'] == 'system' -%}{{- render(messages[0]['content']) + '\\n\\n' -}}{%- endif -%}"
    "{{- '# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with "
    "function signatures within <tools></tools> XML tags:\\n<tools>' -}}"
    "{%- for tool in tools -%}{{- '\\n' + (tool | tojson) -}}{%- endfor -%}"
    "{{- '\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within "
    "<tool_call></tool_call> XML tags:\\n<tool_call>\\n{\"name\": <function-name>, \"arguments\": "
    "<args-json-object>}\\n</tool_call><|im_end|>\\n' -}}"
    "{%- elif messages[0]['role'] == 'system' -%}"
    "{{- '<|im_start|>system\\n' + render(messages[0]['content']) + '<|im_end|>\\n' -}}"
    "{%- endif -%}"
    "{%- for message in messages -%}"
    "{%- if message['role'] == 'system' and loop.first -%}"
    "{%- elif message['role'] == 'tool' -%}"
    "{%- if loop.first or messages[loop.index0 - 1]['role'] != 'tool' -%}{{- '<|im_start|>user' -}}{%- endif -%}"
    "{{- '\\n<tool_response>\\n' + render(message['content']) + '\\n</tool_response>' -}}"
    "{%- if loop.last or messages[loop.index0 + 1]['role'] != 'tool' -%}{{- '<|im_end|>\\n' -}}{%- endif -%}"
    "{%- elif message['role'] == 'assistant' and message.get('tool_calls') -%}"
    "{{- '<|im_start|>assistant' -}}"
    "{%- if message['content'] -%}{{- '\\n' + render(message['content']) -}}{%- endif -%}"
    "{%- for call in message['tool_calls'] -%}"
    "{%- set call = call['function'] if call['function'] is defined else call -%}"
    "{{- '\\n<tool_call>\\n{\"name\": \"' + call['name'] + '\", \"arguments\": ' -}}"
    "{{- (call['arguments'] if call['arguments'] is string else (call['arguments'] | tojson)) + '}\\n</tool_call>' -}}"
    "{%- endfor -%}"
    "{{- '<|im_end|>\\n' -}}"
    "{%- else -%}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + render(message['content']) + '<|im_end|>\\n' -}}"
    "{%- endif -%}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}"
)


def use_tool_template(processing_class: Any) -> Any:
    """Give a tokenizer (or a VLM processor and its tokenizer) `TOOL_CHAT_TEMPLATE` and TRL's parser of its replies.

    Works for every ChatML model: the presets tiny-lm, small-lm, tiny-vl (our tokenizer) and smollm2-135m (SmolLM2's),
    and Qwen2/2.5(-VL). The tool calls of a reply are read by the response template TRL ships for Qwen's
    `<tool_call>` JSON blocks (`trl.chat_template_utils.qwen3_template`, or its older `qwen3_schema` where transformers
    predates response templates). Returns `processing_class`, changed in place.
    """
    from trl.chat_template_utils import _SUPPORTS_RESPONSE_TEMPLATE, qwen3_schema, qwen3_template

    tokenizer = getattr(processing_class, "tokenizer", processing_class)
    vocab = tokenizer.get_vocab()
    if "<|im_start|>" not in vocab or "<|im_end|>" not in vocab:
        raise ConfigError("the tool-calling chat template is ChatML (<|im_start|> ... <|im_end|>); this tokenizer has "
                          "no such tokens: give it a chat template of its own that renders tool calls")
    for target in {id(processing_class): processing_class, id(tokenizer): tokenizer}.values():
        target.chat_template = TOOL_CHAT_TEMPLATE
    if _SUPPORTS_RESPONSE_TEMPLATE:
        tokenizer.response_template = qwen3_template
    else:
        tokenizer.response_schema = qwen3_schema
    return processing_class


def phone_dataset(suite: str, split: str = "train", n: int | None = None, *, seed: int = 0,
                  backend: str | Backend = "sim", system_prompt: str = SYSTEM_PROMPT,
                  backend_options: Mapping[str, Any] | None = None) -> Any:
    """A `datasets.Dataset` of the episodes of a suite split, one row each: `prompt` (the system prompt and the
    task as the user's message) and `episode` (the `EpisodeRef` as JSON, which `PhoneToolEnv.reset` opens)."""
    from datasets import Dataset

    owned = isinstance(backend, str)
    source = make_backend(backend, render=False, xml=False, **dict(backend_options or {})) if owned else backend
    try:
        refs = source.episodes(suite, split, n, seed)  # type: ignore[union-attr]
    finally:
        if owned:
            source.close()  # type: ignore[union-attr]
    if not refs:
        raise ConfigError(f"{suite}/{split} has no episodes")
    rows = [episode_row(ref, system_prompt) for ref in refs]
    return Dataset.from_list(rows)


def episode_row(episode: EpisodeRef, system_prompt: str = SYSTEM_PROMPT) -> dict[str, Any]:
    """One dataset row for `episode`: what `PhoneToolEnv.reset(**row)` expects."""
    prompt = [{"role": "system", "content": system_prompt}, {"role": "user", "content": f"Task: {episode.instruction}"}]
    return {"prompt": prompt, "episode": json.dumps(episode.to_dict(), ensure_ascii=False)}


class PhoneToolEnv:
    """One phone for one rollout at a time, its actions as TRL tools (see the module docstring).

    Build the factory TRL calls with `PhoneToolEnv.factory(...)`: every instance it makes shares one backend.
    """

    def __init__(self, backend: Backend | str = "sim", *, observation: ObservationKind = "text",
                 reward: RewardKind = "success", max_steps: int | None = None, scale: float = 0.3,
                 backend_options: Mapping[str, Any] | None = None) -> None:
        if observation not in ("text", "image"):
            raise ConfigError(f"observation must be 'text' or 'image', got {observation!r}")
        if reward not in ("success", "score"):
            raise ConfigError(f"reward must be 'success' or 'score', got {reward!r}")
        if isinstance(backend, str):
            backend = make_backend(backend, render=observation == "image", scale=scale, xml=False,
                                   **dict(backend_options or {}))
        self._backend: Backend = backend
        self._observation_kind: ObservationKind = observation
        self._reward_kind: RewardKind = reward
        self._max_steps = max_steps
        self._env: TaskEnv | None = None
        self._screen: Observation | None = None

    @classmethod
    def factory(cls, backend: Backend | str = "sim", *, observation: ObservationKind = "text",
                reward: RewardKind = "success", max_steps: int | None = None, scale: float = 0.3,
                backend_options: Mapping[str, Any] | None = None) -> Callable[[], PhoneToolEnv]:
        """The zero-argument callable for `GRPOTrainer(environment_factory=...)`: each call makes an environment on one
        shared backend (opened on first use). A backend that holds fewer phones than the rollouts in flight (a single
        device: `max_in_play`) is refused when the trainer asks for one more."""
        shared: list[Backend] = []
        made = [0]

        def make() -> PhoneToolEnv:
            if not shared:
                shared.append(backend if not isinstance(backend, str) else make_backend(
                    backend, render=observation == "image", scale=scale, xml=False, **dict(backend_options or {})))
            limit = shared[0].max_in_play
            if limit is not None and made[0] >= limit:
                raise ConfigError(f"the '{shared[0].name}' phone plays {limit} episode(s) at a time, and the trainer "
                                  f"asks for more rollouts at once; use a backend with a phone per rollout (sim)")
            made[0] += 1
            return cls(shared[0], observation=observation, reward=reward, max_steps=max_steps)

        return make

    @property
    def observation(self) -> Observation | None:
        """The latest screen the phone returned (None before the first `reset`); a property, so not a tool."""
        return self._screen

    @property
    def phone(self) -> TaskEnv | None:
        """The phone with the rollout's episode on it (None before the first `reset`)."""
        return self._env

    # ----- TRL's lifecycle -------------------------------------------------------------------------------------------
    def reset(self, **row: Any) -> ToolResult:
        """Open the episode the dataset row names (`episode`: an `EpisodeRef` as JSON or a dict) from its start, and
        return the first screen (appended to the row's prompt)."""
        episode = row.get("episode")
        if episode is None:
            raise ConfigError("a PhoneToolEnv row needs an 'episode' column (an EpisodeRef as JSON): build the dataset "
                              "with mobile_r1.train.trl_env.phone_dataset or episode_row")
        ref = EpisodeRef.from_dict(json.loads(episode) if isinstance(episode, str) else episode)
        if self._env is not None:
            self._env.close()
        self._env = self._backend.open(ref, max_steps=self._max_steps)
        self._screen, _ = self._env.reset()
        return self._show(self._screen, StepInfo(), first=True)

    def get_reward(self) -> float:
        """The judge's verdict on the episode as it stands: success (1.0 / 0.0) or the 0-4 score / 4."""
        if self._env is None:
            return 0.0
        verdict = self._env.judge().verdict
        if self._reward_kind == "score":
            return (verdict.score or 0.0) / 4.0
        return float(verdict.success)

    # ----- the tools: the phone's actions ------------------------------------------------------------------------------
    def click(self, x: int, y: int) -> ToolResult:
        """Tap the screen at a point.

        Args:
            x: Horizontal pixel of the point, from the left edge of the latest screen.
            y: Vertical pixel of the point, from the top edge of the latest screen.

        Returns:
            The screen after the tap.
        """
        return self._act(Action.click(*self._point(x, y)))

    def long_press(self, x: int, y: int, time: float = 2.0) -> ToolResult:
        """Press and hold the screen at a point.

        Args:
            x: Horizontal pixel of the point, from the left edge of the latest screen.
            y: Vertical pixel of the point, from the top edge of the latest screen.
            time: How long to hold, in seconds.

        Returns:
            The screen after the press.
        """
        return self._act(Action.long_press(*self._point(x, y), time=time))

    def swipe(self, x: int, y: int, x2: int, y2: int) -> ToolResult:
        """Swipe a finger across the screen from one point to another.

        Args:
            x: Horizontal pixel where the finger goes down.
            y: Vertical pixel where the finger goes down.
            x2: Horizontal pixel where the finger lifts.
            y2: Vertical pixel where the finger lifts.

        Returns:
            The screen after the swipe.
        """
        return self._act(Action.swipe(*self._point(x, y), *self._point(x2, y2)))

    def type(self, text: str) -> ToolResult:
        """Type text into the input field that has the focus.

        Args:
            text: The text to type.

        Returns:
            The screen after typing.
        """
        return self._act(Action.type_text(text))

    def system_button(self, button: Literal["Back", "Home", "Menu", "Enter"]) -> ToolResult:
        """Press one of the phone's system buttons.

        Args:
            button: The button to press.

        Returns:
            The screen after the press.
        """
        return self._act(Action.system_button(button))

    def open(self, app: str) -> ToolResult:
        """Launch an app by its name.

        Args:
            app: The app's name as the launcher shows it.

        Returns:
            The screen after launching.
        """
        return self._act(Action.open(app))

    def wait(self, time: float = 1.0) -> ToolResult:
        """Wait for the screen to change.

        Args:
            time: How long to wait, in seconds.

        Returns:
            The screen after waiting.
        """
        return self._act(Action.wait(time))

    def terminate(self, status: Literal["success", "failure"]) -> ToolResult:
        """End the task.

        Args:
            status: Whether the task was completed (success) or cannot be completed (failure).

        Returns:
            A note that the episode has ended.
        """
        return self._act(Action.terminate(status))

    def call_user(self, content: str) -> ToolResult:
        """Ask the user a question (to confirm a risky step, or what they want) and wait for the reply.

        Args:
            content: The question to ask.

        Returns:
            The user's reply and the screen.
        """
        return self._act(Action.call_user(content))

    def answer(self, text: str) -> ToolResult:
        """Give the user the information the task asked for.

        Args:
            text: The answer.

        Returns:
            The screen after answering.
        """
        return self._act(Action.answer(text))

    # ----- helpers -----------------------------------------------------------------------------------------------------
    def _live(self) -> TaskEnv:
        env = self._env
        if env is None:
            raise EnvError("no episode is open: the trainer calls reset(**row) before the first tool")
        if env.done:
            raise EnvError("the episode has ended; no further action is taken")
        return env

    def _frame(self) -> Frame:
        """The frame of the points the model gives: the screenshot's pixels (image) or the screen's (text)."""
        assert self._screen is not None
        if self._observation_kind == "image" and self._screen.screenshot is not None:
            return Frame(*self._screen.screenshot.size)
        return Frame.screen(*self._screen.screen_size)

    def _point(self, x: float, y: float) -> tuple[float, float]:
        """A point of the model's frame in screen pixels; one off the screen costs a step and raises."""
        env = self._live()
        frame = self._frame()
        if isinstance(x, bool) or isinstance(y, bool) or not all(isinstance(v, (int, float)) for v in (x, y)) \
                or not frame.contains((x, y)):
            problem = (f"the point ({x!r}, {y!r}) is not on the {int(frame.width)}x{int(frame.height)} screen; "
                       "nothing was done")
            env.skip(problem)
            raise ActionError(problem)
        assert self._screen is not None
        return frame.map((x, y), Frame.screen(*self._screen.screen_size))

    def _act(self, action: Action) -> ToolResult:
        env = self._live()
        observation, terminated, truncated, info = env.step(action)
        self._screen = observation
        return self._show(observation, info, ended=terminated or truncated, used_up=truncated)

    def _show(self, observation: Observation, info: StepInfo, *, first: bool = False, ended: bool = False,
              used_up: bool = False) -> ToolResult:
        notes = []
        if info.user_reply:
            notes.append(f"The user replies: {info.user_reply}")
        if info.error:
            notes.append(f"Nothing happened: {info.error}")
        if ended:
            notes.append("The step budget is used up; the episode has ended." if used_up else "The episode has ended.")
            return "\n".join(notes)
        env = self._env
        assert env is not None
        header = f"Step {env.steps} of {env.budget}."
        if self._observation_kind == "text":
            if observation.elements_missing:
                raise ConfigError(f"observation='text' needs the screen's element list, but this backend gives none: "
                                  f"{observation.elements_missing}; use observation='image'")
            screen = render_elements(observation.elements, observation.screen_size)
            width, height = observation.screen_size
            text = "\n".join([*notes, f"{header} The screen ({width}x{height} pixels):", screen])
            return ("\n\n" + text) if first else text
        if observation.screenshot is None:
            raise ConfigError("this backend gave no screenshot; use observation='text'")
        image = observation.screenshot.convert("RGB")
        text = "\n".join([*notes, f"{header} The screen ({image.width}x{image.height} pixels):"])
        return [{"type": "text", "text": ("\n\n" if first else "") + text}, {"type": "image", "image": image}]


__all__ = ["PhoneToolEnv", "phone_dataset", "episode_row", "use_tool_template", "TOOL_CHAT_TEMPLATE", "SYSTEM_PROMPT"]
