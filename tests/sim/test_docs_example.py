"""The complete app example in docs/sim.md ("How to add an app") runs and its flow works."""

from __future__ import annotations

import re
from pathlib import Path

from mobile_r1.sim.apps import REGISTRY

DOC = Path(__file__).resolve().parents[2] / "docs" / "sim.md"


def test_docs_example_app_and_its_test_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    app_code = next(b for b in blocks if "class Recipes(App)" in b)
    test_code = next(b for b in blocks if "SimEnv(apps=[\"Recipes\"]" in b)
    ns: dict = {}
    try:
        exec(compile(app_code, "docs/sim.md", "exec"), ns)
        assert "recipes" in REGISTRY and len(REGISTRY["recipes"].screens()) >= 4
        exec(compile("from mobile_r1.core import Action\n" + test_code, "docs/sim.md", "exec"), ns)
        assert ns["env"].phone.activity() == "recipes/recipe"
    finally:
        REGISTRY.pop("recipes", None)
