"""Seconds per stage-2 GRPO optimizer step: our engine vs TRL's GRPOTrainer on the same tiny model, data and G.

    python benchmarks/grpo_step.py [--model tiny-lm] [--steps 5] [--prompts 4] [--generations 4] [--length 32]

Both sample G completions per prompt (temperature 1.0, no top-k/top-p), score them with the same reward preset,
compute the k3 KL to a reference and take one AdamW step with the per-token (dapo) loss. A step's time covers
generation, scoring, reference and policy passes and the update; the first step of each is a warm-up and is not
counted.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from mobile_r1.core.actions import Action
from mobile_r1.core.records import Episode, Observation, Step, UIElement
from mobile_r1.models import load_policy
from mobile_r1.train.action_grpo import LabelledStepSource
from mobile_r1.train.data import PromptSettings, prompt_text, step_examples
from mobile_r1.train.grpo import GRPOEngine, GRPOSettings


def episodes(n: int) -> list[Episode]:
    """`n` one-step episodes: tap the named button on a list screen."""
    names = ["Mom", "Dad", "Work", "Alarm", "Wifi", "Camera", "Music", "Maps"]
    out = []
    for i in range(n):
        labels = [names[(i + k) % len(names)] for k in range(4)]
        elements = [
            UIElement(id=k, class_name="android.widget.Button", bounds=(40, 200 + 160 * k, 1040, 340 + 160 * k), text=t,
                      clickable=True)
            for k, t in enumerate(labels)
        ]
        target = elements[i % 4]
        x, y = target.center
        out.append(Episode(id=f"e{i}", instruction=f"Open {target.text}", screen_size=(1080, 2400), steps=[
            Step(Action.click(x, y), f"I tap {target.text}.", f"Open {target.text}",
                 Observation(screen_size=(1080, 2400), elements=elements), bbox=target.bounds)]))
    return out


def time_ours(model: str, examples: list, settings: GRPOSettings, steps: int, seed: int) -> list[float]:
    torch.manual_seed(seed)
    policy = load_policy(model)
    optimizer = torch.optim.AdamW([p for p in policy.model.parameters() if p.requires_grad], lr=1e-6)
    engine = GRPOEngine(policy, settings, optimizer)
    source = LabelledStepSource(examples, "inquire-mobile", "inquire")
    times = []
    for _ in range(steps + 1):
        t0 = time.perf_counter()
        engine.train_on(source.rollout(policy, settings, 0).samples)
        times.append(time.perf_counter() - t0)
    return times[1:]


def time_trl(model: str, examples: list, settings: GRPOSettings, steps: int, seed: int, workdir: str) -> list[float]:
    import datasets
    from transformers import TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    from mobile_r1.core.rewards import get_preset

    policy = load_policy(model)
    rows = [
        {"prompt": prompt_text(policy, e.messages), "label": e.label.to_tool_call(), "bbox": list(e.bbox) if e.bbox else None,
         "image_size": list(e.screen_size), "model_image_size": list(e.model_size)}
        for e in examples
    ]

    class Clock(TrainerCallback):
        def __init__(self) -> None:
            self.times: list[float] = []
            self.t0 = 0.0

        def on_step_begin(self, args, state, control, **kwargs):  # type: ignore[no-untyped-def]
            self.t0 = time.perf_counter()

        def on_step_end(self, args, state, control, **kwargs):  # type: ignore[no-untyped-def]
            self.times.append(time.perf_counter() - self.t0)

    clock = Clock()
    n_prompts = len(examples)
    args = GRPOConfig(
        output_dir=workdir, use_cpu=True, bf16=False, per_device_train_batch_size=n_prompts * settings.num_generations,
        num_generations=settings.num_generations, max_completion_length=settings.max_completion_length,
        temperature=settings.temperature, top_k=0, top_p=1.0, learning_rate=1e-6, loss_type="dapo", beta=settings.beta,
        use_bias_correction_kl=False, max_steps=steps + 1, logging_steps=1000, save_strategy="no", report_to=[],
        seed=seed, disable_tqdm=True, shuffle_dataset=False,
    )
    trainer = GRPOTrainer(model=str(policy.model.name_or_path), reward_funcs=get_preset("inquire-mobile").as_trl_reward(),
                          args=args, train_dataset=datasets.Dataset.from_list(rows), processing_class=policy.tokenizer,
                          callbacks=[clock])
    trainer.train()
    return clock.times[1:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="tiny-lm")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--prompts", type=int, default=4)
    parser.add_argument("--generations", type=int, default=4)
    parser.add_argument("--length", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    import tempfile

    examples = step_examples(episodes(args.prompts), PromptSettings(dialect="inquire", history_window=0))
    settings = GRPOSettings(num_generations=args.generations, temperature=1.0, max_completion_length=args.length,
                            loss_type="dapo", beta=0.04, micro_batch_size=args.prompts * args.generations)
    ours = time_ours(args.model, examples, settings, args.steps, args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        theirs = time_trl(args.model, examples, settings, args.steps, args.seed, tmp)
    print(f"model={args.model} prompts/step={args.prompts} G={args.generations} max_completion_length={args.length} "
          f"steps={args.steps} (after 1 warm-up) threads={torch.get_num_threads()}")
    print(f"mobile-r1 GRPOEngine : {statistics.median(ours):.3f} s/step (median; mean {statistics.mean(ours):.3f})")
    print(f"TRL GRPOTrainer      : {statistics.median(theirs):.3f} s/step (median; mean {statistics.mean(theirs):.3f})")
    print(f"ratio ours/TRL       : {statistics.median(ours) / statistics.median(theirs):.2f}")


if __name__ == "__main__":
    main()
