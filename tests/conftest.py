"""Shared pytest fixtures, and the private home every test runs in (never the user's caches)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"

# The session's private home; set by the first process (pytest, or the controller of `-n` workers, which inherit it).
PRIVATE_HOME = "MOBILE_R1_TEST_HOME"
# Variables that would point a library at a folder of the user's own even with HOME moved: each then derives its
# folder from the private HOME / XDG folders below.
USER_PLACES = ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_DATASETS_CACHE", "TRANSFORMERS_CACHE", "HF_MODULES_CACHE",
               "TORCH_HOME", "TRITON_CACHE_DIR", "MPLCONFIGDIR", "WANDB_DIR", "WANDB_CACHE_DIR", "WANDB_CONFIG_DIR",
               "WANDB_DATA_DIR", "ANDROID_USER_HOME", "ANDROID_SDK_HOME", "ANDROID_EMULATOR_HOME")
_CREATED = pytest.StashKey[Path]()


def private_places(home: Path) -> dict[str, str]:
    """Where every cache and configuration folder of the test session goes: all of it inside `home`."""
    cache = home / ".cache"
    return {
        "HOME": str(home),
        "XDG_CACHE_HOME": str(cache),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "HF_HOME": str(cache / "huggingface"),
        # Temporary files of subprocesses and of the workers of `pytest -n` (Ray's session folders, W&B's and
        # torch.distributed's scratch folders) go here too, so none is left in the machine's /tmp.
        "TMPDIR": str(home / "tmp"),
        # Presets are built once per session; MOBILE_R1_TEST_CACHE keeps built presets from one session to the next.
        "MOBILE_R1_CACHE": os.environ.get("MOBILE_R1_TEST_CACHE") or str(cache / "mobile-r1"),
    }


def pytest_configure(config: pytest.Config) -> None:
    """Move HOME, the XDG folders and the model caches into a private folder before any test module is imported:
    huggingface_hub, datasets and matplotlib read their folders when first imported, and subprocesses inherit them."""
    if os.environ.get(PRIVATE_HOME):
        return  # a worker of `pytest -n`: the controller made the folder
    home = Path(tempfile.mkdtemp(prefix="mobile-r1-tests-"))
    (home / "tmp").mkdir()
    config.stash[_CREATED] = home
    for name in USER_PLACES:
        os.environ.pop(name, None)
    os.environ.update(private_places(home), **{PRIVATE_HOME: str(home)})


def pytest_unconfigure(config: pytest.Config) -> None:
    home = config.stash.get(_CREATED, None)
    if home is not None:
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(autouse=True)
def private_home() -> Iterator[Path]:
    """Every test runs with HOME, the XDG folders, the Hugging Face caches and the preset cache in the session's
    private folder (removed at the end); a test that leaves one of them pointing elsewhere fails."""
    home = Path(os.environ[PRIVATE_HOME])
    places = private_places(home)
    yield home
    moved = {name: os.environ.get(name) for name, value in places.items() if os.environ.get(name) != value}
    assert not moved, f"the test left these variables pointing outside the private home: {moved}"


@pytest.fixture(scope="session")
def preset_cache() -> Path:
    """The folder built presets are kept in this session ($MOBILE_R1_CACHE, inside the private home unless
    $MOBILE_R1_TEST_CACHE names a folder to keep them in from one session to the next)."""
    return Path(os.environ["MOBILE_R1_CACHE"])


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
