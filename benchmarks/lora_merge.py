"""Generation with a LoRA adapter on top of the model against the adapter folded into the weights (`merge_lora`).

    python benchmarks/lora_merge.py [--model smollm2-135m] [--layers 15] [--prompts 24] [--dtype bfloat16]

An adapter (rank 16, every linear projection of the top `--layers` decoder layers, like a CPU run that trains the
upper half only) is drawn with small random weights and saved, then loaded the two ways the project loads one:
`load_policy(folder)` (a trainable peft model, what training resumes from) and `make_agent("hf:FOLDER")`, which
folds it in. Both answer the same `--prompts` prompts (steps of expert nav-sim test episodes, accessibility text,
the `compact` dialect) in one greedy batch; the script prints the seconds of each and whether the texts agree.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import torch

from mobile_r1.agents import AgentRequest, make_agent
from mobile_r1.agents.hf_agent import HFAgent
from mobile_r1.core.formats import load_episodes
from mobile_r1.models import LoraSettings, load_policy
from mobile_r1.models.policy import apply_lora
from mobile_r1.env.demos import generate as generate_episodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="smollm2-135m")
    parser.add_argument("--layers", type=int, default=15, help="adapt the top this many decoder layers")
    parser.add_argument("--prompts", type=int, default=24)
    parser.add_argument("--dtype", default="bfloat16")
    parser.add_argument("--max-new-tokens", type=int, default=80)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        policy = load_policy(args.model)
        depth = policy.model.config.num_hidden_layers
        top = "|".join(str(i) for i in range(depth - args.layers, depth))
        target = rf".*layers\.({top})\.(self_attn|mlp)\.(q|k|v|o|gate|up|down)_proj"
        policy = apply_lora(policy, LoraSettings(r=16, alpha=32, dropout=0.0, target_modules=target))
        with torch.no_grad():  # a trained adapter changes the outputs; a fresh one (lora_B = 0) would not
            for index, (name, p) in enumerate(policy.model.named_parameters()):
                if "lora_B" in name:
                    p.normal_(0, 0.002, generator=torch.Generator().manual_seed(index))
        folder = Path(tmp) / "adapter"
        policy.save_pretrained(folder)
        del policy

        generate_episodes("nav-sim", "test", 8, Path(tmp) / "episodes", seed=0, screenshots=False)
        episodes = load_episodes(Path(tmp) / "episodes")
        requests = [AgentRequest(e.instruction, s.observation, e.steps[:i], e.id)
                    for e in episodes for i, s in enumerate(e.steps)][: args.prompts]
        options = dict(dialect="compact", observation_mode="text", max_new_tokens=args.max_new_tokens,
                       batch_size=len(requests))
        results = {}
        agents = {"adapter on top": HFAgent(load_policy(str(folder), dtype=args.dtype), **options),
                  "folded in": make_agent(f"hf:{folder}", dtype=args.dtype, **options)}
        for label, agent in agents.items():
            agent.act_batch(requests[:2])  # warm-up
            start = time.perf_counter()
            results[label] = [o.text for o in agent.act_batch(requests)]
            print(f"{label:15s} {time.perf_counter() - start:6.1f} s for {len(requests)} prompts ({args.dtype})")
        same = sum(a == b for a, b in zip(*results.values()))
        print(f"same text for {same} of {len(requests)} prompts")


if __name__ == "__main__":
    main()
