"""Exact prompt strings of every dialect on a fixed example, checked against the public sources they reproduce.

The expected strings are copied from the released files (JSON-escaped where the source is JSON) so that any
change to a prompt template is caught.
"""

from __future__ import annotations

import json

import pytest

from mobile_r1.core import Action, ConfigError, Frame
from mobile_r1.core.dialects import InquireDialect, UITarsDialect, get_dialect
from mobile_r1.core.records import Observation, Step


def as_template(content: object) -> str:
    """A message content with every image placeholder written as `<image>` (LLaMA-Factory's marker)."""
    if isinstance(content, str):
        return content
    assert isinstance(content, list)
    return "".join("<image>" if item["type"] == "image" else item["text"] for item in content)


def j(escaped: str) -> str:
    """Decode a JSON string body copied from a released .jsonl / .ipynb file."""
    return json.loads('"' + escaped + '"')


SCREEN = Observation(screen_size=(1080, 2400))
TASK = "打开小红书，搜索manus，给第二个笔记点赞。"
HISTORY = [Step(action=Action.click(85, 537), description="打开小红书应用。", observation=SCREEN)]

# ----- Qwen2.5-VL: QwenLM/Qwen2.5-VL cookbooks/mobile_agent.ipynb, printed prompt of the English example ----
QWEN_TOOL_LINE = (
    r'{"type": "function", "function": {"name_for_human": "mobile_use", "name": "mobile_use", "description": '
    r'"Use a touchscreen to interact with a mobile device, and take screenshots.\n* This is an interface to a '
    r"mobile device with touchscreen. You can perform actions like clicking, typing, swiping, etc.\n* Some "
    r"applications may take time to start or process actions, so you may need to wait and take successive "
    r"screenshots to see the results of your actions.\n* The screen's resolution is 1092x2408.\n* Make sure to "
    r"click any buttons, links, icons, etc with the cursor tip in the center of the element. Don't click boxes "
    r'on their edges unless asked.", "parameters": {"properties": {"action": {"description": "The action to '
    r"perform. The available actions are:\n* `key`: Perform a key event on the mobile device.\n    - This "
    r"supports adb's `keyevent` syntax.\n    - Examples: \"volume_up\", \"volume_down\", \"power\", "
    r'\"camera\", \"clear\".\n* `click`: Click the point on the screen with coordinate (x, y).\n* '
    r"`long_press`: Press the point on the screen with coordinate (x, y) for specified seconds.\n* `swipe`: "
    r"Swipe from the starting point with coordinate (x, y) to the end point with coordinates2 (x2, y2).\n* "
    r"`type`: Input the specified text into the activated input box.\n* `system_button`: Press the system "
    r"button.\n* `open`: Open an app on the device.\n* `wait`: Wait specified seconds for the change to "
    r'happen.\n* `terminate`: Terminate the current task and report its completion status.", "enum": ["key", '
    r'"click", "long_press", "swipe", "type", "system_button", "open", "wait", "terminate"], "type": "string"}, '
    r'"coordinate": {"description": "(x, y): The x (pixels from the left edge) and y (pixels from the top edge) '
    r"coordinates to move the mouse to. Required only by `action=click`, `action=long_press`, and "
    r'`action=swipe`.", "type": "array"}, "coordinate2": {"description": "(x, y): The x (pixels from the left '
    r"edge) and y (pixels from the top edge) coordinates to move the mouse to. Required only by "
    r'`action=swipe`.", "type": "array"}, "text": {"description": "Required only by `action=key`, '
    r'`action=type`, and `action=open`.", "type": "string"}, "time": {"description": "The seconds to wait. '
    r'Required only by `action=long_press` and `action=wait`.", "type": "number"}, "button": {"description": '
    r'"Back means returning to the previous interface, Home means returning to the desktop, Menu means opening '
    r"the application background menu, and Enter means pressing the enter. Required only by "
    r'`action=system_button`", "enum": ["Back", "Home", "Menu", "Enter"], "type": "string"}, "status": '
    r'{"description": "The status of the task. Required only by `action=terminate`.", "type": "string", "enum": '
    r'["success", "failure"]}}, "required": ["action"], "type": "object"}, "args_format": "Format the arguments '
    r'as a JSON object."}}'
)
QWEN_SYSTEM = (
    "You are a helpful assistant.\n\n# Tools\n\nYou may call one or more functions to assist with the user "
    "query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
    + QWEN_TOOL_LINE
    + "\n</tools>\n\nFor each function call, return a json object with function name and arguments within "
    "<tool_call></tool_call> XML tags:\n<tool_call>\n"
    '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
)


def test_qwen_system_prompt_is_the_cookbook_one() -> None:
    assert get_dialect("qwen2.5vl").system_prompt(Frame(1092, 2408)) == QWEN_SYSTEM


def test_qwen_messages() -> None:
    messages = get_dialect("qwen2.5vl").build_messages(
        "Open the file manager app", SCREEN, [Step(action=Action.open("File Manager"))]
    )
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"] == QWEN_SYSTEM  # the frame defaults to Frame.qwen(1080, 2400) = 1092x2408
    assert as_template(messages[1]["content"]) == (
        "The user query: Open the file manager app\nTask progress (You have done the following operation on the "
        'current device): Step 1: {"name": "mobile_use", "arguments": {"action": "open", "text": "File Manager"}}; '
        "<image>"
    )
    first = get_dialect("qwen2.5vl").build_messages("Open it", SCREEN)
    assert as_template(first[1]["content"]).endswith("on the current device): None<image>")


def test_qwen_needs_a_frame_for_its_resolution_sentence() -> None:
    with pytest.raises(ConfigError, match="model_frame"):
        get_dialect("qwen2.5vl").system_prompt()


def test_qwen_render_is_the_bare_tool_call() -> None:
    assert get_dialect("qwen2.5vl").render(Action.click(935, 406), thought="ignored") == (
        '<tool_call>\n{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [935, 406]}}\n</tool_call>'
    )


# ----- InquireMobile: BIT-AQH/InquireMobile InquireMobile/data/interactive_sft.jsonl (second sample) ---------
INQUIRE_SFT_SYSTEM = j(
    r"You are a mobile GUI agent. You are given a task and your action history, with the current screenshot and "
    r"the previous state preceding the last action. You need to perform the next action to complete the task.\n\n"
    r"You are provided with function signatures within <tools></tools> XML tags:\n\n<tools>\n{{\"type\": "
    r"\"function\", \"function\": {{\"name_for_human\": \"mobile_use\", \"name\": \n\"mobile_use\", "
    r"\"description\": \"Use a touchscreen to interact with a mobile device.\"}}}}\n</tools>\n\nFor each function "
    r"call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n\n"
    r"<tool_call>\n{{\"name\": <function-name>, \"arguments\": <args-json-object>}}\n</tool_call>\n\n"
    r"在标签<think> </think>内输出思考过程。\n在标签<tool_call> </tool_call>内输出最终答案。\n"
)
INQUIRE_SFT_HUMAN = j(
    r"分析任务和历史动作，给出下一步操作。\n用户任务: 打开小红书，搜索manus，给第二个笔记点赞。\n历史动作: "
    r"打开小红书应用。\n上一步屏幕截图:\n<image>\n当前屏幕截图:\n<image>\n"
)
INQUIRE_SFT_GPT = j(
    r"<think>\n当前在小红书主页面，下一步需进入小红书搜索页面\n</think>\n<tool_call>\n{\"name\": \"mobile_use\", "
    r"\"arguments\": {\"action\": \"click\", \"coordinate\": [675, 89]}}\n</tool_call>"
)


def test_inquire_sft_prompt_is_the_released_one() -> None:
    messages = get_dialect("inquire").build_messages(TASK, SCREEN, HISTORY)
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"] == INQUIRE_SFT_SYSTEM
    assert as_template(messages[1]["content"]) == INQUIRE_SFT_HUMAN
    first = get_dialect("inquire").build_messages(TASK, SCREEN)
    assert as_template(first[1]["content"]) == j(
        r"分析任务和历史动作，给出下一步操作。\n用户任务: 打开小红书，搜索manus，给第二个笔记点赞。\n历史动作: \n"
        r"当前屏幕截图:\n<image>\n"
    )


def test_inquire_render_is_the_released_target() -> None:
    action = Action.click(675, 89)
    assert get_dialect("inquire").render(action, thought="当前在小红书主页面，下一步需进入小红书搜索页面") == INQUIRE_SFT_GPT


def test_inquire_grpo_prompt_is_the_released_one() -> None:
    # BIT-AQH/InquireMobile InquireMobile/data/interactive_grpo.jsonl, second sample: "system" and "query".
    messages = InquireDialect(prompt="grpo").build_messages(TASK, SCREEN, HISTORY)
    assert messages[0]["content"] == j(
        r"You are a mobile GUI agent. You are given a task and your action history, with the current screenshot "
        r"and the previous state preceding the last action. You need to perform the next action to complete the "
        r"task.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n\n<tools>\n"
        r"{{\"type\": \"function\", \"function\": {{\"name\\_for\\_human\": \"mobile\\_use\", \"name\": \n"
        r"\"mobile\\_use\", \"description\": \"Use a touchscreen to interact with a mobile device.\"}}}}\n</tools>"
        r"\n\nFor each function call, return a json object with function name and arguments within "
        r"<tool\\_call></tool\\_call> XML tags:\n\n<tool\\_call>\n{{\"name\": <function-name>, \"arguments\": "
        r"<args-json-object>}}\n</tool\\_call>\n"
    )
    assert as_template(messages[1]["content"]) == j(
        r"分析任务和历史动作，给出下一步操作。\n在标签<think> </think>内输出思考过程。\n在标签<tool\\_call> "
        r"</tool\\_call>内输出最终答案。\n\n用户任务: 打开小红书，搜索manus，给第二个笔记点赞。\n历史动作: "
        r"打开小红书应用。\n上一步屏幕截图:\n<image>\n当前屏幕截图:\n<image>\n"
    )


def test_inquire_full_prompt_follows_train_txt() -> None:
    # BIT-AQH/InquireMobile InquireMobile/prompt/train.txt: full tool JSON (indent 2), no `open`, `call_user`.
    text = InquireDialect(prompt="full").system_prompt()
    assert "You are provided with function signatures within <tools></tools> XML tags:\n\n<tools>\n{\n" in text
    assert text.endswith(
        "}\n</tools>\nFor each function call, return a json object with function name and arguments within "
        "<tool_call></tool_call> XML tags:\n\n<tool_call>\n"
        '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>\n\n'
        "在标签<think> </think>内输出思考过程。\n在标签<tool_call> </tool_call>内输出最终答案。\n"
    )
    tool = json.loads(text[text.index("<tools>\n") + 8 : text.index("\n</tools>")])
    function = tool["function"]
    assert "The screen's resolution is x." in function["description"]
    properties = function["parameters"]["properties"]
    assert properties["action"]["enum"] == [
        "key", "click", "long_press", "swipe", "type", "system_button", "wait", "terminate", "call_user",
    ]
    assert properties["action"]["description"].endswith(
        "* `call_user`: Request user intervention with provided content."
    )
    assert list(properties) == ["action", "coordinate", "coordinate2", "text", "content", "time", "button", "status"]
    assert properties["text"]["description"] == "Required only by `action=key`, `action=type`."
    assert properties["content"] == {"description": "Required only by `action=call_user`.", "type": "string"}
    assert '  "type": "function",\n  "function": {\n    "name_for_human": "mobile_use",' in text
    framed = InquireDialect(prompt="full").system_prompt(Frame(644, 1484))
    assert "The screen's resolution is 644x1484." in framed


EVAL_SYSTEM = (
    "You are a mobile GUI agent. You are given a task and your action history, with the current screenshot and "
    "the previous state preceding the last action. You need to perform the next action to complete the task.\n"
    "\n"
    "    You are provided with function signatures within <tools></tools> XML tags:\n"
    "    <tools>\n"
    '    {"type": "function", "function": {"name_for_human": "mobile_use", "name": "mobile_use", "description": '
    '"Use a touchscreen to interact with a mobile device."}}\n'
    "    </tools>\n"
    "\n"
    "    For each function call, return a json object with function name and arguments within "
    "<tool_call></tool_call> XML tags:\n"
    "    <tool_call>\n"
    '    {"name": <function-name>, "arguments": <args-json-object>}\n'
    "    </tool_call>\n"
    "\n"
    "    分析任务和历史动作，给出下一步操作。\n"
    "    在标签<think> </think>内输出思考过程。\n"
    "    在标签<tool_call> </tool_call>内输出最终答案。\n"
    "\n"
    f"    用户任务: {TASK}"
)


def test_inquire_eval_layout_follows_eval_py() -> None:
    d = InquireDialect(prompt="eval")
    outputs = ["<think>a</think><tool_call>{}</tool_call>", "<think>b</think>", "<think>c</think>"]
    steps = [Step(action=Action.click(1, 2), model_text=t, observation=SCREEN) for t in outputs]
    step0 = d.build_messages(TASK, SCREEN)
    assert step0 == [{"role": "system", "content": EVAL_SYSTEM}, {"role": "user", "content": [{"type": "image"}]}]
    step1 = d.build_messages(TASK, SCREEN, steps[:1])
    assert [m["role"] for m in step1] == ["system", "user", "assistant", "user"]
    assert step1[2]["content"] == outputs[0]
    step3 = d.build_messages(TASK, SCREEN, steps)
    assert [m["role"] for m in step3] == ["system", "assistant", "user", "assistant", "user"]
    assert step3[1]["content"] == f"这是历史轨迹：第1步:{outputs[0]}第2步:{outputs[1]}"
    assert step3[3]["content"] == outputs[2]
    assert len(d.image_observations(SCREEN, steps)) == 2
    with pytest.raises(ConfigError, match="build_messages"):
        d.system_prompt()


# ----- Mobile-R1 (reconstructed: the InquireMobile SFT prompt plus the <action> line) -----------------------
def test_mobile_r1_prompt() -> None:
    system = get_dialect("mobile-r1").system_prompt()
    assert system == INQUIRE_SFT_SYSTEM.replace(
        "在标签<tool_call> </tool_call>内输出最终答案。",
        "在标签<action> </action>内输出这一步将要执行的动作。\n在标签<tool_call> </tool_call>内输出最终答案。",
    )
    assert system.endswith(
        "在标签<think> </think>内输出思考过程。\n在标签<action> </action>内输出这一步将要执行的动作。\n"
        "在标签<tool_call> </tool_call>内输出最终答案。\n"
    )
    messages = get_dialect("mobile-r1").build_messages(TASK, SCREEN, HISTORY)
    assert as_template(messages[1]["content"]) == INQUIRE_SFT_HUMAN
    assert get_dialect("mobile-r1").render(Action.open("小红书"), thought="在桌面", description="打开小红书应用。") == (
        "<think>\n在桌面\n</think>\n<action>\n打开小红书应用。\n</action>\n<tool_call>\n"
        '{"name": "mobile_use", "arguments": {"action": "open", "text": "小红书"}}\n</tool_call>'
    )


# ----- UI-TARS: the mobile prompt of bytedance/UI-TARS (start_box form) -------------------------------------
UITARS_PROMPT = (
    "You are a GUI agent. You are given a task and your action history, with screenshots. "
    "You need to perform the next action to complete the task. \n"
    "## Output Format\n"
    "```\n"
    "Thought: ...\n"
    "Action: ...\n"
    "```\n"
    "## Action Space\n"
    "\n"
    "click(start_box='<|box_start|>(x1,y1)<|box_end|>')\n"
    "long_press(start_box='<|box_start|>(x1,y1)<|box_end|>')\n"
    "type(content='') #If you want to submit your input, use \"\\n\" at the end of `content`.\n"
    "scroll(start_box='<|box_start|>(x1,y1)<|box_end|>', direction='down or up or right or left')\n"
    "open_app(app_name='')\n"
    "drag(start_box='<|box_start|>(x1,y1)<|box_end|>', end_box='<|box_start|>(x3,y3)<|box_end|>')\n"
    "press_home()\n"
    "press_back()\n"
    "finished(content='xxx') # Use escape characters \\', \\\", and \\n in content part to ensure "
    "we can parse the content in normal python string format.\n"
    "\n"
    "\n"
    "## Note\n"
    "- Use English in `Thought` part.\n"
    "- Write a small plan and finally summarize your next action (with its target element) "
    "in one sentence in `Thought` part.\n"
    "\n"
    "## User Instruction\n"
)


def test_uitars_prompt_is_the_official_mobile_one() -> None:
    messages = get_dialect("uitars").build_messages("Open Settings", SCREEN)
    assert messages[0] == {"role": "system", "content": "You are a helpful assistant."}
    assert messages[1]["role"] == "user"
    assert as_template(messages[1]["content"]) == UITARS_PROMPT + "Open Settings\n<image>"
    with_call_user = UITarsDialect(with_call_user=True, language="Chinese").instruction_prompt("x")
    assert "finished(content='xxx')" in with_call_user
    assert "\ncall_user() # Submit the task and call the user when the task is unsolvable, or when you need the " \
           "user's help.\n" in with_call_user
    assert "- Use Chinese in `Thought` part." in with_call_user
