"""Does a small model trained from scratch read the task? The app of each episode's `open` step, as SFT learns it.

    python benchmarks/task_reading.py [--episodes 300] [--steps 200] [--init-std 0.02 0.088] [--work DIR]

The `open` step is the one step whose answer only the task's words decide. For held-out train-phrasing episodes
(the train split, another seed) and test-phrasing episodes (the test split) it prints:

- a naive Bayes classifier over the task's words, trained on the same expert steps: how much the words alone tell;
- the small-lm architecture (`models.policy.SMALL_LM`) trained from scratch for `--steps` SFT steps of 8 examples,
  once on `open` steps alone and once on the mix of all steps, for each weight initialisation (`--init-std`);
  scored teacher-forced: an `open` step counts when every target token is the argmax.

Expert data is written once into `--work`.
"""

from __future__ import annotations

import argparse
import math
import random
import shutil
import time
from collections import Counter, defaultdict
from pathlib import Path

import torch
import transformers

from mobile_r1.core.formats import load_episodes
from mobile_r1.models import load_policy
from mobile_r1.models.policy import SMALL_LM, _build_lm
from mobile_r1.env.demos import generate
from mobile_r1.train.data import PromptSettings, StepExample, step_examples
from mobile_r1.train.sft import SFTItem, collate_sft, encode_example, token_loss_sum

SETTINGS = PromptSettings(dialect="compact", observation_mode="text", history_window=None, thought="brief")
SUITES = ("inquire-sim", "nav-sim")


def expert_steps(work: Path, split: str, episodes: int, seed: int) -> list[StepExample]:
    out = []
    for suite in SUITES:
        folder = work / f"{suite}-{split}-{episodes}-s{seed}"
        if not (folder / "episodes.jsonl").exists():
            generate(suite, split, episodes, folder, seed=seed, screenshots=False)
        out += step_examples(load_episodes(folder / "episodes.jsonl"), SETTINGS)
    return out


def task_of(example: StepExample) -> str:
    return str(example.messages[-1]["content"]).rsplit("Task:", 1)[-1].strip()


def naive_bayes(train: list[StepExample], test: list[StepExample]) -> float:
    """Share of `test` open steps whose app a word-level naive Bayes classifier (add-0.1 smoothing) gets right."""
    prior: Counter[str] = Counter()
    words: dict[str, Counter[str]] = defaultdict(Counter)
    for e in train:
        prior[e.label.text] += 1
        for w in set(task_of(e).lower().split()):
            words[w][e.label.text] += 1

    def predict(task: str) -> str:
        def score(app: str) -> float:
            return math.log(prior[app]) + sum(math.log((words[w][app] + 0.1) / (prior[app] + 1))
                                              for w in set(task.lower().split()))
        return max(prior, key=score)

    return sum(predict(task_of(e)) == e.label.text for e in test) / len(test)


def fresh_model(folder: Path, init_std: float):
    """The small-lm preset's build (`models.policy._build_lm`, seed 0) with weights drawn at `init_std`."""
    shutil.rmtree(folder, ignore_errors=True)
    _build_lm(folder, 0, {**SMALL_LM, "initializer_range": init_std})
    return load_policy(str(folder))


@torch.no_grad()
def teacher_forced(policy, items: list[SFTItem]) -> float:
    policy.model.eval()
    right = 0
    for item in items:
        logits = policy.model(input_ids=torch.tensor([item.input_ids])).logits[0]
        labels = torch.tensor(item.labels)
        scored = labels[1:] != -100
        right += bool((logits[:-1].argmax(-1)[scored] == labels[1:][scored]).all())
    policy.model.train()
    return right / len(items)


def train(policy, items: list[SFTItem], steps: int, lr: float) -> float:
    rng = random.Random(0)
    opt = torch.optim.AdamW(policy.model.parameters(), lr=lr)
    start = time.perf_counter()
    for _ in range(steps):
        batch = collate_sft(rng.sample(items, 8), policy.tokenizer.pad_token_id, policy.device)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            total, count = token_loss_sum(policy.model, batch)
        (total / count).backward()
        torch.nn.utils.clip_grad_norm_(policy.model.parameters(), 1.0)
        opt.step()
        opt.zero_grad()
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--episodes", type=int, default=300, help="expert train episodes per suite")
    ap.add_argument("--held-out", type=int, default=40, help="held-out episodes per suite and split")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--init-std", type=float, nargs="+", default=[0.02, SMALL_LM["hidden_size"] ** -0.5])
    ap.add_argument("--work", default="/tmp/mobile-r1-task-reading")
    a = ap.parse_args()
    work = Path(a.work)
    transformers.logging.disable_progress_bar()

    def opens(xs: list[StepExample]) -> list[StepExample]:
        return [e for e in xs if e.label.type.value == "open"]

    train_steps = expert_steps(work, "train", a.episodes, 0)
    held = {"train phrasings": opens(expert_steps(work, "train", a.held_out, 1)),
            "test phrasings": opens(expert_steps(work, "test", a.held_out, 1))}
    print(f"{len(train_steps)} expert steps ({len(opens(train_steps))} open); held-out open steps: "
          + ", ".join(f"{k} {len(v)}" for k, v in held.items()))
    print(f"| learner | {' | '.join(held)} | train s |")
    print("|---|" + "---|" * (len(held) + 1))
    bayes = [naive_bayes(opens(train_steps), v) for v in held.values()]
    print(f"| naive Bayes over the task's words | {' | '.join(f'{b:.0%}' for b in bayes)} | |")
    # Every model shares the local tokenizer: encode the examples once.
    policy = fresh_model(work / "model", a.init_std[0])
    encoded = [encode_example(policy, e) for e in train_steps]
    sets = {"open steps alone": [i for i, e in zip(encoded, train_steps) if e.label.type.value == "open"],
            "all steps": encoded}
    held_items = [[encode_example(policy, e) for e in v] for v in held.values()]
    for std in a.init_std:
        for name, items in sets.items():
            policy = fresh_model(work / "model", std)
            seconds = train(policy, items, a.steps, a.lr)
            scores = [teacher_forced(policy, h) for h in held_items]
            print(f"| small-lm, init std {std:.3f}, {a.steps} steps on {name} | "
                  f"{' | '.join(f'{s:.0%}' for s in scores)} | {seconds:.0f} |", flush=True)

if __name__ == "__main__":
    main()
