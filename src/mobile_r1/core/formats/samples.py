"""Per-step training samples read back as episodes: our LLaMA-Factory ShareGPT export and our TRL export (and any file
in their layout), so `data stats`, `data convert` and `eval-offline` take what `data export` wrote.

Formats (`core.formats.export` writes them):

- `sharegpt`: LLaMA-Factory's ShareGPT with OpenAI-style tags, `{"messages": [{"role": "system" | "user" |
  "assistant", "content": str}], "images": [path, ...]}`, `<image>` tokens in the text;
- `trl`: TRL conversational rows, `{"prompt": [messages], "completion": [{"role": "assistant", ...}], "images":
  [...]}` or `{"messages": [...], "images": [...]}`, a content being a string or a list of `{"type": "text" |
  "image"}` parts. A `messages` row whose every content is a string has exactly the ShareGPT layout and is read
  as `sharegpt` (the same steps either way).

Each record is one labelled step; its last assistant message is the target. The action is read from the target's
first `<tool_call>` block (with `<think>` and `<action>` as thought and description), or from UI-TARS's
`Thought: ... Action: ...`. The instruction is read from the prompt as the dialects write it ("The user query:",
"## User Instruction", "用户任务:", "User task:" or "Task:"), else it is the first user turn's text. Coordinates are
those of the image the model saw (the exports write the model frame): the episode stays in the "model" frame, whose
size is the resolution the system prompt states (`The screen's resolution is WxH`), else the size of the step's last
image (PNG), else unknown (as for InquireMobile's SFT records). The last image of a record is the step's screenshot,
its path resolved inside the file's folder (or `--image-root`; see `core.formats.paths`).

Consecutive records of one instruction are one episode; a record whose prompt shows an empty history ("Task progress
...: None", "历史动作: " with nothing after it, "Past steps: (none)", no earlier assistant turn for UI-TARS) starts a
new one.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mobile_r1.core.dialects.toolcall import read_tool_call, tag_content
from mobile_r1.core.formats.export import IMAGE_TOKEN
from mobile_r1.core.formats.images import png_size
from mobile_r1.core.formats.jsonl import Where, iter_jsonl
from mobile_r1.core.formats.paths import DataRoots, resolve_data_path
from mobile_r1.core.records import Episode, Observation, Step

SHAREGPT, TRL = "sharegpt", "trl"
_INSTRUCTION = (
    re.compile(r"The user query:\s*(.+)"),
    re.compile(r"## User Instruction\s*\n\s*(.+)"),
    re.compile(r"(?:用户任务|User task|Task)\s*[:：]\s*(.+)"),
)
_RESOLUTION = re.compile(r"The screen's resolution is (\d+)\s*x\s*(\d+)")
_FIRST_STEP = (
    re.compile(r"Task progress \(You have done the following operation on the current device\):\s*None\s*$", re.M),
    re.compile(r"历史动作\s*[:：][ \t]*(?:\n|$)"),
    re.compile(r"Past steps:\s*\n\(none\)"),
)


def sample_format(record: dict[str, Any]) -> str | None:
    """`trl` or `sharegpt` when a record has the layout of one, else None."""
    if isinstance(record.get("prompt"), list) and isinstance(record.get("completion"), list):
        return TRL
    messages = record.get("messages")
    if isinstance(messages, list) and messages and all(isinstance(m, dict) and "role" in m for m in messages):
        return TRL if any(isinstance(m.get("content"), list) for m in messages) else SHAREGPT
    return None


def _text(content: Any, where: Where, field: str) -> str:
    """A message content as text, image parts as `<image>` tokens."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise where.error(field, f"must be a string or a list of parts, got {type(content).__name__}")
    parts = []
    for index, part in enumerate(content):
        if not isinstance(part, dict):
            raise where.error(f"{field}[{index}]", "each part must be an object with a 'type'")
        if part.get("type") == "image":
            parts.append(IMAGE_TOKEN)
        elif part.get("type") == "text":
            parts.append(str(part.get("text") or ""))
        else:
            raise where.error(f"{field}[{index}].type", f"must be text or image, got {part.get('type')!r}")
    return "".join(parts)


def _messages(record: dict[str, Any], where: Where) -> list[tuple[str, str]]:
    """(role, text) of every message, the completion last."""
    if "prompt" in record:
        raw = [*record["prompt"], *record["completion"]]
        names = [f"prompt[{i}]" for i in range(len(record["prompt"]))] + [
            f"completion[{i}]" for i in range(len(record["completion"]))]
    else:
        raw = record["messages"]
        names = [f"messages[{i}]" for i in range(len(raw))]
    out = []
    for message, name in zip(raw, names):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise where.error(name, "each message must be an object with a 'role' and a 'content'")
        out.append((message["role"], _text(message.get("content"), where, f"{name}.content")))
    if not out or out[-1][0] != "assistant":
        raise where.error(names[-1] if names else "messages", "the last message must be the assistant's target")
    return out


def _step(target: str, where: Where, field: str) -> tuple[Any, str, str]:
    """(action, thought, description) read from a target text."""
    if "<tool_call>" in target:
        read = read_tool_call(target)
        if read.action is None:
            raise where.error(field, f"the target's tool call cannot be read: {read.error}")
        return read.action, tag_content(target, "think") or "", tag_content(target, "action") or ""
    if "Action:" in target:
        from mobile_r1.core.dialects import get_dialect

        parsed = get_dialect("uitars").parse(target)
        if parsed.action is None:
            raise where.error(field, f"the target's UI-TARS action cannot be read: {parsed.error}")
        return parsed.action, parsed.thought or "", ""
    raise where.error(field, "the target holds neither a <tool_call> block nor a UI-TARS 'Action:' line")


def _instruction(texts: list[str]) -> str:
    for pattern in _INSTRUCTION:
        for text in texts:
            found = pattern.search(text)
            if found:
                return found.group(1).strip()
    return texts[0].replace(IMAGE_TOKEN, "").strip() if texts else ""


def load_samples(path: str | Path, *, image_root: str | Path | None = None, images: bool = True) -> list[Episode]:
    """Read per-step samples (ShareGPT `messages` or TRL rows; see the module docstring) into episodes."""
    path = Path(path)
    roots = DataRoots.beside(path, None, image_root) if images else None
    episodes: list[Episode] = []
    for where, record in iter_jsonl(path):
        kind = sample_format(record)
        if kind is None:
            raise where.problem("not a per-step sample: expected 'messages', or 'prompt' and 'completion'")
        messages = _messages(record, where)
        *prompt, (_, target) = messages
        action, thought, description = _step(target, where, "the assistant's target")
        system = "\n".join(text for role, text in prompt if role == "system")
        users = [text for role, text in prompt if role == "user"]
        instruction = _instruction([*users, system])
        shots = record.get("images") or []
        if not isinstance(shots, list) or not all(isinstance(s, str) for s in shots):
            raise where.error("images", f"must be a list of image paths, got {shots!r}")
        shot = resolve_data_path(shots[-1], roots, where, f"images[{len(shots) - 1}]") if shots and roots else None
        resolution = _RESOLUTION.search(system)
        size: tuple[int, int] | None = (int(resolution.group(1)), int(resolution.group(2))) if resolution else None
        if size is None and shot is not None and shot.is_file():
            with open(shot, "rb") as stream:
                size = png_size(stream.read(24))
        user_text = "\n".join(users)
        step = Step(action=action, thought=thought, description=description, model_text=target,
                    observation=Observation(screen_size=size, screenshot_path=str(shot) if shot else None)
                    if size is not None else None,
                    info={"prompt": user_text, "images": list(shots)})
        first = any(p.search(user_text) for p in _FIRST_STEP) or (
            "## User Instruction" in user_text and not any(role == "assistant" for role, _ in prompt))
        current = episodes[-1] if episodes else None
        if current is not None and not first and current.instruction == instruction and current.model_size == size:
            current.steps.append(step)
            continue
        episodes.append(Episode(id=f"{path.stem}-{where.line}", instruction=instruction, steps=[step], frame="model",
                                model_size=size, language="zh" if any("\u4e00" <= c <= "\u9fff" for c in instruction)
                                else "en", meta={"source": kind, "line": where.line, "system": system}))
    return episodes


__all__ = ["SHAREGPT", "TRL", "load_samples", "sample_format"]
