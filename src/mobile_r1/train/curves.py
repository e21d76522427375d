"""Learning curves of a training run: its `metrics.jsonl` drawn against the step to `curves.png` (matplotlib).

    draw_curves(Path("runs/demo/task-grpo"))     # -> runs/demo/task-grpo/curves.png, or None with nothing to draw

One panel per quantity the run logged at two points or more (a panel of one point shows no curve, and none is drawn),
training values as a line (with a 10-step running mean when the run is longer than 30 steps) and held-out
evaluations as markers, joined only when there are more than two: success rate, mean reward, groups without reward
spread, KL to the reference, episode length, self-corrections, format-valid rate and loss for the RL stages; loss and
held-out loss for SFT. The run loop draws them when a stage ends; the curriculum's report embeds them.
"""

from __future__ import annotations

import json
from pathlib import Path

# (metric key in metrics.jsonl, panel title); a panel is drawn when the run logged its key
PANELS: tuple[tuple[str, str], ...] = (
    ("success_rate", "success rate (rollouts)"),
    ("reward_mean", "mean reward"),
    ("no_outcome_spread", "groups without outcome spread"),
    ("zero_std_groups", "groups without reward spread"),
    ("kl", "KL to the reference"),
    ("episode_length", "episode length (steps)"),
    ("self_corrections", "self-corrections per episode"),
    ("format_valid", "format-valid rate"),
    ("loss", "loss"),
)
EVAL_KEYS = {"success_rate": "eval_success_rate", "reward_mean": "eval_reward", "format_valid": "eval_format_valid",
             "loss": "eval_loss", "episode_length": "eval_episode_length", "self_corrections": "eval_self_corrections"}
CURVES_FILE = "curves.png"


def read_metrics(run_dir: Path) -> tuple[list[dict[str, float]], list[dict[str, float]]]:
    """The run's training and evaluation records, in step order."""
    path = Path(run_dir) / "metrics.jsonl"
    if not path.is_file():
        return [], []
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    train = sorted((r for r in records if r.get("kind") == "train"), key=lambda r: r["step"])
    held = sorted((r for r in records if r.get("kind") == "eval"), key=lambda r: r["step"])
    return train, held


def panel_points(key: str, train: list[dict[str, float]], held: list[dict[str, float]]) -> int:
    """How many points a panel would show: the training records of `key` and the evaluations of its held-out key."""
    eval_key = EVAL_KEYS.get(key)
    return sum(key in r for r in train) + sum(eval_key in r for r in held if eval_key)


def running_mean(values: list[float], window: int) -> list[float]:
    out, total = [], 0.0
    for i, v in enumerate(values):
        total += v
        if i >= window:
            total -= values[i - window]
        out.append(total / min(i + 1, window))
    return out


def draw_curves(run_dir: Path, title: str | None = None) -> Path | None:
    """Draw `run_dir/curves.png` from `run_dir/metrics.jsonl`; None when the run logged nothing to draw."""
    import matplotlib

    matplotlib.use("Agg")  # files only: no display is needed or used
    import matplotlib.pyplot as plt

    run_dir = Path(run_dir)
    train, held = read_metrics(run_dir)
    panels = [(k, t) for k, t in PANELS if panel_points(k, train, held) >= 2]
    if not panels:
        return None
    columns = min(3, len(panels))
    rows = -(-len(panels) // columns)
    figure, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 2.8 * rows), squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.axis("off")
    for ax, (key, label) in zip(axes.flat, panels):
        points = [(r["step"], float(r[key])) for r in train if key in r]
        if points:
            steps, values = zip(*points)
            ax.plot(steps, values, "-" if len(values) > 1 else "o", color="#93c5fd" if len(values) > 30 else "#2563eb",
                    linewidth=1, markersize=4, label="train")
            if len(values) > 30:
                ax.plot(steps, running_mean(list(values), 10), color="#2563eb", linewidth=1.6, label="train (mean of 10)")
        eval_key = EVAL_KEYS.get(key)
        marks = [(r["step"], float(r[eval_key])) for r in held if eval_key and eval_key in r]
        if marks:  # a few evaluations are points, not a line through them
            ax.plot(*zip(*marks), "o-" if len(marks) > 2 else "o", color="#dc2626", markersize=4, linewidth=1,
                    label="held out")
        ax.set_title(label, fontsize=9)
        ax.set_xlabel("step", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
        if marks and points or len(points) > 30:
            ax.legend(fontsize=6, loc="best")
    figure.suptitle(title or run_dir.name, fontsize=11)
    figure.tight_layout()
    path = run_dir / CURVES_FILE
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


__all__ = ["draw_curves", "read_metrics", "running_mean", "panel_points", "CURVES_FILE", "PANELS"]
