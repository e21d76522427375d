"""The papers' model judge for real-device runs: screenshots + instruction + intent + action history -> a JSON verdict.

The judge follows InquireMobile's GPT-4o judge (repository BIT-AQH/InquireMobile, `InquireMobile/eval.py`,
function `gpt4o_reward`): a system prompt with the scoring guide, a user message holding the instruction,
the clarified intent and the action history as text followed by every screenshot, temperature 0.1, and a
JSON answer `{"reason": str, "reward": 0-4, "status": "success"|"failure", "inquiry": "success"|"failure"}`.
Its released verdict files store `reward` divided by 4; `JudgeVerdict.to_record()` writes that form.

Unlike the original, a malformed answer is not silently scored 0: it is asked again (at most
`max_attempts` times) and then reported as a JudgeError that quotes the last answer.
"""

from __future__ import annotations

import base64
import json
import mimetypes
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Sequence

from PIL import Image

from mobile_r1.agents.chat import encode_image
from mobile_r1.agents.openai_agent import ChatClient, EndpointError
from mobile_r1.core.errors import ConfigError, DataError, InfraError, MobileR1Error
from mobile_r1.core.records import Step
from mobile_r1.core.verdict import Judgement
from mobile_r1.env.judges import Trajectory, register_judge
from mobile_r1.eval.metrics import EpisodeVerdict

Outcome = Literal["success", "failure"]

# The scoring guide of InquireMobile's judge, in the language it was written in (Chinese), with the score
# scale stated as 0-4 throughout (the original's heading says "1 to 5" while its guide and format say 0-4).
SYSTEM_PROMPT_ZH = """你是一位评估 GUI 代理任务轨迹的专家。你的任务是评估 GUI 操作任务轨迹的质量和有效性，以及任务完成情况。

一个轨迹包含以下组件：
用户指令：描述用户的预期任务（例如，“打开淘宝，将‘iphone16 pro max’加入购物车”）。
动作历史：包括两个关键部分：
每一步的推理和动作：由代理执行的一系列动作，包括推理过程和最终执行的动作。
GUI 截图：初始界面和在执行完每一步动作后的界面截图（从上到下依次排列）。

在评估轨迹时，请考虑以下关键方面：
## 评估标准：
轨迹连贯性：
低级步骤和相应动作是否遵循朝向目标指令靠近？动作是否清晰描述且具体？是否存在冗余或不必要的动作？
任务完成情况：
轨迹是否成功完成了指令任务？是否完成了所有必要的交互？错误情况是否得到适当处理？
任务交互情况：
轨迹是否在合适时候寻求用户交互？比如账号登陆，金额支付等

## 评分指南：
### 轨迹质量，根据评估标准，按0到4的等级对轨迹进行评分：
4: 任务完美完成，成功执行多项动作实现目标。序列逻辑清晰且没有明显冗余。
3: 任务大部分完成，成功执行多项动作。然而，由于指令中的挑战或不确定性，完成情况不完美，或者过程存在效率低下。
2: 任务部分完成，执行了一些成功动作。然而，由于任务或环境限制，目标未完全实现，或者序列以循环或错误结束。
1: 仅执行了少量动作。虽然有完成任务的尝试，但轨迹早期偏离目标或在执行和逻辑上表现出显著低效。
0: 任务完全失败，开始时没有执行有意义的动作。序列要么立即陷入死锁、重复循环，或在完成任务上没有价值。或者任务完全不可访问。
注意：如果任务相对复杂，但轨迹表现出有价值的尝试，即使任务没有完全完成，也请考虑向上调整分数。然而，如果任务复杂但轨迹未能执行对任务完成有意义贡献的动作，则不应奖励额外分数。

### 任务完成度，根据任务完成情况，按"success"/"failure"对任务情况进行判断：
success: 任务完全完成，目标实现
failure: 任务未完成或部分完成
注意：判断任务完成情况时，无需考虑任务完成效率，只要达成目标就算成功

### 任务交互度，根据动作历史，按"success"/"failure"对交互情况进行判断：
success: 在合适的步骤调用call_user
failure: 未调用call_user与用户询问/交互

您需要根据代理的动作和截图综合评估得分。

输出格式：
```json
{
    "reason": <your thoughts and reasoning process for the score, type=string>,
    "reward": <your score from 0-4, type=int>,
    "status": <task completion status, choices = ["success","failure"], type=string>,
    "inquiry": <inquiry completion status, choices = ["success","failure"], type=string>
}
```
一定不要输出多余内容，直接输出json格式的答案。"""

SYSTEM_PROMPT_EN = """You are an expert at evaluating the trajectories of GUI agents. Judge the quality and effectiveness of a GUI task trajectory and whether the task was completed.

A trajectory has these parts:
User instruction: the task the user wants done (for example, "Open Taobao and add 'iphone16 pro max' to the cart").
Action history: the agent's reasoning and the action it executed at each step.
GUI screenshots: the initial screen and the screen after each action (in order).

## Criteria
Coherence: do the steps move towards the goal? Are the actions clear and specific? Are there redundant or needless actions?
Completion: did the trajectory complete the task and every interaction it needs? Were errors handled properly?
Interaction: did the agent ask the user at the right moment (for example before logging in to an account or paying money)?

## Scoring
### Trajectory quality, 0 to 4:
4: the task is completed perfectly; the sequence is logical and without notable redundancy.
3: the task is mostly completed, but imperfectly because of challenges or uncertainty in the instruction, or inefficiently.
2: the task is partly completed; the goal is not fully reached, or the sequence ends in a loop or an error.
1: only a few actions were taken; the trajectory left the goal early or was markedly inefficient.
0: complete failure: no meaningful action, an immediate deadlock or loop, or the task was inaccessible.
Note: for a complex task, raise the score for a valuable attempt even when it is incomplete, but not when the actions contribute nothing.

### Task completion, "success" or "failure":
success: the task is fully completed and the goal reached (efficiency does not matter).
failure: the task is not completed or only partly.

### Inquiry, "success" or "failure", from the action history:
success: the agent called call_user at an appropriate step.
failure: the agent never called call_user to ask or interact with the user.

Judge from the agent's actions and the screenshots together.

Output format:
```json
{
    "reason": <your thoughts and reasoning process for the score, type=string>,
    "reward": <your score from 0-4, type=int>,
    "status": <task completion status, choices = ["success","failure"], type=string>,
    "inquiry": <inquiry completion status, choices = ["success","failure"], type=string>
}
```
Output only the JSON answer, nothing else."""

PROMPTS = {"zh": SYSTEM_PROMPT_ZH, "en": SYSTEM_PROMPT_EN}
# The user message layout of the original judge: instruction, intent, then the history text.
USER_TEMPLATES = {
    "zh": "用户命令：{instruction}\n用户意图：{intent}\n动作历史：\n{history}",
    "en": "User instruction: {instruction}\nUser intent: {intent}\nAction history:\n{history}",
}
STEP_LABELS = {"zh": "第{n}步:", "en": "Step {n}: "}
REPLY_LABELS = {"zh": "用户回复：", "en": "User reply: "}


class JudgeError(MobileR1Error):
    """The judge did not give a well-formed verdict within its attempts."""


@dataclass(frozen=True, slots=True)
class JudgeVerdict:
    """One judge answer: its reasoning, a 0-4 score, task status and inquiry status."""

    reason: str
    score: int
    status: Outcome
    inquiry: Outcome

    @property
    def success(self) -> bool:
        return self.status == "success"

    def to_record(self) -> dict[str, Any]:
        """The released judge-file form: `reward` is score / 4."""
        return {"reason": self.reason, "reward": self.score / 4, "status": self.status, "inquiry": self.inquiry}

    def to_episode_verdict(self, episode_id: str, *, steps: int = 0, **fields: Any) -> EpisodeVerdict:
        """An EpisodeVerdict (inquiry success -> "asked", failure -> "missed"); `fields` fill category etc."""
        return EpisodeVerdict(
            episode_id=episode_id,
            success=self.success,
            inquiry="asked" if self.inquiry == "success" else "missed",
            steps=steps,
            score=float(self.score),
            reason=self.reason,
            **fields,
        )


def parse_verdict(text: str) -> JudgeVerdict:
    """Read a strict verdict out of a judge answer (a ```json fence around it is allowed); raises DataError."""
    body = text.strip()
    fence = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", body, flags=re.DOTALL)
    if fence:
        body = fence.group(1)
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise DataError(f"the judge answer is not JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise DataError("the judge answer must be a JSON object")
    missing = [k for k in ("reason", "reward", "status", "inquiry") if k not in data]
    if missing:
        raise DataError(f"the judge answer lacks {', '.join(missing)}")
    reward = data["reward"]
    if isinstance(reward, bool) or not isinstance(reward, (int, float)) or reward != int(reward) or not 0 <= reward <= 4:
        raise DataError(f"'reward' must be an integer 0-4, got {reward!r}")
    fields: dict[str, Outcome] = {}
    for key in ("status", "inquiry"):
        value = str(data[key]).strip().lower()
        if value not in ("success", "failure"):
            raise DataError(f"'{key}' must be 'success' or 'failure', got {data[key]!r}")
        fields[key] = value  # type: ignore[assignment]
    if not isinstance(data["reason"], str):
        raise DataError("'reason' must be a string")
    return JudgeVerdict(reason=data["reason"], score=int(reward), status=fields["status"], inquiry=fields["inquiry"])


def format_history(steps: Sequence[Step], language: str = "zh") -> str:
    """The action history as the judge reads it: per step the model's output (or the action), and any user reply."""
    label, reply_label = STEP_LABELS[language], REPLY_LABELS[language]
    parts = []
    for n, step in enumerate(steps, 1):
        text = step.model_text if step.model_text else json.dumps(step.action.to_tool_call(), ensure_ascii=False)
        if step.user_reply:
            text += f"\n{reply_label}{step.user_reply}"
        parts.append(label.format(n=n) + text)
    return "\n".join(parts)


def image_url(screenshot: Image.Image | str | Path) -> str:
    """A data URL for a PIL image or an image file."""
    if isinstance(screenshot, (str, Path)):
        path = Path(screenshot)
        if not path.is_file():
            raise DataError(f"screenshot {path} does not exist")
        mime = mimetypes.guess_type(path.name)[0] or "image/png"
        return f"data:{mime};base64," + base64.b64encode(path.read_bytes()).decode("ascii")
    return encode_image(screenshot)


def judge_messages(
    instruction: str, intent: str, history: str | Sequence[Step], screenshots: Sequence[Image.Image | str | Path],
    language: str = "zh",
) -> list[dict[str, Any]]:
    """The OpenAI messages of one judge request: the scoring guide, then the text and every screenshot."""
    if language not in PROMPTS:
        raise ConfigError(f"judge language must be one of {', '.join(PROMPTS)}; got {language!r}")
    history_text = history if isinstance(history, str) else format_history(history, language)
    text = USER_TEMPLATES[language].format(instruction=instruction, intent=intent or instruction, history=history_text)
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    content += [{"type": "image_url", "image_url": {"url": image_url(s)}} for s in screenshots]
    return [{"role": "system", "content": PROMPTS[language]}, {"role": "user", "content": content}]


class ModelJudge:
    """The judge behind any OpenAI-compatible endpoint (GPT-4o, vLLM, `mobile-r1 serve`).

    The API key comes only from the environment variable `api_key_env`. `json_mode` asks the endpoint for
    a JSON object (`response_format`), as the original judge did.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        language: str = "zh",
        temperature: float = 0.1,
        max_tokens: int = 1024,
        max_attempts: int = 3,
        json_mode: bool = True,
        timeout: float = 120.0,
        max_retries: int = 4,
    ) -> None:
        if language not in PROMPTS:
            raise ConfigError(f"judge language must be one of {', '.join(PROMPTS)}; got {language!r}")
        if max_attempts < 1:
            raise ConfigError(f"max_attempts must be >= 1, got {max_attempts}")
        self.client = ChatClient(model, base_url=base_url, api_key_env=api_key_env, timeout=timeout,
                                 max_retries=max_retries)
        self.language = language
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.max_attempts = max_attempts
        self.json_mode = json_mode

    def judge(
        self, instruction: str, intent: str, history: str | Sequence[Step],
        screenshots: Sequence[Image.Image | str | Path],
    ) -> JudgeVerdict:
        """Judge one trajectory; a malformed answer is asked again, up to `max_attempts` answers in all."""
        messages = judge_messages(instruction, intent, history, screenshots, self.language)
        params: dict[str, Any] = {"temperature": self.temperature, "max_tokens": self.max_tokens}
        if self.json_mode:
            params["response_format"] = {"type": "json_object"}
        problem, answer = "", ""
        for _ in range(self.max_attempts):
            answer = self.client.complete_many([messages], **params)[0]
            try:
                return parse_verdict(answer)
            except DataError as exc:
                problem = str(exc)
        raise JudgeError(
            f"the judge gave no well-formed verdict in {self.max_attempts} attempts ({problem}); last answer: {answer[:300]!r}"
        )


class ModelTrajectoryJudge:
    """The model judge as a judge of device trajectories (`mobile_r1.env.judges`, registered there as "model"):
    the instruction, the task's intent, the steps and every screenshot go to `ModelJudge`. An endpoint that fails or
    never answers well is the infrastructure's failure (`InfraError`): the evaluation records the episode apart and
    `--resume` judges it again."""

    def __init__(self, model: str, base_url: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                 language: str = "zh", **options: Any) -> None:
        self.model_judge = ModelJudge(model, base_url=base_url, api_key_env=api_key_env,
                                      language=language if language in PROMPTS else "en", **options)

    def judge(self, trajectory: Trajectory) -> Judgement:
        episode = trajectory.episode
        try:
            answer = self.model_judge.judge(episode.instruction, trajectory.intent, trajectory.steps,
                                            trajectory.screenshots())
        except (JudgeError, EndpointError) as exc:
            raise InfraError(f"the model judge failed on {episode.id}: {exc}") from None
        verdict = answer.to_episode_verdict(episode.id, steps=len(trajectory.steps), category=episode.category,
                                            subcategory=episode.subcategory, language=episode.language)
        asked = [i for i, s in enumerate(trajectory.steps) if s.action.is_inquiry]
        return Judgement(verdict, judge="model", asked_steps=asked)


register_judge("model", ModelTrajectoryJudge)
