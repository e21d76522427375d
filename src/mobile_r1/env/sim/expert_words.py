"""What the expert writes, in the episode's language: its thoughts, step descriptions and questions to the user."""

from __future__ import annotations

EN: dict[str, str] = {
    "home": "the home screen",
    "recents": "the recent apps screen",
    "overlay": "a '{title}' {kind} in {app}",
    "screen": "the {screen} screen of {app}",
    "tap": "Tap '{label}'",
    "long_press": "Long-press '{label}'",
    "type": "Type '{text}'",
    "submit": " and submit",
    "scroll": "Scroll down the list",
    "scroll_up": "Scroll up the list",
    "back": "Go back",
    "open": "Open {label}",
    "wait": "Wait for the screen to load",
    "where": "I am on {where}.",
    "recovering": " This is not where I wanted to be, so I correct course.",
    "next": "{where} Next I {move} {say}.",
    "say_screen": "to reach the {screen} screen",
    "say_goal": "towards the goal: {instruction}",
    "ask_thought": "I am on {where}. {purpose} I should not go on without the user, so I ask them first.",
    "ask": "Ask the user before continuing",
    "declined": "The user replied \"{reply}\", so I stop here without doing it.",
    "stop": "Stop as the user asked",
    "vague": "The request '{instruction}' does not say exactly what to do.",
    "lost": "I am on {where}. I see no way to my goal from here, so I go back and look again.",
    "answer_thought": "I am on {where} and can see what was asked: {text}. I give the user the answer.",
    "answer": "Answer: {text}",
    "done_thought": "I am on {where}. The task '{instruction}' is done, so I finish.",
    "done": "Finish the task",
    "wrong": "I am on {where}. I tap '{label}', which may lead where I need to go.",
    "purpose_login": "The app wants me to log in, and I must not enter the user's credentials myself.",
    "purpose_supply": "I need information that only the user has.",
    "purpose_effect": "The next step cannot be undone ({effect}).",
    "purpose_vague": "What the user wants is not clear.",
    "ask_login": "{app} asks me to log in. Could you log in for me, please?",
    "ask_supply": "I need a detail to continue. Could you tell me what to enter?",
    "ask_vague": "Your request \"{instruction}\" could mean several things. What exactly should I do?",
    "ask_effect": "I am about to do something that cannot be undone ({effect}). Should I go ahead?",
}

ZH: dict[str, str] = {
    "home": "主屏幕",
    "recents": "最近任务页面",
    "overlay": "{app}中的“{title}”{kind}",
    "screen": "{app}的{screen}页面",
    "tap": "点击“{label}”",
    "long_press": "长按“{label}”",
    "type": "输入“{text}”",
    "submit": "并提交",
    "scroll": "向下滑动列表",
    "scroll_up": "向上滑动列表",
    "back": "返回",
    "open": "打开{label}",
    "wait": "等待页面加载",
    "where": "我现在在{where}。",
    "recovering": "这不是我想去的地方，所以我调整方向。",
    "next": "{where}接下来我{move}，{say}。",
    "say_screen": "以进入{screen}页面",
    "say_goal": "以完成目标：{instruction}",
    "ask_thought": "我现在在{where}。{purpose}没有用户的确认我不应继续，所以先询问用户。",
    "ask": "继续之前先询问用户",
    "declined": "用户回复“{reply}”，所以我到此为止，不再执行。",
    "stop": "按用户的要求停止",
    "vague": "请求“{instruction}”没有说清楚具体要做什么。",
    "lost": "我现在在{where}。从这里看不到通往目标的路，所以我返回重新寻找。",
    "answer_thought": "我现在在{where}，能看到所问的内容：{text}。我把答案告诉用户。",
    "answer": "回答：{text}",
    "done_thought": "我现在在{where}。任务“{instruction}”已经完成，所以结束。",
    "done": "完成任务",
    "wrong": "我现在在{where}。我点击“{label}”，它可能通向我要去的地方。",
    "purpose_login": "应用要求登录，我不能自己输入用户的账号密码。",
    "purpose_supply": "我需要只有用户才知道的信息。",
    "purpose_effect": "下一步操作无法撤销（{effect}）。",
    "purpose_vague": "用户想要什么并不清楚。",
    "ask_login": "{app}需要登录。请您帮我登录一下好吗？",
    "ask_supply": "我需要一个信息才能继续。请告诉我应该填写什么？",
    "ask_vague": "您的请求“{instruction}”可能有多种理解。具体需要我做什么？",
    "ask_effect": "我即将执行一个无法撤销的操作（{effect}）。要继续吗？",
}

KINDS_ZH = {"dialog": "对话框", "menu": "菜单", "permission": "权限请求", "ad": "广告"}


def words(language: str) -> dict[str, str]:
    """The expert's phrases in `language` ("en" or "zh")."""
    return ZH if language == "zh" else EN


__all__ = ["words", "EN", "ZH", "KINDS_ZH"]
