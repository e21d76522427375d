"""Shared pytest fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture
def shared_dir() -> Path:
    """The `../shared` folder beside the checkout (InquireBench task files and judge results)."""
    if not SHARED.is_dir():
        pytest.skip("../shared is not beside this checkout")
    return SHARED


def _set_lora_b(model, value: float = 0.5, seed: int | None = None) -> None:  # type: ignore[no-untyped-def]
    """Give every LoRA B matrix of `model` the value `value` (or, with `seed`, seeded normal draws of std `value`)."""
    import torch

    with torch.no_grad():
        for index, (name, p) in enumerate(model.named_parameters()):
            if "lora_B" in name:
                if seed is None:
                    p.fill_(value)
                else:
                    p.normal_(0, value, generator=torch.Generator().manual_seed(seed + index))


@pytest.fixture
def set_lora_b():  # type: ignore[no-untyped-def]
    """peft starts LoRA B at zero, so a fresh adapter changes nothing; tests call this to make it change the outputs."""
    return _set_lora_b
