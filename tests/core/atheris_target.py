"""atheris fuzz target (run by `test_fuzz_inputs.py` when atheris is installed): the bytes become a model reply for
every dialect and reward preset, and a JSON line for the shared reader; only project errors may come out.

    python tests/core/atheris_target.py -runs=4000 -max_len=8192 -timeout=2
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports():
    from mobile_r1.core.dialects import get_dialect
    from mobile_r1.core.errors import MobileR1Error
    from mobile_r1.core.reading import Where, loads
    from mobile_r1.core.rewards import PRESETS

DIALECTS = [get_dialect(name) for name in ("qwen2.5vl", "inquire", "mobile-r1", "uitars", "compact")]
LABEL = {"name": "mobile_use", "arguments": {"action": "call_user", "content": "which account should I use"}}
WHERE = Where(__import__("pathlib").Path("fuzz.jsonl"), 1)


def test_one_input(data: bytes) -> None:
    text = data.decode("utf-8", "replace")
    for dialect in DIALECTS:
        result = dialect.parse(text)
        if result.valid and result.action is None:
            raise AssertionError("a valid parse without an action")
    for preset in PRESETS.values():
        preset.score(text, LABEL, [10, 20, 30, 40], [1080, 2400], [540, 1200])
    try:
        loads(text, WHERE)
    except MobileR1Error:
        pass


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
