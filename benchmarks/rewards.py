"""Prints how many completions per second each reward preset scores on one core, for non-text and text actions.

    python benchmarks/rewards.py [--n 20000] [--repeats 3]

Non-text: click, long_press, swipe and system_button steps (a mix of right and wrong predictions).
Text: type and call_user steps, where InquireMobile-style presets compute a sentence BLEU with sacrebleu.
"raw" calls `preset.score(...)` with the label as a tool-call dict, the way a TRL reward function does
(the label is checked every time); "checked" reuses a `RewardTarget` built once per step.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time
from typing import Any

from mobile_r1.core.rewards import PRESETS, RewardTarget

SCREEN = [1080, 2400]
MODEL = [336, 756]


def _completion(arguments: dict[str, Any], rng: random.Random) -> str:
    think = "The search box is at the top; I tap it to start typing the query." * rng.randint(1, 3)
    step = "<action>Tap the search box</action>\n" if rng.random() < 0.5 else ""
    call = json.dumps({"name": "mobile_use", "arguments": arguments}, ensure_ascii=False)
    return f"<think>{think}</think>\n{step}<tool_call>\n{call}\n</tool_call>"


def _non_text_cases(n: int, rng: random.Random) -> list[tuple[str, dict[str, Any], Any]]:
    cases = []
    for i in range(n):
        kind = i % 4
        if kind in (0, 1):
            action = "click" if kind == 0 else "long_press"
            x, y = rng.uniform(0, MODEL[0]), rng.uniform(0, MODEL[1])
            label = {"action": action, "coordinate": [round(x), round(y)]}
            box = [x * 3.2 - 60, y * 3.2 - 40, x * 3.2 + 60, y * 3.2 + 40] if rng.random() < 0.8 else [-1, -1, -1, -1]
            pred = {"action": action, "coordinate": [round(x + rng.gauss(0, 15)), round(y + rng.gauss(0, 15))]}
        elif kind == 2:
            label = {"action": "swipe", "coordinate": [168, 600], "coordinate2": [168, 200]}
            box = None
            pred = {"action": "swipe", "coordinate": [168, rng.choice([600, 200])], "coordinate2": [168, 400]}
        else:
            label = {"action": "system_button", "button": "Back"}
            box = [0, 2300, 200, 2400]
            pred = rng.choice([{"action": "system_button", "button": "back"}, {"action": "click", "coordinate": [30, 740]}])
        cases.append((_completion(pred, rng), {"name": "mobile_use", "arguments": label}, box))
    return cases


SENTENCES = [
    "Do you want me to transfer 200 yuan to Zhang Wei now",
    "Please confirm which contact should receive the red packet",
    "Which size of the jacket do you want to buy",
    "I need you to log in to your account first",
    "search for noise cancelling headphones under 500 yuan",
]


def _text_cases(n: int, rng: random.Random) -> list[tuple[str, dict[str, Any], Any]]:
    cases = []
    for i in range(n):
        action, key = ("type", "text") if i % 2 else ("call_user", "content")
        reference = rng.choice(SENTENCES)
        words = reference.split()
        if rng.random() < 0.5:
            rng.shuffle(words)
        pred = {"action": action, key: " ".join(words[: rng.randint(2, len(words))])}
        cases.append((_completion(pred, rng), {"name": "mobile_use", "arguments": {"action": action, key: reference}}, None))
    return cases


def _rate(fn: Any, cases: list[Any], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn(cases)
        best = min(best, time.perf_counter() - start)
    return len(cases) / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20000, help="completions per workload")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per figure (the best is kept)")
    args = parser.parse_args()
    rng = random.Random(0)
    workloads = {"non-text": _non_text_cases(args.n, rng), "text": _text_cases(max(1, args.n // 4), rng)}
    print(f"python {platform.python_version()} on {platform.machine()}; one process; best of {args.repeats}")
    print(f"{'preset':<22}{'workload':<10}{'raw /s':>12}{'checked /s':>13}")
    for name, preset in PRESETS.items():
        for workload, cases in workloads.items():
            targets = [(c, RewardTarget.build(lab, box, SCREEN, MODEL)) for c, lab, box in cases]
            preset.score(*cases[0][:2], cases[0][2], SCREEN, MODEL)  # warm up (imports sacrebleu)

            def raw(batch: list[Any], preset: Any = preset) -> None:
                for completion, label, box in batch:
                    preset.score(completion, label, box, SCREEN, MODEL)

            def checked(batch: list[Any], preset: Any = preset) -> None:
                for completion, target in batch:
                    preset.score_target(completion, target)

            print(f"{name:<22}{workload:<10}{_rate(raw, cases, args.repeats):>12,.0f}{_rate(checked, targets, args.repeats):>13,.0f}")


if __name__ == "__main__":
    main()
