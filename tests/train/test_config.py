"""Training configs: the shipped files validate, and mistakes name the file and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from mobile_r1.core.errors import ConfigError
from mobile_r1.train.config import load_config

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


@pytest.mark.parametrize("name", ["cpu-tiny.yaml", "cpu-smollm2.yaml", "qwen2.5vl-3b-gpu.yaml"])
def test_shipped_configs_validate(name: str) -> None:
    config = load_config(CONFIGS / name)
    assert config.grpo.num_generations == 4 and config.grpo.loss_type == "dapo"


def test_gpu_config_has_the_papers_stage_two_settings() -> None:
    config = load_config(CONFIGS / "qwen2.5vl-3b-gpu.yaml")
    assert config.grpo.temperature == 1.0 and config.optim.lr == 1e-6 and config.optim.scheduler == "linear"
    assert config.grpo.epochs == 2 and config.model.lora is not None and config.data.prescale == 0.3


def test_errors_name_the_file_and_the_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("grpo:\n  temperature: -1\n  num_generatoins: 4\nmodel:\n  dtype: float8\n")
    with pytest.raises(ConfigError) as err:
        load_config(bad)
    message = str(err.value)
    assert str(bad) in message and "grpo.temperature" in message and "grpo.num_generatoins" in message
    assert "model.dtype" in message
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "missing.yaml")
    (tmp_path / "list.yaml").write_text("- 1\n")
    with pytest.raises(ConfigError, match="top level"):
        load_config(tmp_path / "list.yaml")


def test_relative_data_paths_resolve_against_the_config_folder(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "c.yaml").write_text("data:\n  train: [data]\n")
    assert load_config(tmp_path / "c.yaml").data.train == [str(tmp_path / "data")]


def test_adam_betas_reach_the_optimizer(tmp_path: Path) -> None:
    from mobile_r1.models import load_policy
    from mobile_r1.train.run import make_optimizer

    (tmp_path / "c.yaml").write_text("optim:\n  lr: 1.0e-3\n  adam_beta2: 0.98\n")
    optimizer, _ = make_optimizer(load_policy("tiny-lm"), load_config(tmp_path / "c.yaml"), total_steps=10)
    assert optimizer.param_groups[0]["betas"] == (0.9, 0.98)
    (tmp_path / "bad.yaml").write_text("optim:\n  adam_beta2: 1.0\n")
    with pytest.raises(ConfigError, match="optim.adam_beta2"):
        load_config(tmp_path / "bad.yaml")
