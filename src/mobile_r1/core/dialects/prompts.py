"""The prompt templates of each dialect, kept as data, each with the public source it reproduces.

Strings marked "verbatim" are copied character for character from the named source (released training data,
official notebooks) because released checkpoints were trained on exactly that text, typos and stray escapes
included. Strings marked "reconstructed" are our closest faithful version where the original is not public.
"""

from __future__ import annotations

import json
from typing import Any

from mobile_r1.core.actions import TOOL_NAME, ActionType

# ----------------------------------------------------------------------------------------------------------
# Qwen-Agent "Nous" function-calling template.
# Source (verbatim): QwenLM/Qwen-Agent, qwen_agent/llm/fncall_prompts/nous_fncall_prompt.py, FN_CALL_TEMPLATE;
# `preprocess_fncall_messages` appends it to an existing system message after "\n\n". Each tool is listed as
# `json.dumps({"type": "function", "function": tool}, ensure_ascii=False)`, one per line.
# ----------------------------------------------------------------------------------------------------------
NOUS_FN_CALL_TEMPLATE = """# Tools

You may call one or more functions to assist with the user query.

You are provided with function signatures within <tools></tools> XML tags:
<tools>
{tool_descs}
</tools>

For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
<tool_call>
{{"name": <function-name>, "arguments": <args-json-object>}}
</tool_call>"""

# The system message the Qwen2.5-VL cookbook starts from before the tool block is appended.
# Source (verbatim): QwenLM/Qwen2.5-VL cookbooks/mobile_agent.ipynb (printed prompt of the English example).
QWEN_BASE_SYSTEM = "You are a helpful assistant."

# ----------------------------------------------------------------------------------------------------------
# The `mobile_use` tool. Source (verbatim): QwenLM/Qwen2.5-VL cookbooks/utils/agent_function_call.py, class
# MobileUse (description, parameters) and Qwen-Agent BaseTool.function (name_for_human, name, description,
# parameters, args_format = "Format the arguments as a JSON object."). InquireMobile's full tool
# (BIT-AQH/InquireMobile InquireMobile/prompt/train.txt) is the same object without `open`, with `call_user`
# and a `content` parameter; `tool_function` builds either from the list of offered actions.
# ----------------------------------------------------------------------------------------------------------
TOOL_DESCRIPTION = """Use a touchscreen to interact with a mobile device, and take screenshots.
* This is an interface to a mobile device with touchscreen. You can perform actions like clicking, typing, swiping, etc.
* Some applications may take time to start or process actions, so you may need to wait and take successive screenshots to see the results of your actions.
* The screen's resolution is {resolution}.
* Make sure to click any buttons, links, icons, etc with the cursor tip in the center of the element. Don't click boxes on their edges unless asked."""

ACTION_LINES: dict[ActionType, str] = {
    ActionType.KEY: (
        "* `key`: Perform a key event on the mobile device.\n"
        "    - This supports adb's `keyevent` syntax.\n"
        '    - Examples: "volume_up", "volume_down", "power", "camera", "clear".'
    ),
    ActionType.CLICK: "* `click`: Click the point on the screen with coordinate (x, y).",
    ActionType.LONG_PRESS: "* `long_press`: Press the point on the screen with coordinate (x, y) for specified seconds.",
    ActionType.SWIPE: (
        "* `swipe`: Swipe from the starting point with coordinate (x, y) to the end point with coordinates2 (x2, y2)."
    ),
    ActionType.TYPE: "* `type`: Input the specified text into the activated input box.",
    ActionType.SYSTEM_BUTTON: "* `system_button`: Press the system button.",
    ActionType.OPEN: "* `open`: Open an app on the device.",
    ActionType.WAIT: "* `wait`: Wait specified seconds for the change to happen.",
    ActionType.TERMINATE: "* `terminate`: Terminate the current task and report its completion status.",
    ActionType.CALL_USER: "* `call_user`: Request user intervention with provided content.",
    # Not in the official cookbook; wording from Qwen's AndroidWorld variant of the tool.
    ActionType.ANSWER: "* `answer`: Output the answer.",
}


def tool_function(actions: tuple[ActionType, ...], resolution: str) -> dict[str, Any]:
    """The `mobile_use` function object (Qwen-Agent `BaseTool.function`) offering `actions`, keys in source order."""
    text_users = [f"`action={a.value}`" for a in (ActionType.KEY, ActionType.TYPE, ActionType.OPEN, ActionType.ANSWER)
                  if a in actions]
    if len(text_users) > 2:
        text_required = "Required only by " + ", ".join(text_users[:-1]) + ", and " + text_users[-1] + "."
    else:
        text_required = "Required only by " + ", ".join(text_users) + "."
    properties: dict[str, Any] = {
        "action": {
            "description": "The action to perform. The available actions are:\n"
            + "\n".join(ACTION_LINES[a] for a in actions),
            "enum": [a.value for a in actions],
            "type": "string",
        },
        "coordinate": {
            "description": "(x, y): The x (pixels from the left edge) and y (pixels from the top edge) coordinates to "
            "move the mouse to. Required only by `action=click`, `action=long_press`, and `action=swipe`.",
            "type": "array",
        },
        "coordinate2": {
            "description": "(x, y): The x (pixels from the left edge) and y (pixels from the top edge) coordinates to "
            "move the mouse to. Required only by `action=swipe`.",
            "type": "array",
        },
        "text": {"description": text_required, "type": "string"},
    }
    if ActionType.CALL_USER in actions:
        properties["content"] = {"description": "Required only by `action=call_user`.", "type": "string"}
    properties["time"] = {
        "description": "The seconds to wait. Required only by `action=long_press` and `action=wait`.",
        "type": "number",
    }
    properties["button"] = {
        "description": "Back means returning to the previous interface, Home means returning to the desktop, Menu "
        "means opening the application background menu, and Enter means pressing the enter. Required only by "
        "`action=system_button`",
        "enum": ["Back", "Home", "Menu", "Enter"],
        "type": "string",
    }
    properties["status"] = {
        "description": "The status of the task. Required only by `action=terminate`.",
        "type": "string",
        "enum": ["success", "failure"],
    }
    return {
        "name_for_human": TOOL_NAME,
        "name": TOOL_NAME,
        "description": TOOL_DESCRIPTION.format(resolution=resolution),
        "parameters": {"properties": properties, "required": ["action"], "type": "object"},
        "args_format": "Format the arguments as a JSON object.",
    }


def nous_system_prompt(base: str, functions: list[dict[str, Any]]) -> str:
    """What Qwen-Agent's NousFnCallPrompt makes of a system message `base` and the given tool functions."""
    tool_descs = "\n".join(json.dumps({"type": "function", "function": f}, ensure_ascii=False) for f in functions)
    tools = NOUS_FN_CALL_TEMPLATE.format(tool_descs=tool_descs)
    return f"{base}\n\n{tools}" if base else tools


# Qwen2.5-VL user turn. Source (verbatim wording): Qwen2.5-VL cookbook mobile_agent.ipynb and Qwen's
# AndroidWorld agent (mobile_agent_utils): "The user query: ...", then the task progress as
# "Step 1: <tool call json>; Step 2: ...; ", "None" when there is no history yet. The screenshot follows.
QWEN_USER_TEMPLATE = (
    "The user query: {instruction}\n"
    "Task progress (You have done the following operation on the current device): {history}"
)
QWEN_HISTORY_STEP = "Step {index}: {call}; "
QWEN_NO_HISTORY = "None"
# Ours (Qwen2.5-VL has no call_user): the human's answer to an earlier call_user, inside the task progress.
QWEN_USER_REPLY = "User reply: {reply}; "

# ----------------------------------------------------------------------------------------------------------
# InquireMobile. Source (verbatim): BIT-AQH/InquireMobile InquireMobile/data/interactive_sft.jsonl, the
# "system" turn of every SFT sample. Note the doubled braces (an unformatted template) and the line break
# inside the tool JSON: the released SFT data contains them, so the released checkpoints saw them.
# ----------------------------------------------------------------------------------------------------------
INQUIRE_SFT_SYSTEM = (
    "You are a mobile GUI agent. You are given a task and your action history, with the current screenshot and "
    "the previous state preceding the last action. You need to perform the next action to complete the task.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n\n<tools>\n"
    '{{"type": "function", "function": {{"name_for_human": "mobile_use", "name": \n"mobile_use", '
    '"description": "Use a touchscreen to interact with a mobile device."}}}}\n</tools>\n\n'
    "For each function call, return a json object with function name and arguments within "
    "<tool_call></tool_call> XML tags:\n\n<tool_call>\n"
    '{{"name": <function-name>, "arguments": <args-json-object>}}\n</tool_call>\n\n'
    "在标签<think> </think>内输出思考过程。\n"
    "在标签<tool_call> </tool_call>内输出最终答案。\n"
)

# The "human" turn of the SFT samples (verbatim, same file). History is the one-line descriptions of the
# earlier steps concatenated with no separator; "上一步屏幕截图" (previous screenshot) appears from step 2 on.
INQUIRE_SFT_USER_HEAD = "分析任务和历史动作，给出下一步操作。\n用户任务: {instruction}\n历史动作: {history}\n"
PREVIOUS_SCREEN_LABEL = "上一步屏幕截图:\n"
CURRENT_SCREEN_LABEL = "当前屏幕截图:\n"

# GRPO variant. Source (verbatim): BIT-AQH/InquireMobile InquireMobile/data/interactive_grpo.jsonl, fields
# "system" and "query". The Markdown escapes (`\_`) are in the released data.
INQUIRE_GRPO_SYSTEM = (
    "You are a mobile GUI agent. You are given a task and your action history, with the current screenshot and "
    "the previous state preceding the last action. You need to perform the next action to complete the task.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n\n<tools>\n"
    '{{"type": "function", "function": {{"name\\_for\\_human": "mobile\\_use", "name": \n"mobile\\_use", '
    '"description": "Use a touchscreen to interact with a mobile device."}}}}\n</tools>\n\n'
    "For each function call, return a json object with function name and arguments within "
    "<tool\\_call></tool\\_call> XML tags:\n\n<tool\\_call>\n"
    '{{"name": <function-name>, "arguments": <args-json-object>}}\n</tool\\_call>\n'
)
INQUIRE_GRPO_USER_HEAD = (
    "分析任务和历史动作，给出下一步操作。\n在标签<think> </think>内输出思考过程。\n"
    "在标签<tool\\_call> </tool\\_call>内输出最终答案。\n\n用户任务: {instruction}\n历史动作: {history}\n"
)

# Full-tool variant. Source (verbatim): BIT-AQH/InquireMobile InquireMobile/prompt/train.txt: the same head,
# the complete tool JSON (indent 2) and the two Chinese lines. The released file says "The screen's resolution
# is x." (empty width and height); we write the model frame there when it is known.
INQUIRE_FULL_HEAD = (
    "You are a mobile GUI agent. You are given a task and your action history, with the current screenshot and "
    "the previous state preceding the last action. You need to perform the next action to complete the task.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n\n<tools>\n"
)
INQUIRE_FULL_TAIL = (
    "\n</tools>\nFor each function call, return a json object with function name and arguments within "
    "<tool_call></tool_call> XML tags:\n\n<tool_call>\n"
    '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>\n\n'
    "在标签<think> </think>内输出思考过程。\n"
    "在标签<tool_call> </tool_call>内输出最终答案。\n"
)

# Evaluation variant: the prompt behind the published InquireBench numbers. Source (verbatim):
# BIT-AQH/InquireMobile InquireMobile/eval.py, perform_rollout SYSTEM_PROMPT (a triple-quoted string indented
# inside the function, so its lines carry four spaces; `.format` turns the doubled braces into single ones).
# The task goes into the system message; the user turns carry only screenshots; the previous model output is
# an assistant turn and older outputs are one assistant turn "这是历史轨迹：第1步:...第2步:...".
INQUIRE_EVAL_SYSTEM = (
    "You are a mobile GUI agent. You are given a task and your action history, with the current screenshot and "
    "the previous state preceding the last action. You need to perform the next action to complete the task.\n\n"
    "    You are provided with function signatures within <tools></tools> XML tags:\n"
    "    <tools>\n"
    '    {{"type": "function", "function": {{"name_for_human": "mobile_use", "name": "mobile_use", '
    '"description": "Use a touchscreen to interact with a mobile device."}}}}\n'
    "    </tools>\n\n"
    "    For each function call, return a json object with function name and arguments within "
    "<tool_call></tool_call> XML tags:\n"
    "    <tool_call>\n"
    '    {{"name": <function-name>, "arguments": <args-json-object>}}\n'
    "    </tool_call>\n\n"
    "    分析任务和历史动作，给出下一步操作。\n"
    "    在标签<think> </think>内输出思考过程。\n"
    "    在标签<tool_call> </tool_call>内输出最终答案。\n\n"
    "    用户任务: {instruction}"
)
INQUIRE_EVAL_HISTORY = "这是历史轨迹：{history}"
INQUIRE_EVAL_HISTORY_STEP = "第{index}步:{text}"

# How the human's answer to a call_user is added to the history. Source: InquireMobile eval.py appends
# "经过与用户交互，得到用户反馈，" + reply to the history of the step that asked (its simulated reply is
# "{intent}确认执行，请直接执行任务。").
INQUIRE_USER_REPLY = "经过与用户交互，得到用户反馈，{reply}"

# ----------------------------------------------------------------------------------------------------------
# Mobile-R1 (reconstructed). The paper's code is not public. Mobile-R1 and InquireMobile share authors and
# code: InquireMobile's eval.py keeps the Mobile-R1 line commented out right under its prompt
# ("# 在标签<action> </action>内输出这一步将要执行的动作。"). We therefore use the InquireMobile SFT prompt
# with that line added in output order (think, action, tool_call), the Qwen action space (with `open`, no
# `call_user`), and the same user turn (history = the earlier steps' one-line `subtask` descriptions).
# ----------------------------------------------------------------------------------------------------------
MOBILE_R1_SYSTEM = INQUIRE_SFT_SYSTEM.replace(
    "在标签<tool_call> </tool_call>内输出最终答案。\n",
    "在标签<action> </action>内输出这一步将要执行的动作。\n在标签<tool_call> </tool_call>内输出最终答案。\n",
)

# ----------------------------------------------------------------------------------------------------------
# UI-TARS mobile prompt. Source (verbatim): the UI-TARS mobile prompt with `start_box` points as published in
# bytedance/UI-TARS (README, mobile template; the same text as codes/ui_tars/prompt.py MOBILE_USE_DOUBAO but
# with `start_box='<|box_start|>(x1,y1)<|box_end|>'` instead of `point='<point>x1 y1</point>'`). It is the
# first user turn; the system turn is "You are a helpful assistant.".
# The optional call_user line is UI-TARS's own, from its computer-use prompt (COMPUTER_USE_DOUBAO).
# ----------------------------------------------------------------------------------------------------------
UITARS_MOBILE_PROMPT = (
    "You are a GUI agent. You are given a task and your action history, with screenshots. You need to perform "
    "the next action to complete the task. \n"
    "## Output Format\n```\nThought: ...\nAction: ...\n```\n"
    "## Action Space\n\n"
    "click(start_box='<|box_start|>(x1,y1)<|box_end|>')\n"
    "long_press(start_box='<|box_start|>(x1,y1)<|box_end|>')\n"
    "type(content='') #If you want to submit your input, use \"\\n\" at the end of `content`.\n"
    "scroll(start_box='<|box_start|>(x1,y1)<|box_end|>', direction='down or up or right or left')\n"
    "open_app(app_name='')\n"
    "drag(start_box='<|box_start|>(x1,y1)<|box_end|>', end_box='<|box_start|>(x3,y3)<|box_end|>')\n"
    "press_home()\n"
    "press_back()\n"
    "finished(content='xxx') # Use escape characters \\', \\\", and \\n in content part to ensure we can parse "
    "the content in normal python string format.\n"
    "{extra_actions}"
    "\n\n## Note\n"
    "- Use {language} in `Thought` part.\n"
    "- Write a small plan and finally summarize your next action (with its target element) in one sentence in "
    "`Thought` part.\n\n"
    "## User Instruction\n{instruction}\n"
)
UITARS_CALL_USER_LINE = (
    "call_user() # Submit the task and call the user when the task is unsolvable, or when you need the user's help.\n"
)
UITARS_SYSTEM = "You are a helpful assistant."
