"""Prints the peak memory of `mobile-r1 reward` on one huge line, and on long texts it still scores.

    python benchmarks/reward_memory.py [--megabytes 200]

Each case runs `python -m mobile_r1.cli.main reward --preset inquire-mobile` in its own process; its peak resident
set comes from the kernel (`os.wait4`'s rusage, `ru_maxrss`) once it exits. Cases:

- a line of `--megabytes` MB (a `type` completion of ~100 M characters, 2 characters a word): refused after reading at
  most the 16 MiB a record may hold (`mobile_r1.core.reading.MAX_LINE_BYTES`), with a message naming the line;
- a line under that limit (a ~9 MB `type` completion against a ~4.5 MB label): scored, BLEU reading the first 64 KiB
  of each (`BLEU_MAX_CHARS`), so its n-gram counts stay small;
- a file of ordinary cases, for the baseline.

Before these bounds, sacrebleu counted every n-gram of the whole text: about 340 bytes a word, more than 22 GB for
the 200 MB line.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORDS = "please type this into the search box now ".split()


def _case(text: str, label: str) -> str:
    call = json.dumps({"name": "mobile_use", "arguments": {"action": "type", "text": text}})
    return json.dumps({"completion": f"<think>t</think>\n<tool_call>\n{call}\n</tool_call>",
                       "label": {"name": "mobile_use", "arguments": {"action": "type", "text": label}},
                       "bbox": None, "image_size": [1080, 2400], "model_image_size": [540, 1200]})


def _write_huge_line(path: Path, megabytes: int) -> None:
    """One JSON line whose `type` text is about `megabytes` MB, written in chunks (never held whole here)."""
    head, tail = _case("MARKER", "hello there").split("MARKER")
    chunk = ("a " * 2**19)  # 1 MiB of two-character words
    with open(path, "w", encoding="utf-8") as stream:
        stream.write(head)
        for _ in range(megabytes):
            stream.write(chunk)
        stream.write(tail + "\n")


def _peak_mb(args: list[str]) -> tuple[float, int, float, str]:
    """(peak RSS in MB, exit status, seconds, last line of stderr) of one child process."""
    started = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - started
    last = " ".join(err.split())[:150]
    return usage.ru_maxrss / 1024, proc.returncode, seconds, last  # ru_maxrss is in KiB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=200, help="size of the huge line")
    args = parser.parse_args()
    command = [sys.executable, "-m", "mobile_r1.cli.main", "reward", "--preset", "inquire-mobile", "--input"]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        huge = root / "huge.jsonl"
        _write_huge_line(huge, args.megabytes)
        under = root / "under.jsonl"
        text = " ".join(WORDS[i % len(WORDS)] for i in range(9 * 2**20 // 6))
        under.write_text(_case(text, text[: len(text) // 2]) + "\n", encoding="utf-8")
        small = root / "small.jsonl"
        small.write_text("".join(_case("please type this", "please type this now") + "\n" for _ in range(100)),
                         encoding="utf-8")
        print(f"# {platform.python_implementation()} {platform.python_version()} on {platform.machine()}; peak RSS of "
              "`mobile-r1 reward --preset inquire-mobile` in its own process")
        print(f"{'input':<44} {'peak MB':>8} {'exit':>5} {'s':>6}  message")
        for name, path in ((f"one {args.megabytes} MB line ({huge.stat().st_size / 1e6:.0f} MB file)", huge),
                           (f"one {under.stat().st_size / 2**20:.1f} MiB line, scored", under),
                           ("100 ordinary cases", small)):
            peak, code, seconds, message = _peak_mb(command + [str(path)])
            print(f"{name:<44} {peak:>8.0f} {code:>5} {seconds:>6.1f}  {message}")


if __name__ == "__main__":
    main()
