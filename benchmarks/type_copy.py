"""Does a trained model copy the task's words? Its `type` steps, split by how the task writes the text.

    python benchmarks/type_copy.py --model runs/demo/sft/final --episodes runs/demo/data/nav-sim [--limit 64]

Every `type` step of the expert episodes is put to the model as an agent sees it (`hf:` agent, the model's saved
prompt view, greedy decoding), with the episode's earlier expert steps as history. A step counts when the typed
text equals the label. Steps are split by whether the task quotes the text (`Send 'On my way' to ...`) or writes
it inline (`Create a calendar event called Boiler check`); with a byte-level BPE only quoted words have the token
ids the tool call writes (`"Boiler`, not ` Boiler`). The most frequent wrong texts show what the model writes
instead: a value of the same task remembered from training, or a copy gone wrong.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter

from mobile_r1.agents import AgentRequest, make_agent
from mobile_r1.core.actions import ActionType
from mobile_r1.core.formats import load_episodes


def quoted(instruction: str, text: str) -> bool:
    return any(f"{q}{text}{q}" in instruction for q in ("'", '"'))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="a model folder written by `mobile-r1 train` (or a preset)")
    parser.add_argument("--episodes", nargs="+", required=True, help="folders of expert episodes (episodes.jsonl)")
    parser.add_argument("--limit", type=int, default=64, help="type steps per folder, drawn with seed 0")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--max-new-tokens", type=int, default=80)
    args = parser.parse_args()

    agent = make_agent(f"hf:{args.model}", max_new_tokens=args.max_new_tokens, batch_size=args.batch)
    for folder in args.episodes:
        cases = []
        for episode in load_episodes(folder):
            for index, step in enumerate(episode.steps):
                if step.action.type is ActionType.TYPE and step.observation is not None:
                    request = AgentRequest(episode.instruction, step.observation, episode.steps[:index], episode.id)
                    cases.append((request, step.action.text or ""))
        random.Random(0).shuffle(cases)
        cases = cases[: args.limit]
        start = time.perf_counter()
        outputs = agent.act_batch([request for request, _ in cases])  # one generate() per --batch requests
        right: Counter[bool] = Counter()
        total: Counter[bool] = Counter()
        wrong: Counter[str] = Counter()
        for (request, want), out in zip(cases, outputs):
            got = out.action.text if out.action is not None and out.action.type is ActionType.TYPE else None
            kind = quoted(request.instruction, want.rstrip("\n"))
            total[kind] += 1
            if got == want:
                right[kind] += 1
            else:
                wrong[repr(got)] += 1
        print(f"{folder}: {len(cases)} type steps in {time.perf_counter() - start:.0f} s")
        print(f"  text quoted in the task:  {right[True]} / {total[True]} right")
        print(f"  text inline in the task:  {right[False]} / {total[False]} right")
        print(f"  most frequent wrong texts: {', '.join(f'{t} x{n}' for t, n in wrong.most_common(5))}")


if __name__ == "__main__":
    main()
