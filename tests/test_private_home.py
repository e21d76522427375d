"""The test session keeps out of the user's home: the folders the libraries resolve for their caches, and those a
subprocess sees, all lie in the session's private folder (tests/conftest.py)."""

from __future__ import annotations

import os
import pwd
import subprocess
import sys
from pathlib import Path

RESOLVED = """
import json, os, pathlib
print(json.dumps({"home": str(pathlib.Path.home()),
                  **{name: os.environ[name] for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "HF_HOME", "MOBILE_R1_CACHE")}}))
"""


def inside(path: str | Path, folder: Path) -> bool:
    return Path(path).resolve().is_relative_to(folder.resolve())


def test_the_libraries_resolve_their_caches_inside_the_private_home(private_home: Path, preset_cache: Path) -> None:
    import datasets.config
    import huggingface_hub.constants
    import matplotlib

    from mobile_r1.models.policy import cache_dir

    users_home = Path(pwd.getpwuid(os.getuid()).pw_dir)
    assert not inside(private_home, users_home) and not inside(users_home, private_home)
    assert Path.home() == private_home and Path(os.path.expanduser("~")) == private_home
    assert inside(huggingface_hub.constants.HF_HUB_CACHE, private_home)
    assert inside(datasets.config.HF_DATASETS_CACHE, private_home)
    assert inside(matplotlib.get_configdir(), private_home) and inside(matplotlib.get_cachedir(), private_home)
    assert cache_dir() == preset_cache
    if not os.environ.get("MOBILE_R1_TEST_CACHE"):
        assert inside(preset_cache, private_home)


def test_a_subprocess_inherits_the_private_home(private_home: Path) -> None:
    import json

    done = subprocess.run([sys.executable, "-c", RESOLVED], capture_output=True, text=True, check=True, timeout=60)
    places = json.loads(done.stdout.strip().splitlines()[-1])
    outside = {name: path for name, path in places.items()
               if not inside(path, private_home) and not (name == "MOBILE_R1_CACHE" and os.environ.get("MOBILE_R1_TEST_CACHE"))}
    assert outside == {}
