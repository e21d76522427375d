"""The run's metric records: `metrics.jsonl` (what a resumed run reads back) and the experiment trackers (TensorBoard,
Weights & Biases, MLflow through accelerate), written by the main process only."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from accelerate import tracking
from accelerate.tracking import GeneralTracker

from mobile_r1.core.errors import ConfigError


class MetricsLog:
    """Appends metric records to `metrics.jsonl` and to the run's experiment trackers (main process only).

    The trackers are accelerate's (`accelerate.tracking`): TensorBoard writes to run_dir/tensorboard, Weights & Biases
    under run_dir (its mode from WANDB_MODE: `offline` needs no account), MLflow to MLFLOW_TRACKING_URI or else
    run_dir/mlruns; nothing is written outside the run folder unless those variables say so. Metrics are logged as
    `train/<key>` and `eval/<key>` against the step. `metrics.jsonl` stays the record the run resumes from.
    """

    def __init__(self, run_dir: Path, enabled: bool, trackers: list[str] | None = None, project: str = "mobile-r1",
                 config: dict[str, Any] | None = None) -> None:
        self.enabled = enabled
        self.path = run_dir / "metrics.jsonl"
        self.trackers: list[GeneralTracker] = []
        if enabled:
            for name in trackers or []:
                tracker = _tracker(name, run_dir, project)
                tracker.start()
                if config:
                    tracker.store_init_configuration(config)
                self.trackers.append(tracker)

    def log(self, stage: str, kind: str, step: int, metrics: dict[str, float]) -> None:
        if not self.enabled:
            return
        record = {"stage": stage, "kind": kind, "step": step, **metrics}
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
        values = {f"{kind}/{key}": value for key, value in metrics.items()}
        for tracker in self.trackers:
            tracker.log(values, step=step)

    def truncate_after(self, step: int) -> None:
        """Drop records past `step` (a resumed run rewrites what the killed run logged after its checkpoint)."""
        if not self.enabled or not self.path.is_file():
            return
        lines = [ln for ln in self.path.read_text(encoding="utf-8").splitlines() if ln.strip()]
        keep = [ln for ln in lines if json.loads(ln)["step"] <= step]
        self.path.write_text("".join(ln + "\n" for ln in keep), encoding="utf-8")

    def close(self) -> None:
        for tracker in self.trackers:
            tracker.finish()
        self.trackers = []


def _tracker(name: str, run_dir: Path, project: str) -> GeneralTracker:
    """One of accelerate's trackers, writing under the run folder."""
    try:
        if name == "tensorboard":
            return tracking.TensorBoardTracker("tensorboard", str(run_dir))
        if name == "wandb":
            return tracking.WandBTracker(project, dir=str(run_dir), name=run_dir.name)
        if name == "mlflow":
            import mlflow

            if not os.environ.get("MLFLOW_TRACKING_URI"):  # a local file store in the run folder (mlflow-skinny has
                os.environ.setdefault("MLFLOW_ALLOW_FILE_STORE", "true")  # no database store; the file store still works)
                mlflow.set_tracking_uri((run_dir / "mlruns").resolve().as_uri())
            return tracking.MLflowTracker(experiment_name=project, run_name=run_dir.name)
    except ImportError as exc:
        raise ConfigError(f"run.report_to: {name} needs its package ({exc.name}): pip install {exc.name}") from None
    raise ConfigError(f"run.report_to: unknown tracker {name!r}; choose tensorboard, wandb or mlflow")


def flat_config(tree: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """A config as flat `section.key` hyperparameters (lists as text), what trackers store."""
    out: dict[str, Any] = {}
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flat_config(value, name + "."))
        else:
            out[name] = value if isinstance(value, (int, float, str, bool)) else str(value)
    return out


__all__ = ["MetricsLog", "flat_config"]
