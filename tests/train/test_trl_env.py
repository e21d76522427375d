"""The phone as a TRL environment: its tools, observations and reward through its public methods, the chat template
through TRL's own checks, and a few GRPO steps with the real `trl.GRPOTrainer(environment_factory=...)`."""

from __future__ import annotations

import inspect
import json

import pytest
from transformers.utils import get_json_schema

from mobile_r1.core.actions import Action, ActionType
from mobile_r1.core.errors import ActionError, ConfigError, EnvError
from mobile_r1.env.protocol import EpisodeRef
from mobile_r1.train.trl_env import PhoneToolEnv, episode_row, phone_dataset, use_tool_template

ACTIONS = {"click", "long_press", "swipe", "type", "system_button", "open", "wait", "terminate", "call_user", "answer"}


def trl_tools(env: PhoneToolEnv) -> dict[str, object]:
    """The methods `GRPOTrainer` turns into tools: public functions of the class other than reset and get_reward."""
    return {name: getattr(env, name) for name, _ in inspect.getmembers(type(env), predicate=inspect.isfunction)
            if name not in ("reset", "get_reward") and not name.startswith("_")}


def play(env: PhoneToolEnv, action: Action) -> object:
    """Call the tool for `action` (screen pixels: the text observation's frame)."""
    a, kind = action, action.type.value
    if kind in ("click", "long_press", "swipe"):
        points = [*a.coordinate, *(a.coordinate2 or ())]
        return getattr(env, kind)(*points, **({"time": a.time} if a.time is not None else {}))
    value = {"type": a.text, "open": a.text, "answer": a.text, "system_button": a.button, "terminate": a.status,
             "call_user": a.content, "wait": a.time if a.time is not None else 1.0}[kind]
    return getattr(env, kind)(value)


@pytest.fixture(scope="module")
def rows() -> list[dict[str, object]]:
    return list(phone_dataset("nav-sim", "train", n=3))


def test_the_tools_are_the_phone_actions_with_schemas(rows) -> None:
    env = PhoneToolEnv()
    tools = trl_tools(env)
    assert set(tools) == ACTIONS
    assert ACTIONS <= {t.value for t in ActionType}
    for name, method in tools.items():
        schema = get_json_schema(method)["function"]
        assert schema["name"] == name and schema["description"]
        assert all(p.get("description") for p in schema["parameters"]["properties"].values()), name
    assert get_json_schema(env.system_button)["function"]["parameters"]["properties"]["button"]["enum"] == [
        "Back", "Home", "Menu", "Enter"]


def test_a_row_names_its_episode_and_reset_shows_the_first_screen(rows) -> None:
    row = rows[0]
    ref = EpisodeRef.from_dict(json.loads(row["episode"]))
    assert row["prompt"][-1] == {"role": "user", "content": f"Task: {ref.instruction}"}
    env = PhoneToolEnv()
    shown = env.reset(**row)
    assert isinstance(shown, str) and shown.startswith("\n\nStep 0 of 15. The screen (1080x2400 pixels):")
    assert "Calendar" in shown and "center=(" in shown
    assert env.phone is not None and env.phone.episode == ref
    with pytest.raises(ConfigError, match="'episode' column"):
        env.reset(prompt=row["prompt"])


def test_the_experts_plan_played_through_the_tools_earns_the_judges_reward(rows) -> None:
    env = PhoneToolEnv(reward="success")
    env.reset(**rows[0])
    assert env.phone is not None
    plan = env.phone.expert_demo().plan()
    assert plan[-1].action.type is ActionType.TERMINATE
    assert env.get_reward() == 0.0  # nothing done yet
    for step in plan:
        shown = play(env, step.action)
    assert shown == "The episode has ended."
    assert env.get_reward() == 1.0
    with pytest.raises(EnvError, match="has ended"):
        env.click(10, 10)
    env.reset(**rows[0])  # the same episode from its start: nothing done again
    assert env.get_reward() == 0.0 and env.phone.steps == 0


def test_a_point_off_the_screen_costs_a_step_and_raises(rows) -> None:
    env = PhoneToolEnv(max_steps=2)
    env.reset(**rows[1])
    with pytest.raises(ActionError, match=r"not on the 1080x2400 screen"):
        env.click(5000, 10)
    assert env.phone.steps == 1
    shown = env.wait(0.5)
    assert shown == "The step budget is used up; the episode has ended."
    with pytest.raises(EnvError):
        env.wait(0.5)


def test_call_user_returns_the_users_reply(rows) -> None:
    env = PhoneToolEnv()
    env.reset(**rows[2])
    shown = env.call_user("Which one do you mean?")
    assert shown.startswith("The user replies: ") and "Step 1 of 15." in shown


def test_image_observations_take_points_in_the_screenshots_pixels(rows) -> None:
    env = PhoneToolEnv(observation="image", scale=0.3)
    shown = env.reset(**rows[0])
    assert isinstance(shown, list) and shown[0]["type"] == "text" and shown[1]["type"] == "image"
    image = shown[1]["image"]
    assert image.size == (324, 720) and "(324x720 pixels)" in shown[0]["text"]
    # the Calendar icon's centre is (156, 980) on the 1080x2400 screen: (47, 294) in the 0.3 screenshot
    after = env.click(47, 294)
    assert isinstance(after, list) and after[1]["image"].size == (324, 720)
    assert env.observation is not None and env.observation.app == "Calendar"


def test_the_tool_template_passes_trls_checks_and_its_calls_parse() -> None:
    from trl.chat_template_utils import is_chat_template_prefix_preserving, parse_response, supports_tool_calling

    from mobile_r1.models.policy import local_tokenizer  # tiny-lm, small-lm and tiny-vl share it

    tokenizer = use_tool_template(local_tokenizer())
    assert supports_tool_calling(tokenizer) and is_chat_template_prefix_preserving(tokenizer)
    text = '<think>Open it.</think>\n<tool_call>\n{"name": "click", "arguments": {"x": 156, "y": 980}}\n</tool_call><|im_end|>'
    prefix = tokenizer("<|im_start|>assistant\n", add_special_tokens=False)["input_ids"]
    parsed = parse_response(tokenizer, tokenizer(text, add_special_tokens=False)["input_ids"], prefix=prefix)
    assert parsed["tool_calls"] == [{"type": "function", "function": {"name": "click", "arguments": {"x": 156, "y": 980}}}]
    messages = [{"role": "user", "content": "Task: open Calendar"},
                {"role": "assistant", "content": "", "tool_calls": parsed["tool_calls"]},
                {"role": "tool", "name": "click", "content": [{"type": "text", "text": "Step 1."}, {"type": "image"}]}]
    rendered = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    assert '<tool_call>\n{"name": "click", "arguments": {"x": 156, "y": 980}}\n</tool_call>' in rendered
    assert "<tool_response>\nStep 1.<|vision_start|><|image_pad|><|vision_end|>\n</tool_response>" in rendered


def test_the_tool_template_needs_chatml() -> None:
    from transformers import PreTrainedTokenizerFast
    from tokenizers import Tokenizer, models

    plain = PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.WordLevel({"a": 0, "[UNK]": 1}, unk_token="[UNK]")))
    with pytest.raises(ConfigError, match="ChatML"):
        use_tool_template(plain)


@pytest.mark.slow
def test_the_docs_example_runs(tmp_path) -> None:
    import re
    import subprocess
    import sys
    from pathlib import Path

    page = Path(__file__).resolve().parents[2] / "docs" / "trl.md"
    (block,) = re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
    done = subprocess.run([sys.executable, "-c", block], cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    assert float(done.stdout.strip().splitlines()[-1]) == 0.0  # a random model earns nothing


@pytest.mark.slow
def test_smollm2s_tokenizer_takes_the_tool_template() -> None:
    from transformers import AutoTokenizer
    from trl.chat_template_utils import is_chat_template_prefix_preserving, supports_tool_calling

    from mobile_r1.models.policy import smollm2_gguf

    gguf = smollm2_gguf()
    tokenizer = use_tool_template(AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name))
    assert supports_tool_calling(tokenizer) and is_chat_template_prefix_preserving(tokenizer)


@pytest.mark.slow
def test_grpo_steps_with_trls_trainer_on_the_simulated_phone(tmp_path, monkeypatch) -> None:
    """Two GRPO steps of the real trainer on tiny-lm: the rollouts call the phone's tools, the judge rewards them.

    A random model never writes a tool call, so its sampling is steered onto one (a click on the Calendar icon) with
    transformers' `sequence_bias`; everything else (template, parsing, tools, the phone, the reward) is as in use."""
    from trl import GRPOConfig, GRPOTrainer

    from mobile_r1.models import load_policy

    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    policy = load_policy("tiny-lm")
    tokenizer = use_tool_template(policy.tokenizer)
    call = '<tool_call>\n{"name": "click", "arguments": {"x": 156, "y": 980}}\n</tool_call><|im_end|>'
    ids = tokenizer(call, add_special_tokens=False)["input_ids"]
    made: list[PhoneToolEnv] = []
    factory = PhoneToolEnv.factory("sim", reward="score", max_steps=3)

    def environment() -> PhoneToolEnv:
        made.append(factory())
        return made[-1]

    ref = EpisodeRef.from_dict(json.loads(phone_dataset("nav-sim", "train", n=1)[0]["episode"]))
    from datasets import Dataset

    args = GRPOConfig(output_dir=str(tmp_path), max_steps=2, per_device_train_batch_size=2, num_generations=2,
                      max_completion_length=768, max_tool_calling_iterations=1, learning_rate=1e-5, logging_steps=1,
                      report_to="none", use_cpu=True, save_strategy="no", seed=0,
                      generation_kwargs={"sequence_bias": [[ids[: k + 1], 10.0 * (k + 1)] for k in range(len(ids))]})
    trainer = GRPOTrainer(model=policy.model, processing_class=tokenizer, args=args,
                          train_dataset=Dataset.from_list([episode_row(ref)]), environment_factory=environment)
    trainer.train()
    logs = [h for h in trainer.state.log_history if "tools/call_frequency" in h]
    assert trainer.state.global_step == 2 and len(logs) == 2
    assert all(h["tools/call_frequency"] > 0 and h["tools/failure_frequency"] == 0 for h in logs)
    assert all("rewards/PhoneToolEnv/mean" in h for h in logs)
    played = [e for e in made if e.phone is not None]
    assert played and all(e.phone.episode == ref and e.phone.steps >= 1 for e in played)
    assert any(e.observation.app == "Calendar" for e in played)
