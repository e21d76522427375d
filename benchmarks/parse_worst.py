"""Prints the worst time each dialect's `parse` (and each reward preset) takes over an adversarial corpus of replies.

    python benchmarks/parse_worst.py [--sizes 1024,8192,32768] [--repeats 3]

The corpus holds the inputs that broke parsers before (a code fence around thousands of spaces, floods of opening or
closing tags, `</think><tool_call></tool_call>` repeated, JSON nested thousands deep, 5,000-digit numbers, unclosed
strings and escapes, UI-TARS `Action:` floods and unbalanced calls) plus seeded tag soup and long valid replies, each
built at every size up to 32 KB. Every input is parsed `repeats` times and its median kept; the table gives each
parser's worst median, on which input and at what size. The goal: under 10 ms for any reply of up to 32 KB.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time
from collections.abc import Callable

from mobile_r1.core.dialects import get_dialect
from mobile_r1.core.rewards import PRESETS

DIALECTS = ("qwen2.5vl", "inquire", "mobile-r1", "uitars", "compact")
CALL = '{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [120, 340]}}'
FRAGMENTS = ["<think>", "</think>", "<action>", "</action>", "<tool_call>", "</tool_call>", "```", "```json", "{", "}",
             "[", "]", '"', "'", "\\", ":", ",", " ", "\n", "\t", "Action:", "Thought:", "click(", ")", "start_box='",
             "(1,2)", "9" * 20, "\\u00e9", "点击", CALL]


def _fit(unit: str, size: int) -> str:
    return unit * max(1, size // max(1, len(unit)))


def corpus(size: int, seed: int = 0) -> dict[str, str]:
    """Named adversarial replies of about `size` characters."""
    rng = random.Random(seed + size)
    n = size
    cases: dict[str, str] = {
        "fence around spaces": "<think>x</think><tool_call>```" + " " * n + "x</tool_call>",
        "fence around newlines": "<think>x</think><tool_call>```json" + "\n" * n + CALL + "\n```</tool_call>",
        "unclosed fence": "<tool_call>```" + " \n" * (n // 2),
        "opening tags": _fit("<tool_call>", n),
        "closing tags": _fit("</tool_call>", n),
        "think openings": _fit("<think>", n),
        "think then calls": "<think>" + _fit("</think><tool_call></tool_call>", n) + "x",
        "think then calls, spaced": "<think>" + _fit("</think> \n <tool_call> x </tool_call> ", n) + "x",
        "action tags": "<think>t</think>" + _fit("<action></action>", n) + f"<tool_call>{CALL}</tool_call>",
        "nested arrays": "<tool_call>" + "[" * (n // 2) + "]" * (n // 2) + "</tool_call>",
        "nested objects": "<tool_call>" + '{"a":' * (n // 5) + "1" + "}" * (n // 5) + "</tool_call>",
        "nested literal": "<tool_call>{" + "'a':{" * (n // 5) + "1" + "}" * (n // 5) + "}</tool_call>",
        "huge integer": '<tool_call>{"name": "mobile_use", "arguments": {"action": "click", "coordinate": ['
                        + "9" * n + ", 1]}}</tool_call>",
        "many numbers": '<tool_call>{"name": "mobile_use", "arguments": {"action": "click", "coordinate": ['
                        + _fit("123456789, ", n) + "1]}}</tool_call>",
        "unclosed string": '<tool_call>{"name": "' + "a" * n,
        "escapes": '<tool_call>{"name": "' + _fit("\\\\", n) + '"}</tool_call>',
        "unicode escapes": '<tool_call>{"name": "' + _fit("\\ud83d\\ude00", n) + '"}</tool_call>',
        "whitespace": " " * n,
        "newlines": "\n" * n,
        "long valid reply": "<think>" + _fit("The button is at the top. ", n) + f"</think>\n<tool_call>\n{CALL}\n</tool_call>",
        "action lines": _fit("Action: click(start_box='(1,2)')\n", n),
        "action words": _fit("xAction:", n),
        "indented action words": _fit(" \t Action", n) + ":",
        "action newlines": _fit("\nAction: ", n),
        "thought then action": "Thought: " + "a" * n + "\nAction: click(start_box='(1,2)')",
        "open parentheses": "Thought: t\nAction: click(" + "(" * n,
        "close parentheses": "Thought: t\nAction: click(" + ") " * (n // 2),
        "many arguments": "Thought: t\nAction: type(" + _fit("content='x', ", n) + ")",
        "unclosed argument": "Thought: t\nAction: type(content='" + _fit("\\'", n),
        "box of numbers": "Thought: t\nAction: click(start_box='" + _fit("1,", n) + "')",
        "long number in box": "Thought: t\nAction: click(start_box='(" + "9" * n + ",1)')",
    }
    cases["tag soup"] = "".join(rng.choice(FRAGMENTS) for _ in range(n // 4))[:n]
    return cases


def _median_seconds(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1024,4096,16384,32768", help="reply sizes in characters")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    label = {"name": "mobile_use", "arguments": {"action": "click", "coordinate": [120, 340]}}
    parsers: dict[str, Callable[[str], object]] = {f"parse {name}": get_dialect(name).parse for name in DIALECTS}
    for name, preset in PRESETS.items():
        parsers[f"reward {name}"] = (lambda text, p=preset: p.score(text, label, [100, 300, 140, 380], [1080, 2400],
                                                                       [1080, 2400]))
    print(f"# {platform.python_implementation()} {platform.python_version()} on {platform.machine()}, "
          f"{len(corpus(sizes[0]))} adversarial inputs x sizes {sizes}, median of {args.repeats} runs each")
    print(f"{'parser':<28} {'worst ms':>9}  {'size':>7}  input")
    for name, parse in parsers.items():
        worst = (0.0, "", 0)
        for size in sizes:
            for case, text in corpus(size).items():
                seconds = _median_seconds(lambda: parse(text), args.repeats)
                if seconds > worst[0]:
                    worst = (seconds, case, len(text))
        print(f"{name:<28} {1000 * worst[0]:>9.2f}  {worst[2]:>7}  {worst[1]}")


if __name__ == "__main__":
    main()
